// Package testport finds free loopback TCP ports for the local servers that
// tests start (mailpit, pgbouncer).
package testport

import (
	"net"
	"testing"
)

// Free returns a TCP port on 127.0.0.1 that was free a moment ago: the
// kernel picks it for a listener that is closed at once. Another process may
// take it before the caller binds it, which the loopback servers of a test
// run make unlikely. It fails the test when no port can be had.
func Free(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port //nolint:forcetypeassert // a "tcp" listener's address is a *net.TCPAddr
	if err := l.Close(); err != nil {
		t.Fatalf("free port %d: %v", port, err)
	}
	return port
}
