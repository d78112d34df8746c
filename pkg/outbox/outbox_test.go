package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

type bundle struct {
	pool   *pgxpool.Pool
	outbox *Outbox
}

// setup marks the test parallel and gives it a background context, its own
// database and an outbox routing "t.a" to subscribers "s1" and "s2", and
// "t.b" to "s1".
func setup(t *testing.T) (context.Context, bundle) {
	t.Helper()
	t.Parallel()
	ob, err := New(
		Subscription{Topic: "t.a", Subscriber: "s1"},
		Subscription{Topic: "t.a", Subscriber: "s2"},
		Subscription{Topic: "t.b", Subscriber: "s1"},
	)
	require.NoError(t, err)
	return context.Background(), bundle{pool: pgtest.New(t), outbox: ob}
}

func event(t *testing.T, topic string, n int) Event {
	t.Helper()
	e, err := NewEvent(topic, fmt.Sprintf("key-%d", n%7), map[string]int{"n": n})
	require.NoError(t, err)
	return e
}

// numbered returns n events on topic, event(t, topic, i) for i from 0.
func numbered(t *testing.T, topic string, n int) []Event {
	t.Helper()
	events := make([]Event, n)
	for i := range events {
		events[i] = event(t, topic, i)
	}
	return events
}

func (b bundle) enqueue(t *testing.T, events ...Event) {
	t.Helper()
	require.NoError(t, pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		return b.outbox.Enqueue(context.Background(), tx, events...)
	}))
}

func (b bundle) drainer(t *testing.T, handlers map[string]Handler, cfg Config) *Drainer {
	t.Helper()
	d, err := NewDrainer(b.pool, handlers, cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return d
}

func (b bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// running is a drain run started by runAsync.
type running struct {
	done chan runResult
}

type runResult struct {
	rep Report
	err error
}

// runAsync starts d.Run(ctx) in a goroutine of its own.
func runAsync(d *Drainer, ctx context.Context) running {
	r := running{done: make(chan runResult, 1)}
	go func() {
		rep, err := d.Run(ctx)
		r.done <- runResult{rep, err}
	}()
	return r
}

// report waits for the run to end and returns its report; the run must not
// have failed.
func (r running) report(t *testing.T) Report {
	t.Helper()
	res := <-r.done
	require.NoError(t, res.err)
	return res.rep
}

// untilFlushed reads d's flushed signal until the results written add up to
// at least want (only its non-zero counts are compared) and returns the sum.
func untilFlushed(t *testing.T, d *Drainer, want Report) Report {
	t.Helper()
	var sum Report
	for sum.Delivered < want.Delivered || sum.Retried < want.Retried || sum.Dead < want.Dead ||
		sum.Released < want.Released {
		sum = sum.plus(d.signals.flushed.Wait())
	}
	return sum
}

// recorder is a handler that counts calls per (subscriber, event).
type recorder struct {
	mu    sync.Mutex
	calls map[string]int
	order []uuid.UUID
}

func newRecorder() *recorder { return &recorder{calls: map[string]int{}} }

func (r *recorder) Handle(_ context.Context, d Delivery) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls[d.Subscriber+"/"+d.Event.ID.String()]++
	r.order = append(r.order, d.Event.ID)
	return nil
}

func (r *recorder) count(sub string, id uuid.UUID) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[sub+"/"+id.String()]
}

func TestEnqueueFansOutPerSubscriber(t *testing.T) {
	_, b := setup(t)
	a, bb := event(t, "t.a", 1), event(t, "t.b", 2)
	a.Headers = map[string]string{"request_id": "r-1"}
	b.enqueue(t, a, bb)

	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM outbox_events"))
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
		WHERE e.event_id = $1 AND d.state = 'pending'`, a.ID))
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
		WHERE e.event_id = $1 AND d.subscriber = 's1'`, bb.ID))

	rec := newRecorder()
	var got Delivery
	d := b.drainer(t, map[string]Handler{
		"s1": rec,
		"s2": HandlerFunc(func(ctx context.Context, dl Delivery) error { got = dl; return rec.Handle(ctx, dl) }),
	}, Config{StopWhenIdle: true})
	rep, err := d.Run(context.Background())
	require.NoError(t, err)
	require.Equal(t, 3, rep.Delivered)
	require.Equal(t, a.ID, got.Event.ID)
	require.Equal(t, "r-1", got.Event.Headers["request_id"])
	require.Equal(t, "key-1", got.Event.OrderingKey)
	require.JSONEq(t, `{"n":1}`, string(got.Event.Payload))
	require.Equal(t, 1, got.Attempt)
}

