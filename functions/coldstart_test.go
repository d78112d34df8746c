package functions

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/testkit/testport"
)

// proxy forwards TCP connections from a loopback port to PostgreSQL once
// started, so a test can have the database down (nothing listens) and then
// up on the same address.
type proxy struct {
	l  net.Listener
	wg sync.WaitGroup
}

func startProxy(t *testing.T, port int, target string) *proxy {
	t.Helper()
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	require.NoError(t, err)
	p := &proxy{l: l}
	p.wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			// The proxy's connections end when either side goes (the test
			// stops the database behind it); what the test checks is the
			// function's answers, not how the proxy's sockets close.
			go func() {
				defer func() { _ = c.Close() }()
				up, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer func() { _ = up.Close() }()
				go func() { _, _ = io.Copy(up, c) }()
				_, _ = io.Copy(c, up)
			}()
		}
	})
	t.Cleanup(func() { _ = l.Close(); p.wg.Wait() })
	return p
}

// TestColdStartRecoversWhenTheDatabaseComesBack: an instance whose first
// request finds the database down answers 503, and the first request after
// the database is back succeeds.
func TestColdStartRecoversWhenTheDatabaseComesBack(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	var learner uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role) VALUES ('cold@example.com', 'Cold', 'learner')
		RETURNING id`).Scan(&learner))
	_, err := pool.Exec(ctx, "UPDATE users SET auth_subject = id::text")
	require.NoError(t, err)
	cfg := pool.Config().ConnConfig
	port := testport.Free(t)
	t.Setenv("DATABASE_URL", fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", cfg.User, port, cfg.Database))
	t.Setenv("AUTH_DEV", "true")
	t.Setenv("AUTH_PROJECT", "lexora-dev")
	t.Setenv("OUTBOX_WAKEUP", "false")

	var builds int
	l := &lazyService{build: func() (*Service, error) { builds++; return fromEnv() }}
	h := l.serve("GetProgress", (*Service).GetProgress)
	get := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/GetProgress", nil)
		req.Header.Set("Authorization", bearer(t, learner))
		rec := httptest.NewRecorder()
		h(rec, req)
		return rec
	}
	for range 2 {
		rec := get()
		require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
	}
	startProxy(t, port, fmt.Sprintf("%s:%d", cfg.Host, cfg.Port))
	rec := get()
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Contains(t, rec.Body.String(), learner.String())
	require.Equal(t, http.StatusOK, get().Code)
	require.Equal(t, 3, builds, "two failed builds, one that is kept")
	t.Cleanup(l.svc.pool.Close)
	require.True(t, l.svc.scheduler.Params().EnableFuzz, "intervals are fuzzed by default")

	t.Setenv("FSRS_FUZZ", "false")
	svc, err := fromEnv()
	require.NoError(t, err)
	t.Cleanup(svc.pool.Close)
	require.False(t, svc.scheduler.Params().EnableFuzz, "FSRS_FUZZ=false turns fuzz off")
}
