package outbox

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestHeartbeatKeepsALongHandlersLease(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.enqueue(t, event(t, "t.b", 1))
	started := make(chan struct{})
	var calls atomic.Int32
	slow := HandlerFunc(func(ctx context.Context, d Delivery) error {
		calls.Add(1)
		close(started)
		select {
		case <-time.After(2500 * time.Millisecond): // 2.5 leases
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	d := b.drainer(t, map[string]Handler{"s1": slow}, Config{StopWhenIdle: true, LeaseDuration: time.Second})
	done := make(chan Report)
	go func() {
		rep, err := d.Run(ctx)
		require.NoError(t, err)
		done <- rep
	}()
	<-started
	rival := b.drainer(t, map[string]Handler{"s1": newRecorder()}, Config{StopWhenIdle: true, LeaseDuration: time.Second})
	for range 5 {
		rep, err := rival.Run(ctx)
		require.NoError(t, err)
		require.Zero(t, rep.Claimed, "the lease is extended while the handler runs")
		time.Sleep(400 * time.Millisecond)
	}
	rep := <-done
	require.Equal(t, 1, rep.Delivered)
	require.Zero(t, rep.LostLeases)
	require.EqualValues(t, 1, calls.Load())
}

func TestHandlerThatLosesItsLeaseIsCancelledAndWritesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
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
	done := make(chan Report)
	go func() {
		rep, err := d.Run(ctx)
		require.NoError(t, err)
		done <- rep
	}()
	<-started
	// Another worker takes the delivery over (as after a lease expiry).
	_, err := b.pool.Exec(ctx, "UPDATE outbox_deliveries SET lease_token = gen_random_uuid()")
	require.NoError(t, err)
	<-cancelled
	rep := <-done
	require.Equal(t, 1, rep.LostLeases)
	require.Zero(t, rep.Retried+rep.Delivered+rep.Dead)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'running' AND last_error IS NULL"))
}

func TestShutdownFinishesWithinGraceThenReleases(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.enqueue(t, event(t, "t.b", 1), event(t, "t.b", 2))
	ctx, cancel := context.WithCancel(context.Background())
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
	done := make(chan Report)
	go func() {
		rep, err := d.Run(ctx)
		require.NoError(t, err)
		done <- rep
	}()
	<-allStarted
	cancel() // SIGTERM
	rep := <-done
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rep.Released)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND attempts = 0 AND lease_token IS NULL"))
}

func TestSlowHandlerDoesNotHoldBackOtherAcknowledgements(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
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
	done := make(chan Report)
	go func() {
		rep, err := d.Run(ctx)
		require.NoError(t, err)
		done <- rep
	}()
	require.Eventually(t, func() bool {
		return b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 's1'") == 0
	}, 5*time.Second, 5*time.Millisecond, "s1 is acknowledged while s2 still runs")
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 's2' AND state = 'running'"))
	close(unblock)
	rep := <-done
	require.Equal(t, 2, rep.Delivered)
}