func TestEnqueueRejectsUnknownTopicAndBadPayload(t *testing.T) {
	_, b := setup(t)
	err := pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		return b.outbox.Enqueue(context.Background(), tx, event(t, "t.a", 1), event(t, "t.nobody", 2))
	})
	require.ErrorIs(t, err, ErrUnknownTopic)
	err = pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		return b.outbox.Enqueue(context.Background(), tx, Event{Topic: "t.a", Payload: json.RawMessage(`{`)})
	})
	require.ErrorContains(t, err, "not valid JSON")
	err = pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		big := json.RawMessage(`"` + strings.Repeat("x", MaxPayloadBytes) + `"`)
		return b.outbox.Enqueue(context.Background(), tx, Event{Topic: "t.a", Payload: big})
	})
	require.ErrorIs(t, err, ErrPayloadTooLarge)
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_events"))
}

func TestRolledBackTransactionLeavesNoEvents(t *testing.T) {
	ctx, b := setup(t)
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, `INSERT INTO users (email, display_name, role) VALUES ('a@example.com', 'A', 'learner')`)
	require.NoError(t, err)
	require.NoError(t, b.outbox.Enqueue(ctx, tx, event(t, "t.a", 1)))
	require.NoError(t, tx.Rollback(ctx))

	// A connection that dies before COMMIT is the same as a rollback.
	conn, err := pgx.Connect(ctx, pgtest.URL(b.pool))
	require.NoError(t, err)
	_, err = conn.Exec(ctx, "BEGIN")
	require.NoError(t, err)
	require.NoError(t, b.outbox.Enqueue(ctx, conn, event(t, "t.a", 2)))
	require.NoError(t, conn.Close(ctx))

	require.Zero(t, b.count(t, "SELECT count(*) FROM users"))
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_events"))
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_deliveries"))
}

func TestLateCommitIsNotSkipped(t *testing.T) {
	ctx, b := setup(t)
	late, early := event(t, "t.b", 1), event(t, "t.b", 2)

	txA, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, b.outbox.Enqueue(ctx, txA, late)) // lower ids, still open
	b.enqueue(t, early)

	rec := newRecorder()
	d := b.drainer(t, map[string]Handler{"s1": rec}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rec.count("s1", early.ID))
	require.Zero(t, rec.count("s1", late.ID))

	require.NoError(t, txA.Commit(ctx))
	rep, err = d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rec.count("s1", late.ID))
}

func TestConcurrentDrainsNeverShareADelivery(t *testing.T) {
	_, b := setup(t)
	events := numbered(t, "t.a", 500) // two subscribers: 1,000 deliveries
	b.enqueue(t, events...)

	var mu sync.Mutex
	holding := map[int64]bool{}
	handled := map[int64]int{}
	var overlaps atomic.Int64
	h := HandlerFunc(func(ctx context.Context, d Delivery) error {
		mu.Lock()
		if holding[d.ID] {
			overlaps.Add(1)
		}
		holding[d.ID] = true
		handled[d.ID]++
		mu.Unlock()
		runtime.Gosched() // let the other drain's workers run while this one holds the delivery
		mu.Lock()
		delete(holding, d.ID)
		mu.Unlock()
		return nil
	})
	cfg := Config{StopWhenIdle: true, BatchSize: 50, Concurrency: 4}
	reports := make([]Report, 2)
	var g errgroup.Group
	for i := range reports {
		d := b.drainer(t, map[string]Handler{"s1": h, "s2": h}, cfg)
		g.Go(func() error {
			var err error
			reports[i], err = d.Run(context.Background())
			return err
		})
	}
	require.NoError(t, g.Wait())

	require.Zero(t, overlaps.Load())
	require.Len(t, handled, 1000)
	for id, n := range handled {
		require.Equal(t, 1, n, "delivery %d handled %d times", id, n)
	}
	require.Equal(t, 1000, reports[0].Delivered+reports[1].Delivered)
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_deliveries"), "acknowledged deliveries are removed")
	require.Equal(t, 1000, b.count(t, "SELECT sum(delivered) FROM outbox_delivery_stats"))
}

// effects is a table a handler writes through HandleOnce, so that the test
// can count effects in the database.
func (b bundle) effects(t *testing.T) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), "CREATE TABLE effects (event_id uuid, subscriber text)")
	require.NoError(t, err)
}

func (b bundle) effectHandler() Handler {
	return HandlerFunc(func(ctx context.Context, d Delivery) error {
		return HandleOnce(ctx, b.pool, d, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO effects VALUES ($1, $2)", d.Event.ID, d.Subscriber)
			return err
		})
	})
}

