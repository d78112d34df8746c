package outbox

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DeadFilter selects dead deliveries. Empty fields match everything; a filter
// with no field set at all matches every dead delivery only when All is true,
// so that "replay everything" is never an accident.
type DeadFilter struct {
	IDs        []int64
	Topic      string
	Subscriber string
	// Since and Until bound the time the delivery went dead.
	Since, Until time.Time
	All          bool
	// Limit caps a listing (default 100); replay and skip ignore it.
	Limit int
}

func (f DeadFilter) empty() bool {
	return len(f.IDs) == 0 && f.Topic == "" && f.Subscriber == "" && f.Since.IsZero() && f.Until.IsZero()
}

// ErrEmptyFilter is returned by Replay and Skip for a filter that names
// nothing and does not set All.
var ErrEmptyFilter = errors.New("outbox: the filter selects nothing; set ids, topic, subscriber, a time range, or all")

// ErrNoReason is returned by Replay and Skip for a reason that is empty or
// only white space: every resolution of a dead letter says why in
// outbox_audit.
var ErrNoReason = errors.New("outbox: replaying or skipping needs a reason")

// ErrInvalidFilter wraps what is wrong with a DeadFilter, or with the
// reason or actor of a replay or skip.
var ErrInvalidFilter = errors.New("outbox: invalid filter")

