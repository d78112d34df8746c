// Package blackhole puts a TCP proxy in front of a test's PostgreSQL that
// can be made to stop answering, for tests of how code behaves when the
// database does (kept apart from pgtest so that pgtest's users do not need
// Toxiproxy).
package blackhole

import (
	"fmt"
	"strings"
	"testing"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/rs/zerolog"

	"github.com/lexora-app/lexora/pkg/testkit/faultproxy"
)

// Proxy points cfg at a TCP proxy (in-process Toxiproxy, a
// faultproxy.Proxy) in front of its database, stopped at the test's end.
// hold makes the proxy drop every byte from then on, in both directions,
// on open connections and new ones, as a database that stops answering
// does; calling it again changes nothing. stop closes the proxy and every
// connection through it: register it as a cleanup after opening the pools,
// so that it runs before they close. A connection whose bytes were dropped
// cannot go on, and pgx closes one cut short by a cancelled query with a
// cancel request sent through the hold, whose answer it awaits for 15 s
// (pgconn's asyncClose, which pgxpool's Close waits for): once the proxy's
// connections are closed, both end at once. Neither blocks, whatever the
// connections do (the proxy's toxics are never added or removed, see
// faultproxy).
func Proxy(t testing.TB, cfg *pgxpool.Config) (hold, stop func()) {
	t.Helper()
	server := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	p, err := faultproxy.Start(server, "postgres", "127.0.0.1:0", fmt.Sprintf("%s:%d", cfg.ConnConfig.Host, cfg.ConnConfig.Port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Stop)
	host, port, ok := strings.Cut(p.Listen, ":")
	if !ok {
		t.Fatal(p.Listen)
	}
	cfg.ConnConfig.Host, cfg.ConnConfig.Fallbacks = host, nil
	if _, err := fmt.Sscan(port, &cfg.ConnConfig.Port); err != nil {
		t.Fatal(err)
	}
	return p.Hold, p.Stop
}
