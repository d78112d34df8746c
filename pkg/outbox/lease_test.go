package outbox

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHeartbeatKeepsALongHandlersLease(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1))
	started, finish := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	slow := HandlerFunc(func(ctx context.Context, d Delivery) error {
		calls.Add(1)
		close(started)
		select {
		case <-finish:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	const lease = time.Second
	d := b.drainer(t, map[string]Handler{"s1": slow}, Config{StopWhenIdle: true, LeaseDuration: lease})
	d.signals.heartbeat.Init(t)
	claimed := time.Now()
	run := runAsync(d, ctx)
	<-started
	rival := b.drainer(t, map[string]Handler{"s1": newRecorder()}, Config{StopWhenIdle: true, LeaseDuration: lease})
	// After each heartbeat a rival finds nothing to claim, for 2.5 leases:
	// without the heartbeat the lease would have expired after the first.
	for time.Since(claimed) < 5*lease/2 {
		require.Equal(t, 1, d.signals.heartbeat.Wait(), "the heartbeat extends the running handler's lease")
		rep, err := rival.Run(ctx)
		require.NoError(t, err)
		require.Zero(t, rep.Claimed, "the lease is extended while the handler runs")
	}
	close(finish)
	rep := run.report(t)
	require.Equal(t, 1, rep.Delivered)
	require.Zero(t, rep.LostLeases)
	require.EqualValues(t, 1, calls.Load())
}

func TestHandlerThatLosesItsLeaseIsCancelledAndWritesNothing(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1))
	started := make(chan struct{})
	cancelled := make(chan struct{})
	stuck := HandlerFunc(func(ctx context.Context, d Delivery) error {
		close(started)
		<-ctx.Done()
		close(cancelled)
		return ctx.Err()
	})
	d := b.drainer(t, map[string]Handler{"s1": stuck}, Config{StopWhenIdle: true, LeaseDuration: time.Second})
	run := runAsync(d, ctx)
	<-started
	// Another worker takes the delivery over (as after a lease expiry).
	_, err := b.pool.Exec(ctx, "UPDATE outbox_deliveries SET lease_token = gen_random_uuid()")
	require.NoError(t, err)
	<-cancelled
	rep := run.report(t)
	require.Equal(t, 1, rep.LostLeases)
	require.Zero(t, rep.Retried+rep.Delivered+rep.Dead)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'running' AND last_error IS NULL"))
}

func TestShutdownFinishesWithinGraceThenReleases(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1), event(t, "t.b", 2))
	ctx, cancel := context.WithCancel(ctx)
	var started atomic.Int32
	allStarted := make(chan struct{})
	h := HandlerFunc(func(hctx context.Context, d Delivery) error {
		if started.Add(1) == 2 {
			close(allStarted)
		}
		if d.Event.OrderingKey == "key-1" {
			return nil // quick: finishes after the signal, within the grace
		}
		<-hctx.Done() // ignores the signal until the grace runs out
		return hctx.Err()
	})
	d := b.drainer(t, map[string]Handler{"s1": h}, Config{ShutdownGrace: 300 * time.Millisecond, Concurrency: 2})
	run := runAsync(d, ctx)
	<-allStarted
	cancel() // SIGTERM
	rep := run.report(t)
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rep.Released)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND attempts = 0 AND lease_token IS NULL"))
}

func TestSlowHandlerDoesNotHoldBackOtherAcknowledgements(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.a", 1)) // to s1 (fast) and s2 (stuck)
	unblock := make(chan struct{})
	stuck := HandlerFunc(func(ctx context.Context, d Delivery) error {
		select {
		case <-unblock:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	d := b.drainer(t, map[string]Handler{"s1": newRecorder(), "s2": stuck}, Config{StopWhenIdle: true})
	d.signals.flushed.Init(t)
	run := runAsync(d, ctx)
	require.Equal(t, Report{Delivered: 1}, d.signals.flushed.Wait(), "s1 is acknowledged while s2 still runs")
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 's1'"))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 's2' AND state = 'running'"))
	close(unblock)
	rep := run.report(t)
	require.Equal(t, 2, rep.Delivered)
}

func TestOnlyCrashLoopsAreDeadLetteredWithoutAnAttempt(t *testing.T) {
	ctx, b := setup(t)
	failedNormally, crashLooping := event(t, "t.b", 1), event(t, "t.b", 2)
	b.enqueue(t, failedNormally, crashLooping)
	// One failed ten times with a real error (under a drain allowing 12);
	// the other was claimed ten times and its worker never came back.
	_, err := b.pool.Exec(ctx, `UPDATE outbox_deliveries d SET attempts = 10,
		state = CASE WHEN e.event_id = $1 THEN 'pending' ELSE 'running' END,
		last_error = CASE WHEN e.event_id = $1 THEN 'smtp: 451 try later' END,
		lease_token = CASE WHEN e.event_id = $1 THEN NULL ELSE gen_random_uuid() END,
		available_at = now() - interval '1 second'
		FROM outbox_events e WHERE e.id = d.event_id`, failedNormally.ID)
	require.NoError(t, err)

	rec := newRecorder()
	d := b.drainer(t, map[string]Handler{"s1": rec}, Config{StopWhenIdle: true, MaxAttempts: 3})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rec.count("s1", failedNormally.ID), "a drain with a lower maximum still tries it")
	require.Zero(t, rec.count("s1", crashLooping.ID))
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rep.Dead)
	var lastErr string
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT last_error FROM outbox_deliveries WHERE state = 'dead'").Scan(&lastErr))
	require.Contains(t, lastErr, "lease expired")
}