func TestCrashAfterEffectBeforeAckRedeliversOnce(t *testing.T) {
	ctx, b := setup(t)
	b.effects(t)
	e := event(t, "t.b", 1)
	b.enqueue(t, e)

	h := b.effectHandler()
	crashed := b.drainer(t, map[string]Handler{"s1": h}, Config{LeaseDuration: time.Second})
	batch, _, err := crashed.claim(ctx, crashed.pool, 10)
	require.NoError(t, err)
	require.Len(t, batch, 1)
	require.NoError(t, h.Handle(ctx, batch[0])) // the effect happens, the ack never does

	d := b.drainer(t, map[string]Handler{"s1": h}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Zero(t, rep.Claimed, "the lease is still held")

	// A loop-mode run takes the delivery over once its lease expires.
	d = b.drainer(t, map[string]Handler{"s1": h}, Config{PollInterval: 20 * time.Millisecond, MaxDuration: time.Minute})
	d.signals.flushed.Init(t)
	runCtx, stop := context.WithCancel(ctx)
	run := runAsync(d, runCtx)
	require.Equal(t, Report{Delivered: 1, Skipped: 1}, d.signals.flushed.Wait())
	stop()
	rep = run.report(t)
	require.Equal(t, 1, rep.Delivered)
	require.Equal(t, 1, rep.Skipped, "the redelivery found the effect already done")
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM effects WHERE event_id = $1", e.ID))
}

func TestExpiredLeaseCannotAcknowledgeOrFail(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1), event(t, "t.b", 2))
	d := b.drainer(t, map[string]Handler{"s1": newRecorder()}, Config{})

	first, oldToken, err := d.claim(ctx, d.pool, 10)
	require.NoError(t, err)
	require.Len(t, first, 2)
	_, err = b.pool.Exec(ctx, "UPDATE outbox_deliveries SET available_at = now() - interval '1 second'")
	require.NoError(t, err)
	second, newToken, err := d.claim(ctx, d.pool, 10)
	require.NoError(t, err)
	require.Len(t, second, 2)

	acked, err := d.ack(ctx, d.pool, []lease{{first[0].ID, oldToken}})
	require.NoError(t, err)
	require.Zero(t, acked)
	retried, dead, err := d.fail(ctx, d.pool, []failure{{lease: lease{first[1].ID, oldToken}, err: "stale", dead: true}})
	require.NoError(t, err)
	require.Zero(t, retried+dead)
	released, err := d.release(ctx, d.pool, []lease{{first[0].ID, oldToken}})
	require.NoError(t, err)
	require.Zero(t, released)
	kept, err := d.extend(ctx, d.pool, []lease{{first[0].ID, oldToken}, {second[1].ID, newToken}})
	require.NoError(t, err)
	require.Equal(t, []int64{second[1].ID}, kept)
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'running' AND lease_token = $1", newToken))

	acked, err = d.ack(ctx, d.pool, []lease{{second[0].ID, newToken}, {second[1].ID, newToken}})
	require.NoError(t, err)
	require.Equal(t, 2, acked)
}

func TestFailingSubscriberBacksOffThenDiesWithoutHoldingOthers(t *testing.T) {
	ctx, b := setup(t)
	poison, other := event(t, "t.a", 1), event(t, "t.b", 2)
	b.enqueue(t, poison, other)

	var mu sync.Mutex
	var attemptsAt []time.Time
	rec := newRecorder()
	failing := HandlerFunc(func(_ context.Context, d Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		attemptsAt = append(attemptsAt, time.Now())
		return errors.New("smtp: 451 try again later")
	})
	cfg := Config{MaxAttempts: 5, BackoffBase: 40 * time.Millisecond, BackoffMax: time.Second,
		PollInterval: 5 * time.Millisecond, MaxDuration: 10 * time.Second, StopWhenIdle: false}
	d := b.drainer(t, map[string]Handler{"s1": rec, "s2": failing}, cfg)
	d.signals.flushed.Init(t)

	runCtx, stop := context.WithCancel(ctx)
	run := runAsync(d, runCtx)
	untilFlushed(t, d, Report{Delivered: 2, Dead: 1})
	stop() // ends the loop-mode run: nothing is left in flight
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"))
	// Other subscribers of the same event and other events went through at once.
	require.Equal(t, 1, rec.count("s1", poison.ID))
	require.Equal(t, 1, rec.count("s1", other.ID))

	mu.Lock()
	require.Len(t, attemptsAt, 5)
	for i := 1; i < len(attemptsAt); i++ {
		gap := attemptsAt[i].Sub(attemptsAt[i-1])
		least := cfg.BackoffBase << (i - 1) / 2
		require.GreaterOrEqual(t, gap, least, "gap before attempt %d", i+1)
	}
	mu.Unlock()

	var lastErr string
	var attempts int
	require.NoError(t, b.pool.QueryRow(ctx,
		"SELECT last_error, attempts FROM outbox_deliveries WHERE state = 'dead' AND subscriber = 's2'").Scan(&lastErr, &attempts))
	require.Equal(t, "smtp: 451 try again later", lastErr)
	require.Equal(t, 5, attempts)
	rep := run.report(t)
	require.Equal(t, 4, rep.Retried)
	require.Equal(t, 1, rep.Dead)
	require.Equal(t, 2, rep.Delivered)
}

