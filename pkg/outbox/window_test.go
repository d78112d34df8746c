package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestClaimWindowSize(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	cfg := Config{Concurrency: 4, BatchSize: 1000}
	for _, tc := range []struct {
		name     string
		finished int
		now      time.Duration // after start
		deadline time.Duration // after start
		want     int
	}{
		{"nothing finished yet: twice the concurrency", 0, time.Second, 10 * time.Second, 8},
		{"the measured rate until the deadline", 20, time.Second, 6 * time.Second, 100},
		{"never below twice the concurrency", 2, time.Second, 2 * time.Second, 8},
		{"never above the batch size", 5000, time.Second, 45 * time.Second, 1000},
		{"at the deadline, the floor", 20, 6 * time.Second, 6 * time.Second, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newClaimWindow(cfg, start)
			for range tc.finished {
				w.done()
			}
			require.Equal(t, tc.want, w.size(start.Add(tc.now), start.Add(tc.deadline)))
		})
	}
}

func TestClaimWindowRestartForgetsTheIdleSpell(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	w := newClaimWindow(Config{Concurrency: 4, BatchSize: 1000}, start)
	for range 50 {
		w.done()
	}
	w.restart(start.Add(30 * time.Second))
	require.Equal(t, 8, w.size(start.Add(31*time.Second), start.Add(45*time.Second)))
}

// With slow handlers, a run claims what it can finish before its deadline,
// not a whole batch that it would release unstarted at the end.
func TestRunWithSlowHandlersReleasesLittleUnstarted(t *testing.T) {
	_, b := setup(t)
	events := numbered(t, "t.b", 300)
	b.enqueue(t, events...)
	slow := HandlerFunc(func(ctx context.Context, _ Delivery) error {
		select {
		case <-time.After(50 * time.Millisecond):
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	d := b.drainer(t, map[string]Handler{"s1": slow}, Config{Concurrency: 2, BatchSize: 1000, MaxDuration: 2 * time.Second})
	rep, err := d.Run(context.Background())
	require.NoError(t, err)
	require.Positive(t, rep.Delivered)
	require.Less(t, rep.Released, 30, "a run holds what it can finish (claimed %d, delivered %d)", rep.Claimed, rep.Delivered)
	require.Equal(t, 300-rep.Delivered, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending'"))
}