func TestShutdownIsBoundedEvenWhenHandlersIgnoreCancellation(t *testing.T) {
	ctx, b := setup(t)
	events := numbered(t, "t.b", 10)
	b.enqueue(t, events...)
	ctx, cancel := context.WithCancel(ctx)
	var started atomic.Int32
	running := make(chan struct{}, 10)
	// The handlers ignore their context, like a send without a deadline,
	// until the test has ended.
	forever := make(chan struct{})
	t.Cleanup(func() { close(forever) })
	stubborn := HandlerFunc(func(context.Context, Delivery) error {
		started.Add(1)
		running <- struct{}{}
		<-forever
		return nil
	})
	d := b.drainer(t, map[string]Handler{"s1": stubborn}, Config{Concurrency: 2, ShutdownGrace: 200 * time.Millisecond})
	run := runAsync(d, ctx)
	<-running
	<-running
	start := time.Now()
	cancel() // SIGTERM
	rep := run.report(t)
	require.Less(t, time.Since(start), 3*time.Second, "grace plus a second, not the handlers' whole run")
	require.EqualValues(t, 2, started.Load(), "nothing new starts after SIGTERM")
	require.Greater(t, rep.Claimed, 2, "it held deliveries it had not started")
	require.Equal(t, rep.Claimed-2, rep.Released, "the deliveries never started are handed back unattempted")
	require.Equal(t, 2, rep.Abandoned)
	require.Equal(t, 2, rep.Retried, "an abandoned handler's attempt counts, or it would hang every run")
	require.Equal(t, 8, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND attempts = 0"))
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND attempts = 1 AND last_error LIKE '%handler abandoned%'"))
}

// TestOverlappingLeaseWritesDoNotDeadlock runs the heartbeat's extension and
// the acknowledgement of one run at the same time over the same leases, given
// in opposite orders, as a run's heartbeat (map order) and its result writer
// (completion order) do. Each must lock in id order, or PostgreSQL reports a
// deadlock.
func TestOverlappingLeaseWritesDoNotDeadlock(t *testing.T) {
	ctx, b := setup(t)
	const n = 200
	events := numbered(t, "t.b", n)
	b.enqueue(t, events...)
	d := b.drainer(t, map[string]Handler{"s1": newRecorder()}, Config{})
	batch, token, err := d.claim(ctx, d.pool, n)
	require.NoError(t, err)
	require.Len(t, batch, n)
	forward := make([]lease, n)
	for i, dl := range batch {
		forward[i] = lease{dl.ID, token}
	}
	together := func(a, b func() error) {
		t.Helper()
		errs := make(chan error, 2)
		go func() { errs <- a() }()
		go func() { errs <- b() }()
		require.NoError(t, <-errs)
		require.NoError(t, <-errs)
	}
	extend := func(ls []lease) func() error {
		return func() error {
			_, err := d.extend(ctx, d.pool, ls)
			return err
		}
	}
	backward := make([]lease, n)
	for i, l := range forward {
		backward[n-1-i] = l
	}
	for range 20 {
		together(extend(forward), extend(backward))
	}
	half := make([]lease, 0, n/2)
	for i := n - 1; i >= 0; i -= 2 {
		half = append(half, forward[i])
	}
	together(extend(forward), func() error {
		_, err := d.ack(ctx, d.pool, half)
		return err
	})
	require.Equal(t, n/2, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'running'"))
}
