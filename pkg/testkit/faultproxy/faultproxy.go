// Package faultproxy is an in-process TCP proxy (Toxiproxy) whose faults
// (resets, latency, a hold of every byte) are switched on and off without
// ever changing its chain of toxics, so that switching them can never
// wedge the proxy. The chaos harness (jobs/dev/chaos) and the blackhole
// test helper (pkg/testkit/pgtest/blackhole) use it.
package faultproxy

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/Shopify/toxiproxy/v2/toxics"
	"go.uber.org/goleak"
)

// Proxy is a toxiproxy proxy whose faults are switched on and off without
// ever changing its chain of toxics: the package's own toxic (type
// "lexora-fault") sits last in each direction from the proxy's start and
// passes data through until told to reset, delay or hold it.
//
// Why not toxiproxy's reset_peer, latency and timeout toxics, added for a
// fault and removed after it: adding or removing a toxic
// (ToxicCollection.AddToxicJson, RemoveToxic, ResetToxics; v2.5.0 to
// v2.12.0, the latest release) holds the proxy's toxic collection lock
// while it interrupts a toxic on every connection, and a toxic blocked
// forwarding to a peer that stopped reading (a drain stopped or killed, a
// database restarting, a client that left a result half read) never
// yields. When that connection then dies, its clean-up (RemoveLink) waits
// for the same lock: the change never returns and the proxy accepts no
// connection again (Shopify/toxiproxy #427, #428 and #558; the fix, #760,
// is not merged). A long chaos run wedged so on the drains' proxy. A toxic
// that never leaves its chain is never interrupted, so that path is never
// taken; TestProxyFaultsNeverWedge reproduces the wedge.
type Proxy struct {
	*toxiproxy.Proxy
	up, down *toxic
}

func init() {
	toxics.Register("lexora-fault", new(toxic))
}

// Start starts a proxy named name listening on listen (host:port; port 0
// picks a free one, then in p.Listen) and forwarding to upstream, its
// switchable toxic in each direction.
func Start(server *toxiproxy.ApiServer, name, listen, upstream string) (*Proxy, error) {
	p := &Proxy{Proxy: toxiproxy.NewProxy(server, name, listen, upstream)}
	// A reset_peer toxic that never fires (toxicity 0: each connection runs
	// it as a no-op) only so that toxiproxy sets SO_LINGER 0 on both ends of
	// every connection, as it does when a reset_peer toxic is in the chain:
	// closing a connection then sends an RST, as reset_peer does.
	for _, spec := range []string{
		`{"name":"linger","type":"reset_peer","stream":"upstream","toxicity":0}`,
		`{"name":"fault-up","type":"lexora-fault","stream":"upstream"}`,
		`{"name":"fault-down","type":"lexora-fault","stream":"downstream"}`,
	} {
		w, err := p.Toxics.AddToxicJson(strings.NewReader(spec))
		if err != nil {
			return nil, fmt.Errorf("toxiproxy %s: %s: %w", name, spec, err)
		}
		if t, ok := w.Toxic.(*toxic); ok && w.Stream == "upstream" {
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

// Reset closes with an RST every connection that sends through the proxy
// (client to upstream) until Heal, as toxiproxy's reset_peer with no
// timeout does.
func (p *Proxy) Reset() { p.up.state.Store(&toxicState{reset: true}) }

// Slow delays everything the upstream sends back by latency ± jitter
// until Heal, as toxiproxy's latency toxic does.
func (p *Proxy) Slow(latency, jitter time.Duration) {
	p.down.state.Store(&toxicState{latency: latency, jitter: jitter})
}

// Hold drops every byte in both directions, on open connections and new
// ones, until Heal, as toxiproxy's timeout toxic with no timeout does: to
// either end the other stops answering. It never blocks.
func (p *Proxy) Hold() {
	p.up.state.Store(&toxicState{hold: true})
	p.down.state.Store(&toxicState{hold: true})
}

// Heal ends the proxy's faults; it never blocks.
func (p *Proxy) Heal() {
	p.up.state.Store(nil)
	p.down.state.Store(nil)
}

// IgnoreLeaks are the goleak options for the goroutines toxiproxy leaves
// for a connection whose peer died while a chunk was on its way to it: the
// toxic holding the chunk, and those before it, wait for good (toxiproxy's
// own toxics do the same).
func IgnoreLeaks() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2/toxics.(*ToxicStub).Run"),
		goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2.(*ToxicLink).read"),
	}
}

// toxicState is what a toxic does to the data it sees; nil passes it.
type toxicState struct {
	reset, hold     bool
	latency, jitter time.Duration
}

// toxic is the package's toxiproxy toxic: one instance per proxy and
// direction, shared by its connections, doing what its state says.
type toxic struct {
	state atomic.Pointer[toxicState]
}

// Pipe forwards each chunk of one connection's direction: at once, after
// the latency (counted from when the proxy read the chunk), not at all
// (holding), or not at all, closing the connection (resetting). It returns
// when the connection closes (a chunk it holds for a peer that died
// meanwhile blocks it for good, as it does toxiproxy's own toxics: a
// goroutine, not the proxy); toxiproxy interrupts it only when the chain
// changes, which never happens after the proxy started.
func (t *toxic) Pipe(stub *toxics.ToxicStub) {
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
			switch {
			case st == nil:
			case st.hold:
				continue // dropped
			case st.reset:
				stub.Close()
				for range stub.Input { // until the connection closes: the toxics before this one never block on it
				}
				return
			case st.latency > 0:
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