func TestPermanentErrorAndPanicAreFailedAttempts(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.a", 1))
	d := b.drainer(t, map[string]Handler{
		"s1": HandlerFunc(func(context.Context, Delivery) error { return Permanent(errors.New("no such learner")) }),
		"s2": HandlerFunc(func(context.Context, Delivery) error { panic("boom") }),
	}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Dead)
	require.Equal(t, 1, rep.Retried)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 's1' AND state = 'dead' AND attempts = 1"))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 's2' AND state = 'pending' AND last_error LIKE 'handler panicked: boom%'"))
}

func TestHandleOnceRunsConcurrentDuplicatesOnce(t *testing.T) {
	_, b := setup(t)
	b.effects(t)
	e := event(t, "t.a", 1)
	h := b.effectHandler()
	var g errgroup.Group
	for range 8 {
		g.Go(func() error { return h.Handle(context.Background(), Delivery{Subscriber: "s1", Event: e}) })
	}
	require.NoError(t, g.Wait())
	require.NoError(t, h.Handle(context.Background(), Delivery{Subscriber: "s2", Event: e}))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM effects WHERE subscriber = 's1'"))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM effects WHERE subscriber = 's2'"), "dedup is per subscriber")
}

func TestPruneDeletesOnlyDeliveredEventsPastRetention(t *testing.T) {
	ctx, b := setup(t)
	oldDelivered, oldPending, oldDead, newDelivered := event(t, "t.b", 1), event(t, "t.b", 2), event(t, "t.b", 3), event(t, "t.b", 4)
	b.enqueue(t, oldDelivered, oldPending, oldDead, newDelivered)
	for q, arg := range map[string]any{
		"UPDATE outbox_events SET created_at = now() - interval '2 hours' WHERE event_id = ANY($1)": []uuid.UUID{oldDelivered.ID, oldPending.ID, oldDead.ID},
		`DELETE FROM outbox_deliveries d USING outbox_events e
			WHERE e.id = d.event_id AND e.event_id = ANY($1)`: []uuid.UUID{oldDelivered.ID, newDelivered.ID},
		`UPDATE outbox_deliveries d SET state = 'dead' FROM outbox_events e
			WHERE e.id = d.event_id AND e.event_id = $1`: oldDead.ID,
	} {
		_, err := b.pool.Exec(ctx, q, arg)
		require.NoError(t, err)
	}
	_, err := b.pool.Exec(ctx, `INSERT INTO outbox_processed (subscriber, event_id, processed_at)
		VALUES ('s1', gen_random_uuid(), now() - interval '3 hours'), ('s1', gen_random_uuid(), now())`)
	require.NoError(t, err)

	rep, err := Prune(ctx, b.pool, PruneConfig{Retention: time.Hour, DedupRetention: 150 * time.Minute, BatchSize: 1})
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Events)
	require.EqualValues(t, 1, rep.DedupRecords)
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_events WHERE event_id = $1", oldDelivered.ID))
	require.Equal(t, 3, b.count(t, "SELECT count(*) FROM outbox_events"))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_processed"))

	_, err = Prune(ctx, b.pool, PruneConfig{Retention: time.Hour, DedupRetention: time.Hour})
	require.ErrorContains(t, err, "must exceed")
}

func TestBackoffGrowsWithinBounds(t *testing.T) {
	t.Parallel()
	cfg := Config{BackoffBase: time.Second, BackoffMax: time.Minute}
	for attempt := 1; attempt <= 80; attempt++ {
		full := min(time.Minute, time.Second<<min(attempt-1, 10))
		got := cfg.Backoff(attempt)
		require.GreaterOrEqual(t, got, full/2, "attempt %d", attempt)
		require.LessOrEqual(t, got, full, "attempt %d", attempt)
	}
}

func TestConfigValidateRejectsNonsense(t *testing.T) {
	t.Parallel()
	require.NoError(t, Config{}.Validate())
	require.ErrorContains(t, Config{LeaseDuration: time.Millisecond}.Validate(), "lease duration")
	require.ErrorContains(t, Config{BackoffBase: time.Hour, BackoffMax: time.Minute}.Validate(), "backoff max")
	require.ErrorContains(t, Config{BatchSize: -1}.Validate(), "negative")
}
