package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Drainer hands due deliveries to their subscribers' handlers.
type Drainer struct {
	wake     <-chan struct{}
	pool     *pgxpool.Pool
	handlers map[string]Handler
	names    []string
	cfg      Config
	log      *slog.Logger
	clock    clock.Clock
	signals  drainSignals
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
	return &Drainer{pool: pool, handlers: handlers, names: names, cfg: cfg.withDefaults(), log: log,
		clock: clock.System{}}, nil
}

// WakeOn makes an idle run claim again as soon as wake fires, instead of at
// the end of its poll interval (see Listener). Call it before Run.
func (d *Drainer) WakeOn(wake <-chan struct{}) { d.wake = wake }

// UseClock makes runs read the current instant from c instead of
// clock.System: the run's deadline (MaxDuration), when a lease was last
// confirmed, and when a handler's lease stops being extended. Timers (the
// poll interval, the heartbeat's period, handler and statement timeouts)
// still run on the process's clock, and lease expiry is always the
// database's now(). Tests pass a clocktest.Stub to move a run past its
// deadline without waiting. clock.System's instants carry no monotonic
// reading, so a step of the machine's wall clock during a run moves its
// deadline by the step; the task timeout and the leases' expiry on the
// database clock still bound it. Call it before Run.
func (d *Drainer) UseClock(c clock.Clock) { d.clock = c }

// Report says what one run did. Counts are deliveries. Its JSON form (see
// MarshalJSON) is what the drain's summary log line carries.
type Report struct {
	Claimed   int
	Delivered int
	// Skipped counts delivered deliveries whose subscriber had already
	// processed the event (outbox.HandleOnce found its record): redeliveries
	// made harmless.
	Skipped int
	Retried int
	Dead    int
	// LostLeases counts results not written because the lease had passed to
	// another worker; that worker's result stands.
	LostLeases int
	// Released counts deliveries handed back unfinished at shutdown, or
	// claimed but not started before MaxDuration.
	Released int
	// Unwritten counts deliveries whose result (or release) was not
	// written because the database stopped answering; they come back when
	// their leases expire. Claimed = Delivered + Retried + Dead +
	// LostLeases + Released + Unwritten.
	Unwritten int
	// Abandoned counts handlers still running a second after their context
	// ended (their timeout, a lost lease or the end of the shutdown grace):
	// the run stopped waiting for them and counted their attempt as failed.
	// Each is a goroutine left running until the process exits.
	Abandoned int
	Duration  time.Duration
	// Backlog is what is left per subscriber when the run ends, for every
	// subscriber, handled by this drain or not, in subscriber order.
	Backlog []Backlog
}

// plus adds the result counts of w (not Claimed, Abandoned, Duration or
// Backlog) to r.
func (r Report) plus(w Report) Report {
	r.Delivered += w.Delivered
	r.Skipped += w.Skipped
	r.Retried += w.Retried
	r.Dead += w.Dead
	r.Released += w.Released
	r.LostLeases += w.LostLeases
	return r
}

// Backlog is the undelivered, not dead work of one subscriber.
type Backlog struct {
	Subscriber string
	// Pending counts deliveries waiting or leased, due or not.
	Pending int64
	// Due counts those deliverable now; the others wait for a not-before
	// time (reminders), a backoff or a lease.
	Due int64
	// OldestAge is how long the oldest due delivery has been deliverable:
	// since its event's not-before time, or its creation. It is what an
	// alert should watch; scheduled work does not age.
	OldestAge time.Duration
}

// The claim locks due rows through the partial index, then updates them by
// primary key: "d.id = ANY (ARRAY(...))" keeps the planner from joining the
// batch to the whole table with a hash join over a sequential scan, which
// made the claim's cost grow with the table (36 ms against 22 ms per 1,000
// at 100,000 rows, EXPLAIN ANALYZE).
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
    available_at = now() + make_interval(secs => $4),
    last_error = CASE WHEN d.state = 'running' THEN $5 ELSE d.last_error END