// Validate returns an error wrapping ErrInvalidFilter when a text field is
// not UTF-8, holds NUL or is longer than 200 characters (code points), or
// until is before since. ListDead, Replay and Skip call it.
func (f DeadFilter) Validate() error {
	for _, field := range []struct{ name, value string }{{"topic", f.Topic}, {"subscriber", f.Subscriber}} {
		if err := checkText(field.name, field.value, 200); err != nil {
			return err
		}
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && f.Until.Before(f.Since) {
		return fmt.Errorf("%w: until is before since", ErrInvalidFilter)
	}
	return nil
}

// checkText returns an error wrapping ErrInvalidFilter, naming the field,
// when value is not UTF-8, holds NUL or has more than maxChars characters.
// Characters are code points (utf8.RuneCountInString), as the functions'
// validate max= tags and the client count them, so a reason of 1,000 "é"
// (2,000 bytes) that the API accepts is not refused here. The columns are
// text, without a length of their own.
func checkText(name, value string, maxChars int) error {
	if !utf8.ValidString(value) || strings.ContainsRune(value, 0) || utf8.RuneCountInString(value) > maxChars {
		return fmt.Errorf("%w: %s must be UTF-8 text without NUL, at most %d characters", ErrInvalidFilter, name, maxChars)
	}
	return nil
}

// Unrouted returns the fields of f, "topic" then "subscriber", whose value
// is set but named by no subscription of o (HasTopic, HasSubscriber); nil
// when there is none. A filter on such a name selects nothing, so it is a
// typo rather than a request for nothing: the operator functions answer 400
// naming each field, outboxctl exits with status 2.
func (o *Outbox) Unrouted(f DeadFilter) []string {
	var fields []string
	if f.Topic != "" && !o.HasTopic(f.Topic) {
		fields = append(fields, "topic")
	}
	if f.Subscriber != "" && !o.HasSubscriber(f.Subscriber) {
		fields = append(fields, "subscriber")
	}
	return fields
}

// DeadDelivery is one dead letter as operators see it. Its json tags are
// the output of `outboxctl dead list`; the HTTP API's ListDeadLetters
// answer is functions/api's type, converted from this one by the functions.
type DeadDelivery struct {
	ID          int64     `json:"id"`
	EventID     uuid.UUID `json:"event_id"`
	Topic       string    `json:"topic"`
	Subscriber  string    `json:"subscriber"`
	OrderingKey string    `json:"ordering_key"`
	Attempts    int       `json:"attempts"`
	LastError   string    `json:"last_error"`
	DeadAt      time.Time `json:"dead_at"`
	CreatedAt   time.Time `json:"created_at"`
	// Blocking counts later deliveries of the same ordered key held back by
	// this one.
	Blocking int `json:"blocking"`
}

const deadWhere = `
d.state = 'dead'
  AND (cardinality($1::bigint[]) = 0 OR d.id = ANY($1::bigint[]))
  AND ($2 = '' OR e.topic = $2)
  AND ($3 = '' OR d.subscriber = $3)
  AND ($4::timestamptz IS NULL OR d.finished_at >= $4)
  AND ($5::timestamptz IS NULL OR d.finished_at < $5)`

const listDeadSQL = `
SELECT d.id, e.event_id, e.topic, d.subscriber, d.ordering_key, d.attempts, coalesce(d.last_error, ''),
       d.finished_at, d.created_at,
       CASE WHEN d.ordered THEN (
           SELECT count(*) FROM outbox_deliveries n
           WHERE n.ordered AND n.subscriber = d.subscriber AND n.ordering_key = d.ordering_key
             AND n.id > d.id AND n.state IN ('pending', 'running')) ELSE 0 END
FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
WHERE` + deadWhere + `
ORDER BY d.finished_at DESC, d.id DESC
LIMIT $6`

func (f DeadFilter) args() []any {
	var since, until *time.Time
	if !f.Since.IsZero() {
		since = &f.Since
	}
	if !f.Until.IsZero() {
		until = &f.Until
	}
	ids := f.IDs
	if ids == nil {
		ids = []int64{}
	}
	return []any{ids, f.Topic, f.Subscriber, since, until}
}

// ListDead returns the dead deliveries matching f, most recent first, up to
// f.Limit (default 100, at most 1,000).
func ListDead(ctx context.Context, pool *pgxpool.Pool, f DeadFilter) ([]DeadDelivery, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	rows, err := pool.Query(ctx, listDeadSQL, append(f.args(), min(limit, 1000))...)
	if err != nil {
		return nil, fmt.Errorf("list dead deliveries: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (DeadDelivery, error) {
		var d DeadDelivery
		err := row.Scan(&d.ID, &d.EventID, &d.Topic, &d.Subscriber, &d.OrderingKey, &d.Attempts, &d.LastError,
			&d.DeadAt, &d.CreatedAt, &d.Blocking)
		return d, err
	})
	if err != nil {
		return nil, fmt.Errorf("list dead deliveries: %w", err)
	}
	return out, nil
}

// Replay and skip change the matching dead rows and write one audit row
// each, in one statement: replay makes them pending with a fresh attempt
// budget; skip deletes them, as an acknowledgement would, which also
// unblocks an ordered key.
const resolveDeadSQL = `
WITH target AS (
    SELECT d.id, e.event_id, d.subscriber, d.last_error, d.attempts
    FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
    WHERE` + deadWhere + `
    ORDER BY d.id
    FOR UPDATE OF d
),
replayed AS (
    UPDATE outbox_deliveries d
    SET state = 'pending', attempts = 0, replays = d.replays + 1, available_at = now(), finished_at = NULL
    WHERE $6 = 'replay' AND d.id = ANY (ARRAY(SELECT id FROM target)) AND d.state = 'dead'
    RETURNING d.id),
skipped AS (
    DELETE FROM outbox_deliveries d
    WHERE $6 = 'skip' AND d.id = ANY (ARRAY(SELECT id FROM target)) AND d.state = 'dead'
    RETURNING d.id)
INSERT INTO outbox_audit (delivery_id, event_id, subscriber, action, actor, reason, last_error, attempts)
SELECT t.id, t.event_id, t.subscriber, $6, $7, $8, t.last_error, t.attempts
FROM target t
WHERE t.id IN (SELECT id FROM replayed UNION ALL SELECT id FROM skipped)`

// Replay makes the dead deliveries matching f pending again with a fresh
// attempt budget, and records each in outbox_audit with actor and reason
// (required). It returns how many it replayed, ErrEmptyFilter, ErrNoReason
// or ErrInvalidFilter.
func Replay(ctx context.Context, db DBTX, f DeadFilter, actor, reason string) (int, error) {
	return resolveDead(ctx, db, f, "replay", actor, reason)
}

// Skip resolves the dead deliveries matching f without delivering them (the
// rows are removed, which also unblocks an ordered key), and records each in
// outbox_audit with actor and reason (required). It returns how many it
// skipped, ErrEmptyFilter, ErrNoReason or ErrInvalidFilter.
func Skip(ctx context.Context, db DBTX, f DeadFilter, actor, reason string) (int, error) {
	return resolveDead(ctx, db, f, "skip", actor, reason)
}

func resolveDead(ctx context.Context, db DBTX, f DeadFilter, action, actor, reason string) (int, error) {
	if f.empty() && !f.All {
		return 0, ErrEmptyFilter
	}
	if strings.TrimFunc(reason, unicode.IsSpace) == "" {
		return 0, ErrNoReason
	}
	if err := f.Validate(); err != nil {
		return 0, err
	}
	if err := errors.Join(checkText("reason", reason, 1000), checkText("actor", actor, 200)); err != nil {
		return 0, err
	}
	if actor == "" {
		return 0, errors.New("outbox: an audit record needs an actor")
	}
	tag, err := db.Exec(ctx, resolveDeadSQL, append(f.args(), action, actor, reason)...)
	if err != nil {
		return 0, fmt.Errorf("%s dead deliveries: %w", action, err)
	}
	return int(tag.RowsAffected()), nil
}
