// Package blackhole puts a TCP proxy in front of a test's PostgreSQL that
// can be made to stop answering, for tests of how code behaves when the
// database does (kept apart from pgtest so that pgtest's users do not need
// Toxiproxy).
package blackhole

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"
)

// Proxy points cfg at a TCP proxy (in-process Toxiproxy) in front of
// its database, stopped at the test's end. hold makes the proxy hold every
// byte from then on, in both directions, on open connections and new ones,
// as a database that stops answering does; calls after the first do
// nothing. lift ends the hold: register it as a cleanup after opening the
// pools, so that they close (and their cancel requests go through) first.
func Proxy(t testing.TB, cfg *pgxpool.Config) (hold, lift func()) {
	t.Helper()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	proxy := toxiproxy.NewProxy(server, "postgres", "127.0.0.1:0", fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port))
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Stop)
	host, port, ok := strings.Cut(proxy.Listen, ":")
	if !ok {
		t.Fatal(proxy.Listen)
	}
	cfg.ConnConfig.Host, cfg.ConnConfig.Fallbacks = host, nil
	if _, err := fmt.Sscan(port, &cfg.ConnConfig.Port); err != nil {
		t.Fatal(err)
	}
	lift = func() { proxy.Toxics.ResetToxics(context.Background()) }
	return sync.OnceFunc(func() {
		for _, stream := range []string{"upstream", "downstream"} {
			_, err := proxy.Toxics.AddToxicJson(strings.NewReader(
				`{"type": "timeout", "stream": "` + stream + `", "attributes": {"timeout": 0}}`))
			if err != nil {
				panic(err) // may be called from a handler's goroutine
			}
		}
	}), lift
}