FROM outbox_events e
WHERE d.id = ANY (ARRAY(SELECT id FROM due)) AND e.id = d.event_id
RETURNING d.id, d.subscriber, d.attempts, e.event_id, e.topic, e.ordering_key, e.payload, e.headers,
    e.not_before, e.created_at, d.last_error IS NOT DISTINCT FROM $5, d.replays`

// leaseExpiredError is recorded by a claim that takes over a delivery whose
// previous holder never wrote a result: its worker died or overran its lease.
const leaseExpiredError = "lease expired: the previous attempt's worker died or overran its lease"

// claim leases up to n due deliveries under one new token.
func (d *Drainer) claim(ctx context.Context, db *pgxpool.Pool, n int) ([]Delivery, uuid.UUID, error) {
	token := uuid.New()
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StatementTimeout)
	defer cancel()
	rows, err := db.Query(ctx, claimSQL, d.names, n, token, d.cfg.LeaseDuration.Seconds(), leaseExpiredError)
	if err != nil {
		return nil, token, fmt.Errorf("claim deliveries: %w", err)
	}
	batch, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Delivery, error) {
		var dl Delivery
		var notBefore *time.Time
		err := row.Scan(&dl.ID, &dl.Subscriber, &dl.Attempt, &dl.Event.ID, &dl.Event.Topic, &dl.Event.OrderingKey,
			&dl.Event.Payload, &dl.Event.Headers, &notBefore, &dl.Event.CreatedAt, &dl.leaseExpired, &dl.Replays)
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

// lease identifies one claimed delivery and the token it was claimed under.
type lease struct {
	id    int64
	token uuid.UUID
}

func leaseArrays(ls []lease) ([]int64, []uuid.UUID) {
	ids := make([]int64, len(ls))
	tokens := make([]uuid.UUID, len(ls))
	for i, l := range ls {
		ids[i], tokens[i] = l.id, l.token
	}
	return ids, tokens
}

// Every write below is a compare-and-set on (id, lease_token): a worker
// whose lease was taken over changes nothing. Each first locks the rows it
// will change in id order (heldSQL), so that two writes over overlapping
// leases, such as the heartbeat's extension and an acknowledgement of the
// same run, wait for each other instead of deadlocking; an UPDATE or DELETE
// joined to an array locks rows in whatever order its plan produces them.
//
// heldSQL finds the rows by primary key (d.id = ANY) and does not test the
// state: a token is set only by the claim, with state 'running', and every
// write that leaves 'running' clears it or deletes the row (the schema's
// outbox_deliveries_lease_running check). A test of state = 'running' made
// the planner, whose statistics from the last ANALYZE of a just-enqueued
// backlog show no running row, expect one and choose a nested loop that
// compares every running row with every lease: with 4 drain tasks over a
// 100,000 backlog (4,000 running rows), 3.8 s for one acknowledgement of
// 1,000 (EXPLAIN ANALYZE), past the 5 s statement deadline under load
// (BenchmarkDrainTasks failed in 3 of 5 runs on 30 November 2026); by primary key, 10-14 ms with a
// custom or a generic plan.
const heldSQL = `
WITH held AS (
    SELECT d.id FROM outbox_deliveries d
    JOIN unnest($1::bigint[], $2::uuid[]) AS l (id, token) ON d.id = l.id AND d.lease_token = l.token
    WHERE d.id = ANY ($1::bigint[])
    ORDER BY d.id
    FOR UPDATE OF d
)`

// The acknowledgement deletes the delivered rows and counts them in the
// per-minute statistics, upserted in subscriber order for the same reason.
const ackSQL = heldSQL + `,
acked AS (
    DELETE FROM outbox_deliveries d
    WHERE d.id = ANY (ARRAY(SELECT id FROM held))
    RETURNING d.subscriber
),
counted AS (
    INSERT INTO outbox_delivery_stats (minute, subscriber, delivered)
    SELECT date_trunc('minute', now()), subscriber, count(*) FROM acked GROUP BY subscriber ORDER BY subscriber
    ON CONFLICT (minute, subscriber) DO UPDATE
    SET delivered = outbox_delivery_stats.delivered + excluded.delivered
)
SELECT count(*) FROM acked`

// ack removes delivered deliveries where this worker still holds their lease
// and returns how many it removed.
func (d *Drainer) ack(ctx context.Context, db *pgxpool.Pool, ls []lease) (int, error) {
	if len(ls) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StatementTimeout)
	defer cancel()
	ids, tokens := leaseArrays(ls)
	var n int
	if err := db.QueryRow(ctx, ackSQL, ids, tokens).Scan(&n); err != nil {
		return 0, fmt.Errorf("acknowledge %d deliveries: %w", len(ls), err)
	}
	return n, nil
}

type failure struct {
	lease
	err   string
	delay time.Duration
	dead  bool
}

const failSQL = heldSQL + `
UPDATE outbox_deliveries d
SET state = CASE WHEN f.dead THEN 'dead' ELSE 'pending' END,
    available_at = CASE WHEN f.dead THEN d.available_at ELSE now() + make_interval(secs => f.delay) END,
    finished_at = CASE WHEN f.dead THEN now() END,
    lease_token = NULL,
    last_error = f.error
