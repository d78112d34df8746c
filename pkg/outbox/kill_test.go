package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/pgtest"
)

// TestMain lets the test binary double as a drain worker process, so that
// tests can SIGKILL a real drain.
func TestMain(m *testing.M) {
	if url := os.Getenv("LEXORA_OUTBOX_WORKER_URL"); url != "" {
		os.Exit(worker(url))
	}
	os.Exit(m.Run())
}

// worker drains "s1" into the effects table and prints its report as JSON.
// By default it goes slowly enough to be killed mid-batch; with
// LEXORA_OUTBOX_WORKER_MODE=pause it claims five deliveries at once and
// handles them one at a time, three seconds each, to be paused mid-batch.
func worker(url string) int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer pool.Close()
	h, cfg := loggedEffect(pool, 2*time.Millisecond), Config{StopWhenIdle: true, BatchSize: 50, Concurrency: 4, LeaseDuration: time.Second}
	if os.Getenv("LEXORA_OUTBOX_WORKER_MODE") == "pause" {
		h, cfg = loggedEffect(pool, 3*time.Second), Config{StopWhenIdle: true, BatchSize: 5, Concurrency: 1, LeaseDuration: time.Second}
	}
	d, err := NewDrainer(pool, map[string]Handler{"s1": h}, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rep, err := d.Run(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// loggedEffect logs every attempt in the attempts table, works for work
// (or until its context ends), then writes the effect once through
// HandleOnce.
func loggedEffect(pool *pgxpool.Pool, work time.Duration) Handler {
	return HandlerFunc(func(ctx context.Context, d Delivery) error {
		if _, err := pool.Exec(ctx, "INSERT INTO attempts VALUES ($1)", d.Event.ID); err != nil {
			return err
		}
		if work > 0 && !sleep(ctx, work) {
			return ctx.Err()
		}
		return HandleOnce(ctx, pool, d, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO effects VALUES ($1, $2)", d.Event.ID, d.Subscriber)
			return err
		})
	})
}

func TestFourDrainsWithOneKilledDeliverEverythingOnce(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.effects(t)
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, "CREATE TABLE attempts (event_id uuid)")
	require.NoError(t, err)
	const n = 2000
	events := make([]Event, n)
	for i := range events {
		events[i] = event(t, "t.b", i)
	}
	b.enqueue(t, events...)

	workers := make([]*exec.Cmd, 4)
	for i := range workers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "LEXORA_OUTBOX_WORKER_URL="+pgtest.URL(b.pool))
		cmd.Stderr = os.Stderr
		require.NoError(t, cmd.Start())
		workers[i] = cmd
	}
	require.Eventually(t, func() bool {
		return b.count(t, "SELECT count(*) FROM effects") > 200
	}, 30*time.Second, 5*time.Millisecond)
	require.NoError(t, workers[0].Process.Signal(syscall.SIGKILL))
	require.Error(t, workers[0].Wait(), "killed")
	for _, w := range workers[1:] {
		require.NoError(t, w.Wait())
	}

	// What the killed worker held comes back when its leases expire.
	d := b.drainer(t, map[string]Handler{"s1": loggedEffect(b.pool, 2*time.Millisecond)}, Config{StopWhenIdle: true})
	require.Eventually(t, func() bool {
		_, err := d.Run(ctx)
		require.NoError(t, err)
		return b.count(t, "SELECT count(*) FROM outbox_deliveries") == 0
	}, 30*time.Second, 100*time.Millisecond)

	require.Equal(t, n, b.count(t, "SELECT count(*) FROM effects"), "every effect exactly once")
	require.Equal(t, n, b.count(t, "SELECT count(DISTINCT event_id) FROM effects"))
	attempts := b.count(t, "SELECT count(*) FROM attempts")
	t.Logf("%d attempts for %d deliveries: %d redeliveries after the SIGKILL", attempts, n, attempts-n)
	require.GreaterOrEqual(t, attempts, n)
}
