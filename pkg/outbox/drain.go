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

// Report says what one run did. Counts are deliveries.
type Report struct {
	Claimed   int `json:"claimed"`
	Delivered int `json:"delivered"`
	Retried   int `json:"retried"`
	Dead      int `json:"dead"`
	// LostLeases counts results not written because the lease had passed to
	// another worker; that worker's result stands.
	LostLeases int           `json:"lost_leases"`
	Duration   time.Duration `json:"-"`
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
		slog.Int("retried", r.Retried),
		slog.Int("dead", r.Dead),
		slog.Int("lost_leases", r.LostLeases),
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
			if d.cfg.StopWhenIdle || !sleep(ctx, min(d.cfg.PollInterval, time.Until(deadline))) {
				break
			}
			continue
		}
		rep.Claimed += len(batch)
		if err := d.process(batch, token, &rep); err != nil {
			runErr = err
			break
		}
	}
	backlog, err := d.backlog(context.WithoutCancel(ctx))
	rep.Backlog = backlog
	rep.Duration = time.Since(start)
	return rep, errors.Join(runErr, err)
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
    SELECT id FROM outbox_deliveries
    WHERE state IN ('pending', 'running') AND available_at <= now() AND subscriber = ANY($1::text[])
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

// process runs the handlers of one claimed batch and writes the results.
// Results are written with a context that outlives a cancelled run, so a
// shutdown does not throw away finished work.
func (d *Drainer) process(batch []Delivery, token uuid.UUID, rep *Report) error {
	errs := make([]error, len(batch))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(d.cfg.Concurrency, len(batch)) {
		wg.Go(func() {
			for i := range work {
				errs[i] = d.handle(batch[i])
			}
		})
	}
	for i := range batch {
		work <- i
	}
	close(work)
	wg.Wait()

	var ok []int64
	var failed []failure
	for i, dl := range batch {
		if errs[i] == nil {
			ok = append(ok, dl.ID)
			continue
		}
		dead := IsPermanent(errs[i]) || dl.Attempt >= d.cfg.MaxAttempts
		f := failure{id: dl.ID, err: errs[i].Error(), dead: dead}
		if !dead {
			f.delay = d.cfg.Backoff(dl.Attempt)
		}
		failed = append(failed, f)
		d.log.Warn("delivery failed",
			slog.Int64("delivery_id", dl.ID), slog.String("subscriber", dl.Subscriber),
			slog.String("topic", dl.Event.Topic), slog.String("event_id", dl.Event.ID.String()),
			slog.Int("attempt", dl.Attempt), slog.Bool("dead", dead), slog.String("error", f.err))
	}
	ctx := context.Background()
	acked, err := d.ack(ctx, ok, token)
	if err != nil {
		return err
	}
	rep.Delivered += acked
	retried, dead, err := d.fail(ctx, failed, token)
	if err != nil {
		return err
	}
	rep.Retried += retried
	rep.Dead += dead
	rep.LostLeases += len(batch) - acked - retried - dead
	return nil
}

// handle calls the subscriber's handler with a deadline inside the lease,
// turning a panic into a failed attempt.
func (d *Drainer) handle(dl Delivery) (err error) {
	if dl.Attempt > d.cfg.MaxAttempts {
		return fmt.Errorf("lease expired during attempt %d of %d: the worker died or overran", dl.Attempt-1, d.cfg.MaxAttempts)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d.cfg.handlerTimeout())
	defer cancel()
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack())
		}
	}()
	return d.handlers[dl.Subscriber].Handle(ctx, dl)
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
