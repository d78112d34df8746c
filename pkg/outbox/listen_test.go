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
	l.signals.connected.Init(t)
	l.signals.disconnected.Init(t)
	listening := make(chan struct{})
	go func() {
		defer close(listening)
		l.Run(ctx)
	}()
	require.EqualValues(t, 1, l.signals.connected.Wait())
	require.True(t, l.Connected())

	got := make(chan uuid.UUID, 10)
	const poll = 3 * time.Second
	d := b.drainer(t, map[string]Handler{"s1": HandlerFunc(func(_ context.Context, dl Delivery) error {
		got <- dl.Event.ID
		return nil
	})}, Config{PollInterval: poll, MaxDuration: time.Minute})
	d.WakeOn(l.Wake())
	d.signals.idle.Init(t)
	run := runAsync(d, ctx)
	defer func() {
		cancel()
		run.report(t)
		<-listening
	}()
	// Only a hint or the poll can wake an idle run.
	d.signals.idle.Wait()

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
		took := time.Since(start)
		d.signals.idle.Wait() // the run is idle again
		return took
	}
	require.Less(t, deliver(), poll, "the hint wakes the idle drain before its poll")

	var terminated bool
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = $1 AND datname = current_database()`, ListenerApplicationName).Scan(&terminated))
	require.True(t, terminated)
	l.signals.disconnected.Wait()
	deliver() // within one poll interval, listener or not

	require.EqualValues(t, 2, l.signals.connected.Wait())
	require.True(t, l.Connected())
	require.EqualValues(t, 2, l.Connects())
	require.Less(t, deliver(), poll, "the listener is back")
}
