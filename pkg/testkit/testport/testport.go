// Package testport finds free loopback TCP ports for the local servers that
// tests start (mailpit, pgbouncer, the functions' server), and waits for
// those servers to listen.
package testport

import (
	"errors"
	"fmt"
	"net"
	"testing"
	"time"
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

// Await returns nil once a TCP connection to addr (host:port) succeeds. It
// returns an error when none has after limit, or as soon as exited receives
// (the server's end, e.g. cmd.Wait's result; nil waits for no end): a server
// that has exited will never listen. It dials every 20 ms: the servers it
// waits for (mailpit, pgbouncer, the Functions Framework's) bind their port
// with no signal a test could wait on instead (functions-framework-go's
// Start takes a port, not a listener, and says nothing once it listens).
func Await(addr string, limit time.Duration, exited <-chan error) error {
	deadline := time.After(limit)
	retry := time.NewTicker(20 * time.Millisecond)
	defer retry.Stop()
	for {
		conn, err := net.Dial("tcp", addr)
		if err == nil {
			return conn.Close()
		}
		select {
		case end := <-exited:
			return errors.Join(fmt.Errorf("the server exited before it listened on %s", addr), end)
		case <-deadline:
			return fmt.Errorf("nothing listened on %s within %s: %w", addr, limit, err)
		case <-retry.C:
		}
	}
}
