package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Drainer hands due deliveries to their subscribers' handlers.
type Drainer struct {
	wake     <-chan struct{}
	pool     *pgxpool.Pool
	handlers map[string]Handler
	names    []string
	cfg      Config
	log      *slog.Logger
}

// NewDrainer returns a Drainer for the given handlers, keyed by subscriber
// name; it claims only deliveries of those subscribers. It returns an error
// for an invalid cfg or an empty handler set.
func NewDrainer(pool *pgxpool.Pool, handlers map[string]Handler, cfg Config, log *slog.Logger) (*Drainer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(handlers) == 0 {
		return nil, errors.New("outbox: drainer needs at least one handler")
	}
	names := make([]string, 0, len(handlers))
	for n := range handlers {
		names = append(names, n)
	}
	sort.Strings(names)
	return &Drainer{pool: pool, handlers: handlers, names: names, cfg: cfg.withDefaults(), log: log}, nil
}

// WakeOn makes an idle run claim again as soon as wake fires, instead of at
// the end of its poll interval (see Listener). Call it before Run.
func (d *Drainer) WakeOn(wake <-chan struct{}) { d.wake = wake }

// Report says what one run did. Counts are deliveries.
type Report struct {
	Claimed   int `json:"claimed"`
	Delivered int `json:"delivered"`
	// Skipped counts delivered deliveries whose subscriber had already
	// processed the event (outbox.HandleOnce found its record): redeliveries
	// made harmless.
	Skipped int `json:"skipped"`
	Retried int `json:"retried"`
	Dead    int `json:"dead"`
	// LostLeases counts results not written because the lease had passed to
	// another worker; that worker's result stands.
	LostLeases int `json:"lost_leases"`
	// Released counts deliveries handed back unfinished at shutdown.
	Released int           `json:"released"`
	Duration time.Duration `json:"-"`
	// Backlog is what is left per subscriber when the run ends.
	Backlog []Backlog `json:"backlog"`
}

// Backlog is the undelivered, not dead work of one subscriber.
type Backlog struct {
	Subscriber string `json:"subscriber"`
	// Pending counts deliveries waiting or leased.
	Pending int64 `json:"pending"`
	// OldestAge is the age of the oldest of them, from its creation.
	OldestAge time.Duration `json:"-"`
}

// LogValue renders the report as the fields of one structured log line,
// durations in seconds.
func (r Report) LogValue() slog.Value {
	var pending int64
	var oldest time.Duration
	subs := make([]any, 0, len(r.Backlog))
	for _, b := range r.Backlog {
		pending += b.Pending
		oldest = max(oldest, b.OldestAge)
		subs = append(subs, slog.Group(b.Subscriber,
			slog.Int64("pending", b.Pending),
			slog.Float64("oldest_age_seconds", b.OldestAge.Seconds())))
	}
	return slog.GroupValue(
		slog.Int("claimed", r.Claimed),
		slog.Int("delivered", r.Delivered),
		slog.Int("skipped", r.Skipped),
		slog.Int("retried", r.Retried),
		slog.Int("dead", r.Dead),
		slog.Int("lost_leases", r.LostLeases),
		slog.Int("released", r.Released),
		slog.Float64("duration_seconds", r.Duration.Seconds()),
		slog.Int64("backlog", pending),
		slog.Float64("oldest_pending_age_seconds", oldest.Seconds()),
		slog.Group("subscribers", subs...),
	)
}

// Run drains until cfg.MaxDuration has passed, cfg.MaxDeliveries have been
// claimed, ctx ends, or (with StopWhenIdle) nothing is due. Claimed batches
// are always finished, so a run may last up to one lease longer than
// MaxDuration. It returns the report and an error only when the database
// cannot be used; handler failures are counted, not returned.
func (d *Drainer) Run(ctx context.Context) (Report, error) {
	start := time.Now()
	deadline := start.Add(d.cfg.MaxDuration)
	var rep Report
	var runErr error
	for rep.Claimed < d.cfg.MaxDeliveries && ctx.Err() == nil && time.Now().Before(deadline) {
		batch, token, err := d.claim(ctx, min(d.cfg.BatchSize, d.cfg.MaxDeliveries-rep.Claimed))
		if err != nil {
			runErr = err
			break
		}
		if len(batch) == 0 {
			if d.cfg.StopWhenIdle || !d.idle(ctx, min(d.cfg.PollInterval, time.Until(deadline))) {
				break
			}
			continue
		}
		rep.Claimed += len(batch)
		if err := d.process(ctx, batch, token, &rep); err != nil {
			runErr = err
			break
		}
	}
	backlog, err := d.backlog(context.WithoutCancel(ctx))
	rep.Backlog = backlog
	rep.Duration = time.Since(start)
	return rep, errors.Join(runErr, err)
}