FROM unnest($1::bigint[], $3::text[], $4::float8[], $5::bool[]) AS f (id, error, delay, dead)
WHERE d.id = f.id AND d.id = ANY (ARRAY(SELECT id FROM held))
RETURNING f.dead`

// fail records failed attempts, as retries or dead letters, where this worker
// still holds the lease. It returns how many became retries and dead.
func (d *Drainer) fail(ctx context.Context, db *pgxpool.Pool, fs []failure) (retried, dead int, err error) {
	if len(fs) == 0 {
		return 0, 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StatementTimeout)
	defer cancel()
	ls := make([]lease, len(fs))
	msgs := make([]string, len(fs))
	delays := make([]float64, len(fs))
	deads := make([]bool, len(fs))
	for i, f := range fs {
		ls[i], msgs[i], delays[i], deads[i] = f.lease, validText(f.err, maxErrorBytes), f.delay.Seconds(), f.dead
	}
	ids, tokens := leaseArrays(ls)
	rows, err := db.Query(ctx, failSQL, ids, tokens, msgs, delays, deads)
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

const releaseSQL = heldSQL + `
UPDATE outbox_deliveries d
SET state = 'pending', available_at = now(), lease_token = NULL, attempts = d.attempts - 1
WHERE d.id = ANY (ARRAY(SELECT id FROM held))`

// release hands deliveries back unattempted, where this worker still holds
// the lease, and returns how many it released.
func (d *Drainer) release(ctx context.Context, db *pgxpool.Pool, ls []lease) (int, error) {
	if len(ls) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StatementTimeout)
	defer cancel()
	ids, tokens := leaseArrays(ls)
	tag, err := db.Exec(ctx, releaseSQL, ids, tokens)
	if err != nil {
		return 0, fmt.Errorf("release %d deliveries: %w", len(ls), err)
	}
	return int(tag.RowsAffected()), nil
}

const extendSQL = heldSQL + `
UPDATE outbox_deliveries d SET available_at = now() + make_interval(secs => $3)
WHERE d.id = ANY (ARRAY(SELECT id FROM held))
RETURNING d.id`

// extend pushes back the expiry of leases this worker still holds and
// returns the ids it extended; the others were taken over.
func (d *Drainer) extend(ctx context.Context, db *pgxpool.Pool, ls []lease) ([]int64, error) {
	ids, tokens := leaseArrays(ls)
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StatementTimeout)
	defer cancel()
	rows, err := db.Query(ctx, extendSQL, ids, tokens, d.cfg.LeaseDuration.Seconds())
	if err != nil {
		return nil, fmt.Errorf("extend %d leases: %w", len(ls), err)
	}
	kept, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("extend %d leases: %w", len(ls), err)
	}
	return kept, nil
}

// maxErrorBytes caps a recorded last_error.
const maxErrorBytes = 4000

// validText returns s as PostgreSQL text can store it: invalid UTF-8
// sequences replaced by U+FFFD, NUL bytes (which text cannot hold) dropped,
// and cut to at most n bytes at a character boundary. A handler's error
// goes into one statement with the other failures of its group, so one
// unstorable message would otherwise fail them all.
func validText(s string, n int) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// The backlog covers every subscriber, including those this drain has no
// handler for (a subscriber added to the routing before its handler is
// deployed): their work would otherwise wait unseen.
const backlogSQL = `
SELECT d.subscriber, count(*), count(*) FILTER (WHERE d.available_at <= now()),` + oldestDueAgeSQL + `
FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
WHERE d.state IN ('pending', 'running')
GROUP BY d.subscriber ORDER BY d.subscriber`

// oldestDueAgeSQL is the age, in seconds, of the oldest due delivery d of
// event e, counted from when it became deliverable (0 when none is due).
// GREATEST ignores a NULL not_before.
const oldestDueAgeSQL = `
    coalesce(extract(epoch FROM now() - min(greatest(d.created_at, e.not_before)) FILTER (WHERE d.available_at <= now())), 0)::float8`

func (d *Drainer) backlog(ctx context.Context, db *pgxpool.Pool) ([]Backlog, error) {
	ctx, cancel := context.WithTimeout(ctx, d.cfg.StatementTimeout)
	defer cancel()
	rows, err := db.Query(ctx, backlogSQL)
	if err != nil {
		return nil, fmt.Errorf("measure backlog: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Backlog, error) {
		var b Backlog
		var age float64
		err := row.Scan(&b.Subscriber, &b.Pending, &b.Due, &age)
		b.OldestAge = time.Duration(age * float64(time.Second))
		return b, err
	})
	if err != nil {
		return nil, fmt.Errorf("measure backlog: %w", err)
	}
	for _, b := range out {
		if _, ok := d.handlers[b.Subscriber]; !ok {
			d.log.WarnContext(ctx, "deliveries are pending for a subscriber this drain has no handler for",
				slog.String("subscriber", b.Subscriber), slog.Int64("pending", b.Pending))
		}
	}
	return out, nil
}
