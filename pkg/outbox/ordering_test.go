package outbox

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// orderedSetup routes "o" to the ordered subscriber "ord" and the unordered
// "free".
func orderedSetup(t *testing.T) bundle {
	t.Helper()
	ob, err := New(
		Subscription{Topic: "o", Subscriber: "ord", Ordered: true},
		Subscription{Topic: "o", Subscriber: "free"},
	)
	require.NoError(t, err)
	return bundle{pool: pgtest.New(t), outbox: ob}
}

func keyed(t *testing.T, key string, n int) Event {
	t.Helper()
	e, err := NewEvent("o", key, map[string]int{"n": n})
	require.NoError(t, err)
	return e
}

func TestOrderedKeyWaitsForItsFailingHeadWhileOtherKeysFlow(t *testing.T) {
	t.Parallel()
	b := orderedSetup(t)
	ctx := context.Background()
	first, second, other := keyed(t, "learner-1", 1), keyed(t, "learner-1", 2), keyed(t, "learner-2", 3)
	b.enqueue(t, first)
	b.enqueue(t, second)
	b.enqueue(t, other)

	// The head fails at least twice, and until the test releases it, so
	// that what the first run sees does not depend on how fast it runs (a
	// slow run may retry the head within itself).
	var mu sync.Mutex
	var seen []uuid.UUID
	failures, released := 0, false
	ord := HandlerFunc(func(_ context.Context, d Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		if d.Event.ID == first.ID && (!released || failures < 2) {
			failures++
			return errors.New("transient")
		}
		seen = append(seen, d.Event.ID)
		return nil
	})
	free := newRecorder()
	d := b.drainer(t, map[string]Handler{"ord": ord, "free": free},
		Config{StopWhenIdle: true, BackoffBase: 20 * time.Millisecond, BackoffMax: 50 * time.Millisecond, MaxAttempts: 100})

	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, rep.Retried, 1)
	mu.Lock()
	require.Equal(t, []uuid.UUID{other.ID}, seen, "the other key is delivered while learner-1 is blocked")
	released = true
	mu.Unlock()
	require.Equal(t, 1, free.count("free", second.ID), "an unordered subscriber is never held back")

	// A loop-mode run retries the head until it goes through, then the rest.
	loop := b.drainer(t, map[string]Handler{"ord": ord, "free": free},
		Config{PollInterval: 10 * time.Millisecond, BackoffBase: 20 * time.Millisecond, BackoffMax: 50 * time.Millisecond, MaxAttempts: 100})
	loop.signals.flushed.Init(t)
	runCtx, stop := context.WithCancel(ctx)
	run := runAsync(loop, runCtx)
	untilFlushed(t, loop, Report{Delivered: 2})
	stop()
	run.report(t)
	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []uuid.UUID{other.ID, first.ID, second.ID}, seen)
	require.GreaterOrEqual(t, failures, 2)
}

func TestOrderedKeyStaysBlockedBehindDeadHeadUntilReplayOrSkip(t *testing.T) {
	t.Parallel()
	b := orderedSetup(t)
	ctx := context.Background()
	head, next := keyed(t, "k", 1), keyed(t, "k", 2)
	b.enqueue(t, head, next)

	poisoned := true
	var got []uuid.UUID
	ord := HandlerFunc(func(_ context.Context, d Delivery) error {
		if d.Event.ID == head.ID && poisoned {
			return Permanent(errors.New("bad payload"))
		}
		got = append(got, d.Event.ID)
		return nil
	})
	d := b.drainer(t, map[string]Handler{"ord": ord, "free": newRecorder()}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Dead)
	require.Empty(t, got)
	rep, err = d.Run(ctx)
	require.NoError(t, err)
	require.Zero(t, rep.Claimed, "the key stays blocked behind its dead head")
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 'ord' AND state = 'pending'"))

	poisoned = false
	var deadID int64
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT id FROM outbox_deliveries WHERE state = 'dead'").Scan(&deadID))
	n, err := Replay(ctx, b.pool, DeadFilter{IDs: []int64{deadID}}, "ops@example.com", "fixed the payload parser")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, err = d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{head.ID, next.ID}, got, "replay unblocks the key, in order")
}

func TestNotBeforeHoldsDeliveryBack(t *testing.T) {
	ctx, b := setup(t)
	later, now := event(t, "t.b", 1), event(t, "t.b", 2)
	later.NotBefore = time.Now().Add(time.Hour)
	b.enqueue(t, later, now)
	rec := newRecorder()
	d := b.drainer(t, map[string]Handler{"s1": rec}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Delivered)
	require.Zero(t, rec.count("s1", later.ID))
	require.Equal(t, []Backlog{{Subscriber: "s1", Pending: 1}}, rep.Backlog, "scheduled work is neither due nor ageing")

	_, err = b.pool.Exec(ctx, "UPDATE outbox_deliveries SET available_at = now() WHERE state = 'pending'")
	require.NoError(t, err)
	rep, err = d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rec.count("s1", later.ID))
}

func TestApplicationClockSkewChangesNothing(t *testing.T) {
	ctx, b := setup(t)
	e := event(t, "t.b", 1)
	e.NotBefore = time.Now().Add(-10 * time.Minute) // written by a client whose clock is 10 minutes slow
	b.enqueue(t, e)
	var notBefore, availableAt time.Time
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT e.not_before, d.available_at FROM outbox_events e
		JOIN outbox_deliveries d ON d.event_id = e.id`).Scan(&notBefore, &availableAt))
	require.True(t, availableAt.After(notBefore), "availability never precedes the database's now()")

	d := b.drainer(t, map[string]Handler{"s1": newRecorder()}, Config{LeaseDuration: time.Minute})
	batch, _, err := d.claim(ctx, d.pool, 10)
	require.NoError(t, err)
	require.Len(t, batch, 1)
	var lease float64
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT extract(epoch FROM available_at - now()) FROM outbox_deliveries").Scan(&lease))
	require.InDelta(t, 60, lease, 5, "the lease expiry is the database's now() plus the lease")
}

// A delayed event ages from its not-before time, not from its creation: a
// reminder written yesterday and due a minute ago is a minute late.
func TestDelayedEventAgesFromItsNotBeforeTime(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.a", 1))
	_, err := b.pool.Exec(ctx, `UPDATE outbox_events SET created_at = now() - interval '1 day', not_before = now() - interval '1 minute'`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE outbox_deliveries SET created_at = now() - interval '1 day'`)
	require.NoError(t, err)
	d := b.drainer(t, map[string]Handler{"s1": newRecorder()}, Config{})
	backlog, err := d.backlog(ctx, d.pool)
	require.NoError(t, err)
	require.Len(t, backlog, 2)
	for _, s := range backlog {
		require.EqualValues(t, 1, s.Due, s.Subscriber)
		require.InDelta(t, 60, s.OldestAge.Seconds(), 5, s.Subscriber)
	}
	h, err := ReadHealth(ctx, b.pool)
	require.NoError(t, err)
	for _, s := range h.Backlog {
		require.InDelta(t, 60, s.OldestAgeSeconds, 5, s.Subscriber)
	}
}