// idle waits up to wait for a wake-up; it reports false when ctx ended or
// there was no time left to wait.
func (d *Drainer) idle(ctx context.Context, wait time.Duration) bool {
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-d.wake:
	}
	return true
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

const claimSQL = `
WITH due AS (
    SELECT id FROM outbox_deliveries d
    WHERE state IN ('pending', 'running') AND available_at <= now() AND subscriber = ANY($1::text[])
      AND NOT (ordered AND EXISTS (
          SELECT 1 FROM outbox_deliveries p
          WHERE p.ordered AND p.subscriber = d.subscriber AND p.ordering_key = d.ordering_key
            AND p.id < d.id AND p.state IN ('pending', 'running', 'dead')))
    ORDER BY available_at, id
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
UPDATE outbox_deliveries d
SET state = 'running', attempts = d.attempts + 1, lease_token = $3,
    available_at = now() + make_interval(secs => $4)
FROM due, outbox_events e
WHERE d.id = due.id AND e.id = d.event_id
RETURNING d.id, d.subscriber, d.attempts, e.event_id, e.topic, e.ordering_key, e.payload, e.headers,
    e.not_before, e.created_at`

// claim leases up to n due deliveries under one new token.
func (d *Drainer) claim(ctx context.Context, n int) ([]Delivery, uuid.UUID, error) {
	token := uuid.New()
	rows, err := d.pool.Query(ctx, claimSQL, d.names, n, token, d.cfg.LeaseDuration.Seconds())
	if err != nil {
		return nil, token, fmt.Errorf("claim deliveries: %w", err)
	}
	batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Delivery, error) {
		var dl Delivery
		var notBefore *time.Time
		err := row.Scan(&dl.ID, &dl.Subscriber, &dl.Attempt, &dl.Event.ID, &dl.Event.Topic, &dl.Event.OrderingKey,
			&dl.Event.Payload, &dl.Event.Headers, &notBefore, &dl.Event.CreatedAt)
		if notBefore != nil {
			dl.Event.NotBefore = *notBefore
		}
		return dl, err
	})
	if err != nil {
		return nil, token, fmt.Errorf("claim deliveries: %w", err)
	}
	sort.Slice(batch, func(i, j int) bool { return batch[i].ID < batch[j].ID })
	return batch, token, nil
}

// outcome is what became of one claimed delivery.
type outcome struct {
	err error
	// duplicate: the handler found the event already processed.
	duplicate bool
	// lost: the heartbeat found the lease taken over; nothing is written.
	lost bool
	// released: cut short by shutdown; handed back without using an attempt.
	released bool
}

