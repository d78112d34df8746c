package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
)

// faultProxy is a toxiproxy proxy whose faults are switched on and off
// without ever changing its chain of toxics: the harness's own toxic
// (faultToxic, type "chaos") sits last in each direction from the proxy's
// start and passes data through until told to reset or to delay it.
//
// Why not toxiproxy's reset_peer and latency toxics, added for a fault and
// removed after it: removing a toxic (ToxicCollection.RemoveToxic, v2.5.0
// to v2.12.0, the latest release) holds the proxy's toxic collection lock
// while it interrupts the toxic on every connection, and a toxic blocked
// forwarding to a peer that stopped reading (a drain stopped or killed,
// a database restarting) never yields. When that connection then dies,
// its clean-up (RemoveLink) waits for the same lock: the removal never
// returns and the proxy accepts no connection again (Shopify/toxiproxy
// #427, #428 and #558; the fix, #760, is not merged). A long run wedged so
// on the drains' proxy. A toxic that never leaves its chain is never
// interrupted, so that path is never taken; TestProxyFaultsNeverWedge
// reproduces the wedge.
type faultProxy struct {
	*toxiproxy.Proxy
	up, down *faultToxic
}

// newFaultProxy starts a proxy named name listening on listen and
// forwarding to upstream, its switchable toxic in each direction.
func newFaultProxy(server *toxiproxy.ApiServer, name, listen, upstream string) (*faultProxy, error) {
	toxics.Register("chaos", new(faultToxic)) // idempotent: the registry is a map by type
	p := &faultProxy{Proxy: toxiproxy.NewProxy(server, name, listen, upstream)}
	// A reset_peer toxic that never fires (toxicity 0: each connection runs
	// it as a no-op) only so that toxiproxy sets SO_LINGER 0 on both ends of
	// every connection, as it does when a reset_peer toxic is in the chain:
	// closing a connection then sends an RST, as reset_peer does.
	for _, spec := range []string{
		`{"name":"linger","type":"reset_peer","stream":"upstream","toxicity":0}`,
		`{"name":"chaos-up","type":"chaos","stream":"upstream"}`,
		`{"name":"chaos-down","type":"chaos","stream":"downstream"}`,
	} {
		w, err := p.Toxics.AddToxicJson(strings.NewReader(spec))
		if err != nil {
			return nil, fmt.Errorf("toxiproxy %s: %s: %w", name, spec, err)
		}
		if t, ok := w.Toxic.(*faultToxic); ok && w.Stream == "upstream" {
			p.up = t
		} else if ok {
			p.down = t
		}
	}
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("toxiproxy %s: %w", name, err)
	}
	return p, nil
}

// reset closes with an RST every connection that sends through the proxy
// (client to upstream) until heal, as toxiproxy's reset_peer with no
// timeout does.
func (p *faultProxy) reset() { p.up.state.Store(&toxicState{reset: true}) }

// slow delays everything the upstream sends back by latency ± jitter
// until heal, as toxiproxy's latency toxic does.
func (p *faultProxy) slow(latency, jitter time.Duration) {
	p.down.state.Store(&toxicState{latency: latency, jitter: jitter})
}

// heal ends the proxy's faults; it never blocks.
func (p *faultProxy) heal() {
	p.up.state.Store(nil)
	p.down.state.Store(nil)
}

// toxicState is what a faultToxic does to the data it sees; nil passes it.
type toxicState struct {
	reset           bool
	latency, jitter time.Duration
}

// faultToxic is the harness's toxiproxy toxic: one instance per proxy and
// direction, shared by its connections, doing what its state says.
type faultToxic struct {
	state atomic.Pointer[toxicState]
}

// Pipe forwards each chunk of one connection's direction: at once, after
// the latency (counted from when the proxy read the chunk), or not at all,
// closing the connection, when resetting. It returns when the connection
// closes (a chunk it holds for a peer that died meanwhile blocks it for
// good, as it does toxiproxy's own toxics: a goroutine, not the proxy); toxiproxy interrupts it only when the chain changes, which the
// harness never does after the proxy started.
func (t *faultToxic) Pipe(stub *toxics.ToxicStub) {
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			st := t.state.Load()
			if st != nil && st.reset {
				stub.Close()
				for range stub.Input { // until the connection closes: the toxics before this one never block on it
				}
				return
			}
			if st != nil && st.latency > 0 {
				delay := st.latency
				if st.jitter > 0 {
					delay += time.Duration(rand.Int64N(int64(2*st.jitter))) - st.jitter
				}
				select {
				case <-time.After(delay - time.Since(c.Timestamp)):
				case <-stub.Interrupt:
					stub.Output <- c
					return
				}
			}
			stub.Output <- c
		}
	}
}
