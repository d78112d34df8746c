package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Event is one fact to deliver to every subscriber of its topic.
type Event struct {
	// ID is the stable idempotency key every subscriber sees. Enqueue assigns
	// a random UUID when it is zero.
	ID uuid.UUID
	// Topic names the kind of event, e.g. "review.submitted".
	Topic string
	// OrderingKey groups events that belong to one aggregate, usually the
	// learner or assignment id. Empty means no key.
	OrderingKey string
	// Payload is the event body as JSON.
	Payload json.RawMessage
	// Headers carry context: trace context, request id, actor.
	Headers map[string]string
	// NotBefore, when set, is the earliest instant a delivery is handed out.
	NotBefore time.Time
	// CreatedAt is set by the database when the event is stored.
	CreatedAt time.Time
}

// NewEvent builds an Event with a fresh ID whose payload is v encoded as JSON.
// It returns an error when v cannot be encoded.
func NewEvent(topic, orderingKey string, v any) (Event, error) {
	payload, err := json.Marshal(v)
	if err != nil {
		return Event{}, fmt.Errorf("encode %s payload: %w", topic, err)
	}
	return Event{ID: uuid.New(), Topic: topic, OrderingKey: orderingKey, Payload: payload}, nil
}

// Delivery is one event handed to one subscriber for one attempt.
type Delivery struct {
	// ID identifies the (event, subscriber) pair in outbox_deliveries.
	ID int64
	// Subscriber is the name of the subscriber this delivery is for.
	Subscriber string
	// Attempt counts from 1 for the first attempt; a replay starts again at 1.
	Attempt int
	// Replays counts the operator replays of this delivery (0 at first): a
	// subscriber that remembers outcomes per delivery can tell a replay,
	// which should try again, from a retry.
	Replays int
	// Event is the event being delivered.
	Event Event

	// leaseExpired: the previous attempt ended without a result.
	leaseExpired bool
}

// Handler performs a subscriber's effect for one delivery. Returning nil
// acknowledges the delivery; an error schedules a retry, or makes the
// delivery dead when wrapped with Permanent or after the last attempt. The
// context ends before the delivery's lease does.
type Handler interface {
	Handle(ctx context.Context, d Delivery) error
}

// HandlerFunc adapts a function to Handler.
type HandlerFunc func(ctx context.Context, d Delivery) error

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, d Delivery) error { return f(ctx, d) }

// Subscription routes a topic to a named subscriber. Subscriptions are
// declared in code; names must stay stable because delivery rows and dedup
// records are keyed on them.
type Subscription struct {
	Topic      string
	Subscriber string
	// Ordered makes the subscriber receive the deliveries of one ordering
	// key one at a time, in outbox id order (commit order under the
	// precondition below): a delivery is not handed out while an earlier
	// one of the same key for the same subscriber is pending, running or
	// dead. Different keys proceed in parallel. A dead head keeps
	// its key blocked (and reported) until an operator replays or skips it.
	// A subscriber's subscriptions must agree on Ordered.
	//
	// Precondition: the order is the order of the events' outbox ids, which
	// is commit order per key only when every transaction that enqueues
	// events of one key first locks the same row (the aggregate's, e.g. the
	// learner's users row FOR NO KEY UPDATE). Two writers of one key that
	// do not serialise so can commit in the opposite order of their ids,
	// and an ordered subscriber then sees the later commit first. See
	// docs/architecture.md, "Ordering".
	Ordered bool
}

// PermanentError marks a failure that retrying cannot fix; the delivery goes
// dead at once.
type PermanentError struct{ Err error }

func (e *PermanentError) Error() string { return "permanent: " + e.Err.Error() }

// Unwrap returns the wrapped error.
func (e *PermanentError) Unwrap() error { return e.Err }

// Permanent wraps err so that the drain makes the delivery dead without
// further attempts. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &PermanentError{Err: err}
}

// IsPermanent reports whether err is, or wraps, a PermanentError.
func IsPermanent(err error) bool {
	var p *PermanentError
	return errors.As(err, &p)
}
