package faultproxy

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/require"
)

// testProxy starts a Proxy in front of a server that runs serve on
// each connection.
func testProxy(t *testing.T, serve func(net.Conn)) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	p, err := Start(server, t.Name(), "127.0.0.1:0", ln.Addr().String())
	require.NoError(t, err)
	t.Cleanup(func() { // a wedged proxy never stops: its accept loop waits for the lock
		stopped := make(chan struct{})
		go func() { p.Stop(); close(stopped) }()
		select {
		case <-stopped:
		case <-time.After(5 * time.Second):
			t.Error("the proxy did not stop within 5 s")
		}
	})
	return p
}

// TestProxyFaultsNeverWedge reproduces the wedge of a long chaos run:
// latency on a proxy while its client stops reading (a drain stopped), the
// fault ended, then the client killed. With toxiproxy's latency toxic
// removed to end the fault, the removal blocked behind the connection that
// no longer read, holding the proxy's lock, and the connection's clean-up
// then waited for that lock: the proxy never accepted a connection again.
// The hold and lift of pgtest/blackhole, after a client stopped reading a
// result, wedged so too: its hold added timeout toxics, and adding one
// blocked behind that connection.
func TestProxyFaultsNeverWedge(t *testing.T) {
	t.Parallel()
	type step struct {
		name string
		do   func(*Proxy)
	}
	for _, tc := range []struct {
		name   string
		before func(*Proxy) // before the client stops reading
		steps  []step       // then, in turn: none may block
	}{
		{"latency", func(p *Proxy) { p.Slow(time.Millisecond, 0) }, []step{{"heal", (*Proxy).Heal}}},
		{"blackhole", func(*Proxy) {}, []step{{"hold", (*Proxy).Hold}, {"lift", (*Proxy).Heal}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			stalled := make(chan struct{})
			var once sync.Once
			chunk := make([]byte, 32<<10)
			p := testProxy(t, func(c net.Conn) { // sends until the other end stops reading
				defer func() { _ = c.Close() }()
				for {
					if err := c.SetWriteDeadline(time.Now().Add(200 * time.Millisecond)); err != nil {
						return
					}
					if _, err := c.Write(chunk); err != nil {
						if errors.Is(err, os.ErrDeadlineExceeded) {
							once.Do(func() { close(stalled) })
						}
						return
					}
				}
			})
			tc.before(p)
			stopped, err := net.Dial("tcp", p.Listen)
			require.NoError(t, err)
			require.NoError(t, stopped.(*net.TCPConn).SetReadBuffer(4096))
			select {
			case <-stalled: // the proxy holds a chunk it cannot deliver
			case <-time.After(20 * time.Second):
				t.Fatal("the server never stalled behind the client that does not read")
			}

			for _, s := range tc.steps {
				done := make(chan struct{})
				go func() { s.do(p); close(done) }()
				select {
				case <-done:
				case <-time.After(5 * time.Second):
					t.Errorf("%s blocked behind a connection that does not read", s.name)
				}
			}
			require.NoError(t, stopped.Close()) // the stopped drain killed

			c, err := net.Dial("tcp", p.Listen)
			require.NoError(t, err)
			defer func() { _ = c.Close() }()
			require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
			_, err = io.ReadFull(c, make([]byte, 1))
			require.NoError(t, err, "the proxy is wedged: a new connection gets nothing")
		})
	}
}

// TestProxyResetSendsAnRST: while the proxy resets, a client that sends
// gets its connection reset (ECONNRESET, as with toxiproxy's reset_peer);
// healed, the proxy forwards again.
func TestProxyResetSendsAnRST(t *testing.T) {
	t.Parallel()
	p := testProxy(t, func(c net.Conn) { // echo
		defer func() { _ = c.Close() }()
		_, _ = io.Copy(c, c)
	})
	echo := func(c net.Conn) error {
		if _, err := c.Write([]byte("x")); err != nil {
			return err
		}
		if err := c.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
			return err
		}
		_, err := io.ReadFull(c, make([]byte, 1))
		return err
	}
	c, err := net.Dial("tcp", p.Listen)
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	require.NoError(t, echo(c))

	p.Reset()
	require.ErrorIs(t, echo(c), syscall.ECONNRESET)
	p.Heal()

	c2, err := net.Dial("tcp", p.Listen)
	require.NoError(t, err)
	defer func() { _ = c2.Close() }()
	require.NoError(t, echo(c2))
}
