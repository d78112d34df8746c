package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DBTX is the part of pgx.Tx, *pgx.Conn and *pgxpool.Pool that Enqueue needs.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Outbox writes events and their fan-out into the caller's transaction.
// It is safe for concurrent use.
type Outbox struct {
	topics   []string
	names    []string
	ordered  []bool
	hasTopic map[string]bool
}

// MaxPayloadBytes caps an event's payload. Events carry ids and small facts;
// a drain holds a batch of payloads in memory (DRAIN_BATCH_SIZE × this at
// most), so big documents belong in tables the payload points to.
const MaxPayloadBytes = 64 << 10

// ErrPayloadTooLarge is returned by Enqueue for a payload over MaxPayloadBytes.
var ErrPayloadTooLarge = errors.New("outbox: payload too large")

// ErrUnknownTopic is returned by Enqueue for a topic no subscription names.
// Enqueuing such an event would store it and deliver it to no one, which is
// almost always a typo.
var ErrUnknownTopic = errors.New("outbox: no subscription for topic")

// New returns an Outbox routing events by subs. It returns an error for an
// empty topic or subscriber name, or a duplicated pair.
func New(subs ...Subscription) (*Outbox, error) {
	o := &Outbox{hasTopic: map[string]bool{}}
	seen := map[[2]string]bool{}
	ordered := map[string]bool{}
	for _, s := range subs {
		if s.Topic == "" || s.Subscriber == "" {
			return nil, fmt.Errorf("outbox: subscription %+v needs a topic and a subscriber", s)
		}
		pair := [2]string{s.Topic, s.Subscriber}
		if seen[pair] {
			return nil, fmt.Errorf("outbox: subscription %s -> %s declared twice", s.Topic, s.Subscriber)
		}
		if o, ok := ordered[s.Subscriber]; ok && o != s.Ordered {
			return nil, fmt.Errorf("outbox: subscriber %s is ordered for some topics and not others", s.Subscriber)
		}
		seen[pair], ordered[s.Subscriber] = true, s.Ordered
		o.topics = append(o.topics, s.Topic)
		o.names = append(o.names, s.Subscriber)
		o.ordered = append(o.ordered, s.Ordered)
		o.hasTopic[s.Topic] = true
	}
	return o, nil
}

// HasTopic reports whether a subscription of o names topic.
func (o *Outbox) HasTopic(topic string) bool { return o.hasTopic[topic] }

// HasSubscriber reports whether a subscription of o names subscriber.
func (o *Outbox) HasSubscriber(subscriber string) bool { return slices.Contains(o.names, subscriber) }

const enqueueSQL = `
WITH ev AS (
    INSERT INTO outbox_events (event_id, topic, ordering_key, payload, headers, not_before)
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[], $6::timestamptz[])
    RETURNING id, topic, ordering_key, not_before
)
INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key, ordered, available_at)
SELECT ev.id, s.subscriber, ev.ordering_key, s.ordered, greatest(coalesce(ev.not_before, now()), now())
FROM ev JOIN unnest($7::text[], $8::text[], $9::bool[]) AS s (topic, subscriber, ordered) ON s.topic = ev.topic
ORDER BY ev.id, s.subscriber`

// Enqueue stores events and one pending delivery per subscriber of each
// event's topic, in one statement inside tx (a pgx.Tx in practice: the point
// is to share the caller's transaction). Events with a zero ID get a random
// one, written back into the slice; the trace context of ctx, if any, is
// added to each event's headers (see trace.go). It returns ErrUnknownTopic for a topic
// without subscribers, ErrPayloadTooLarge, an error for a payload that is not
// valid JSON, and any
// database error.
func (o *Outbox) Enqueue(ctx context.Context, tx DBTX, events ...Event) error {
	if len(events) == 0 {
		return nil
	}
	n := len(events)
	ids := make([]uuid.UUID, n)
	topics := make([]string, n)
	keys := make([]string, n)
	payloads := make([]string, n)
	headers := make([]string, n)
	notBefore := make([]*time.Time, n)
	for i := range events {
		e := &events[i]
		if !o.hasTopic[e.Topic] {
			return fmt.Errorf("enqueue %q: %w", e.Topic, ErrUnknownTopic)
		}
		if len(e.Payload) > MaxPayloadBytes {
			return fmt.Errorf("enqueue %q: payload of %d bytes exceeds %d: %w", e.Topic, len(e.Payload), MaxPayloadBytes, ErrPayloadTooLarge)
		}
		if !json.Valid(e.Payload) {
			return fmt.Errorf("enqueue %q: payload is not valid JSON", e.Topic)
		}
		if e.ID == uuid.Nil {
			e.ID = uuid.New()
		}
		injectTrace(ctx, e)
		h, err := json.Marshal(e.Headers)
		if err != nil {
			return fmt.Errorf("enqueue %q: encode headers: %w", e.Topic, err)
		}
		if e.Headers == nil {
			h = []byte("{}")
		}
		ids[i], topics[i], keys[i] = e.ID, e.Topic, e.OrderingKey
		payloads[i], headers[i] = string(e.Payload), string(h)
		if !e.NotBefore.IsZero() {
			t := e.NotBefore
			notBefore[i] = &t
		}
	}
	if _, err := tx.Exec(ctx, enqueueSQL, ids, topics, keys, payloads, headers, notBefore, o.topics, o.names, o.ordered); err != nil {
		return fmt.Errorf("enqueue %d events: %w", n, err)
	}
	return nil
}