// process runs the handlers of one claimed batch, keeps their leases alive,
// and writes the results. Once ctx is cancelled, handlers get ShutdownGrace
// to finish; then they are cancelled and what they held is released. Results
// are written with a context that outlives ctx, so a shutdown does not throw
// away finished work.
func (d *Drainer) process(ctx context.Context, batch []Delivery, token uuid.UUID, rep *Report) error {
	outcomes := make([]outcome, len(batch))
	cancels := make([]context.CancelFunc, len(batch))
	running := make([]bool, len(batch))
	var mu sync.Mutex // guards outcomes, cancels and running

	base, stopAll := context.WithCancel(context.Background())
	defer stopAll()
	var helpers sync.WaitGroup
	done := make(chan struct{})
	helpers.Go(func() {
		select {
		case <-ctx.Done():
		case <-done:
			return
		}
		t := time.NewTimer(d.cfg.ShutdownGrace)
		defer t.Stop()
		select {
		case <-t.C:
			stopAll()
		case <-done:
		}
	})
	helpers.Go(func() { d.heartbeat(batch, token, &mu, running, cancels, outcomes, done) })

	work := make(chan int)
	var wg sync.WaitGroup
	for range min(d.cfg.Concurrency, len(batch)) {
		wg.Go(func() {
			for i := range work {
				hctx, cancel := context.WithTimeout(base, d.cfg.HandlerTimeout)
				hctx, duplicate := withDuplicateFlag(hctx)
				mu.Lock()
				cancels[i], running[i] = cancel, true
				mu.Unlock()
				err := d.handle(hctx, batch[i])
				mu.Lock()
				running[i] = false
				outcomes[i].err = err
				outcomes[i].duplicate = duplicate.Load()
				outcomes[i].released = err != nil && base.Err() != nil
				mu.Unlock()
				cancel()
			}
		})
	}
	for i := range batch {
		if base.Err() != nil {
			outcomes[i] = outcome{err: context.Canceled, released: true}
			continue
		}
		work <- i
	}
	close(work)
	wg.Wait()
	close(done)
	helpers.Wait()

	var ok, released []int64
	var failed []failure
	duplicates := 0
	for i, dl := range batch {
		o := outcomes[i]
		switch {
		case o.lost:
			rep.LostLeases++
		case o.released:
			released = append(released, dl.ID)
		case o.err == nil:
			ok = append(ok, dl.ID)
			if o.duplicate {
				duplicates++
			}
		default:
			failed = append(failed, d.failure(dl, o.err))
		}
	}
	wctx := context.WithoutCancel(ctx)
	acked, err := d.ack(wctx, ok, token)
	if err != nil {
		return err
	}
	retried, dead, err := d.fail(wctx, failed, token)
	if err != nil {
		return err
	}
	back, err := d.release(wctx, released, token)
	if err != nil {
		return err
	}
	rep.Delivered += acked
	rep.Skipped += min(duplicates, acked)
	rep.Retried += retried
	rep.Dead += dead
	rep.Released += back
	rep.LostLeases += len(ok) - acked + len(failed) - retried - dead + len(released) - back
	return nil
}

// failure turns a handler error into a retry or a dead letter, and logs it.
func (d *Drainer) failure(dl Delivery, err error) failure {
	dead := IsPermanent(err) || dl.Attempt >= d.cfg.MaxAttempts
	f := failure{id: dl.ID, err: err.Error(), dead: dead}
	if !dead {
		f.delay = d.cfg.Backoff(dl.Attempt)
	}
	// The event's trace context links the log line to the request's trace.
	ctx := propagator.Extract(context.Background(), headerCarrier(dl.Event.Headers))
	d.log.WarnContext(ctx, "delivery failed",
		slog.Int64("delivery_id", dl.ID), slog.String("subscriber", dl.Subscriber),
		slog.String("topic", dl.Event.Topic), slog.String("event_id", dl.Event.ID.String()),
		slog.Int("attempt", dl.Attempt), slog.Bool("dead", dead), slog.String("error", f.err))
	return f
}

const extendSQL = `
UPDATE outbox_deliveries SET available_at = now() + make_interval(secs => $3)
WHERE id = ANY($1::bigint[]) AND lease_token = $2 AND state = 'running'
RETURNING id`

// heartbeat extends the leases of the batch's running handlers every third
// of the lease until done is closed. A delivery whose lease could not be
// extended was taken over: its handler is cancelled and marked lost.
func (d *Drainer) heartbeat(batch []Delivery, token uuid.UUID, mu *sync.Mutex, running []bool,
	cancels []context.CancelFunc, outcomes []outcome, done <-chan struct{}) {
	t := time.NewTicker(d.cfg.LeaseDuration / 3)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		held := map[int64]int{}
		var ids []int64
		mu.Lock()
		for i, r := range running {
			if r {
				ids = append(ids, batch[i].ID)
				held[batch[i].ID] = i
			}
		}
		mu.Unlock()
		if len(ids) == 0 {
			continue
		}
		rows, err := d.pool.Query(context.Background(), extendSQL, ids, token, d.cfg.LeaseDuration.Seconds())
		var kept []int64
		if err == nil {
			kept, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		}
		if err != nil {
			d.log.Warn("lease heartbeat failed", slog.String("error", err.Error()))
			continue
		}
		for _, id := range kept {
			delete(held, id)
		}
		mu.Lock()
		for id, i := range held {
			if running[i] {
				outcomes[i].lost = true
				cancels[i]()
				d.log.Warn("lease lost to another worker", slog.Int64("delivery_id", id),
					slog.String("subscriber", batch[i].Subscriber))
			}
		}
		mu.Unlock()
	}
}

