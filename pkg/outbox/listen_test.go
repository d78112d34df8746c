package outbox

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestListenerHintsAndSurvivesTermination(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.outbox = b.outbox.WithWakeup("test_wakeup")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	l := NewListener(b.pool.Config().ConnConfig, "test_wakeup", slog.New(slog.DiscardHandler))
	l.HealthInterval = 100 * time.Millisecond
	go l.Run(ctx)
	require.Eventually(t, l.Connected, 5*time.Second, 10*time.Millisecond)

	got := make(chan uuid.UUID, 10)
	const poll = 3 * time.Second
	d := b.drainer(t, map[string]Handler{"s1": HandlerFunc(func(_ context.Context, dl Delivery) error {
		got <- dl.Event.ID
		return nil
	})}, Config{PollInterval: poll, MaxDuration: time.Minute})
	d.WakeOn(l.Wake())
	go func() { _, _ = d.Run(ctx) }()
	// Let the run go idle, so that only a hint or the poll can wake it.
	time.Sleep(200 * time.Millisecond)

	deliver := func() time.Duration {
		t.Helper()
		e := event(t, "t.b", 1)
		start := time.Now()
		b.enqueue(t, e)
		select {
		case id := <-got:
			require.Equal(t, e.ID, id)
		case <-time.After(poll + 2*time.Second):
			t.Fatal("not delivered within one poll interval")
		}
		return time.Since(start)
	}
	require.Less(t, deliver(), poll, "the hint wakes the idle drain before its poll")

	var terminated bool
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, ListenerApplicationName).Scan(&terminated))
	require.True(t, terminated)
	require.Eventually(t, func() bool { return !l.Connected() }, 5*time.Second, 5*time.Millisecond)
	deliver() // within one poll interval, listener or not

	require.Eventually(t, func() bool { return l.Connected() && l.Connects() == 2 }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(200 * time.Millisecond)
	require.Less(t, deliver(), poll, "the listener is back")
}
