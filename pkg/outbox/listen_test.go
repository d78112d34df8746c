package outbox

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
)

func TestListenerHintsAndSurvivesTermination(t *testing.T) {
	ctx, b := setup(t)
	waker := NewWaker(b.pool, "test_wakeup", slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(ctx)
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
	require.True(t, l.connected.Load())

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
		waker.Wake()
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
	require.True(t, l.connected.Load())
	require.EqualValues(t, 2, l.connects.Load())
	require.Less(t, deliver(), poll, "the listener is back")
}

// TestWakeIsSentAfterCommitNotWithin: Enqueue sends no notification (a
// notifying transaction holds the cluster's notify lock through its commit,
// which serialised writers); a Waker sends one, in a transaction of its own
// whose asynchronous commit does not outlive it on the pooled connection.
func TestWakeIsSentAfterCommitNotWithin(t *testing.T) {
	ctx, b := setup(t)
	listener, err := pgx.ConnectConfig(ctx, b.pool.Config().ConnConfig)
	require.NoError(t, err)
	defer func() { require.NoError(t, listener.Close(ctx)) }()
	_, err = listener.Exec(ctx, "LISTEN test_wake_after")
	require.NoError(t, err)

	b.enqueue(t, event(t, "t.a", 1))
	// Notifications arrive in commit order: had the enqueue's transaction
	// notified, its hint would come before this marker.
	_, err = b.pool.Exec(ctx, "SELECT pg_notify('test_wake_after', 'marker')")
	require.NoError(t, err)
	n, err := listener.WaitForNotification(ctx)
	require.NoError(t, err)
	require.Equal(t, "marker", n.Payload, "the enqueue's transaction sent no hint")

	cfg := b.pool.Config()
	cfg.MaxConns = 1
	one, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	defer one.Close()
	w := NewWaker(one, "test_wake_after", slog.New(slog.DiscardHandler))
	w.signals.stopped.Init(t)
	w.Wake()
	n, err = listener.WaitForNotification(ctx)
	require.NoError(t, err)
	require.Empty(t, n.Payload, "the Waker's hint")
	w.signals.stopped.Wait()
	var sync string
	require.NoError(t, one.QueryRow(ctx, "SHOW synchronous_commit").Scan(&sync))
	require.Equal(t, "on", sync, "the hint's asynchronous commit is local to its transaction")
}

// TestWakerCoalescesAndThrottles: commits that ask while a hint is on its
// way share the next one, sent no sooner than the gap after the previous;
// then the Waker's goroutine ends.
func TestWakerCoalescesAndThrottles(t *testing.T) {
	t.Parallel()
	w := NewWaker(nil, "unused", slog.New(slog.DiscardHandler))
	w.gap = 50 * time.Millisecond
	w.signals.stopped.Init(t)
	started := make(chan time.Time, 10)
	release := make(chan struct{})
	w.send = func(context.Context) error {
		started <- time.Now()
		<-release
		return nil
	}
	before := time.Now()
	w.Wake()
	<-started // the first hint is on its way
	for range 50 {
		w.Wake() // commits meanwhile
	}
	release <- struct{}{}
	second := <-started // one more hint covers them all
	require.GreaterOrEqual(t, second.Sub(before), w.gap, "no sooner than the gap after the first")
	release <- struct{}{}
	w.signals.stopped.Wait()
	require.Empty(t, started, "two hints for 51 commits")

	w.Wake() // a later commit starts a goroutine again
	<-started
	release <- struct{}{}
	w.signals.stopped.Wait()
}