// handle calls the subscriber's handler, turning a panic into a failed
// attempt.
func (d *Drainer) handle(ctx context.Context, dl Delivery) (err error) {
	if dl.Attempt > d.cfg.MaxAttempts {
		return fmt.Errorf("lease expired during attempt %d of %d: the worker died or overran", dl.Attempt-1, d.cfg.MaxAttempts)
	}
	ctx, span := startDeliverySpan(ctx, dl)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack())
		}
		endDeliverySpan(span, err)
	}()
	return d.handlers[dl.Subscriber].Handle(ctx, dl)
}

const releaseSQL = `
UPDATE outbox_deliveries
SET state = 'pending', available_at = now(), lease_token = NULL, attempts = attempts - 1
WHERE id = ANY($1::bigint[]) AND lease_token = $2 AND state = 'running'`

// release hands deliveries back unattempted, where this worker still holds
// the lease, and returns how many it released.
func (d *Drainer) release(ctx context.Context, ids []int64, token uuid.UUID) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	tag, err := d.pool.Exec(ctx, releaseSQL, ids, token)
	if err != nil {
		return 0, fmt.Errorf("release %d deliveries: %w", len(ids), err)
	}
	return int(tag.RowsAffected()), nil
}

const ackSQL = `
UPDATE outbox_deliveries
SET state = 'delivered', finished_at = now(), lease_token = NULL, last_error = NULL
WHERE id = ANY($1::bigint[]) AND lease_token = $2 AND state = 'running'`

// ack marks deliveries delivered if this worker still holds their lease and
// returns how many it marked.
func (d *Drainer) ack(ctx context.Context, ids []int64, token uuid.UUID) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	tag, err := d.pool.Exec(ctx, ackSQL, ids, token)
	if err != nil {
		return 0, fmt.Errorf("acknowledge %d deliveries: %w", len(ids), err)
	}
	return int(tag.RowsAffected()), nil
}

type failure struct {
	id    int64
	err   string
	delay time.Duration
	dead  bool
}

const failSQL = `
UPDATE outbox_deliveries d
SET state = CASE WHEN f.dead THEN 'dead' ELSE 'pending' END,
    available_at = CASE WHEN f.dead THEN d.available_at ELSE now() + make_interval(secs => f.delay) END,
    finished_at = CASE WHEN f.dead THEN now() END,
    lease_token = NULL,
    last_error = f.error
FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::bool[]) AS f (id, error, delay, dead)
WHERE d.id = f.id AND d.lease_token = $5 AND d.state = 'running'
RETURNING f.dead`

// fail records failed attempts, as retries or dead letters, where this worker
// still holds the lease. It returns how many became retries and dead.
func (d *Drainer) fail(ctx context.Context, fs []failure, token uuid.UUID) (retried, dead int, err error) {
	if len(fs) == 0 {
		return 0, 0, nil
	}
	ids := make([]int64, len(fs))
	msgs := make([]string, len(fs))
	delays := make([]float64, len(fs))
	deads := make([]bool, len(fs))
	for i, f := range fs {
		ids[i], msgs[i], delays[i], deads[i] = f.id, truncate(f.err, 4000), f.delay.Seconds(), f.dead
	}
	rows, err := d.pool.Query(ctx, failSQL, ids, msgs, delays, deads, token)
	if err != nil {
		return 0, 0, fmt.Errorf("record %d failed deliveries: %w", len(fs), err)
	}
	wentDead, err := pgx.CollectRows(rows, pgx.RowTo[bool])
	if err != nil {
		return 0, 0, fmt.Errorf("record %d failed deliveries: %w", len(fs), err)
	}
	for _, isDead := range wentDead {
		if isDead {
			dead++
		} else {
			retried++
		}
	}
	return retried, dead, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}

const backlogSQL = `
SELECT subscriber, count(*), extract(epoch FROM now() - min(created_at))::float8
FROM outbox_deliveries
WHERE state IN ('pending', 'running') AND subscriber = ANY($1::text[])
GROUP BY subscriber ORDER BY subscriber`

func (d *Drainer) backlog(ctx context.Context) ([]Backlog, error) {
	rows, err := d.pool.Query(ctx, backlogSQL, d.names)
	if err != nil {
		return nil, fmt.Errorf("measure backlog: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Backlog, error) {
		var b Backlog
		var age float64
		err := row.Scan(&b.Subscriber, &b.Pending, &age)
		b.OldestAge = time.Duration(age * float64(time.Second))
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("measure backlog: %w", err)
	}
	return out, nil
}
