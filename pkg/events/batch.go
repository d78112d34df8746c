package events

import (
	"cmp"
	"time"

	"github.com/lexora-app/lexora/pkg/outbox"
)

// Batch collects the events one state change causes, all under one ordering
// key, so that a domain package can decide which events a change emits
// while the caller (the HTTP function) adds the request's headers and
// enqueues them in its transaction:
//
//	b := events.NewBatch(learnerID.String())
//	b.Add(events.ReviewSubmittedPayload{...}) // topic review.submitted
//	...
//	evs, err := b.Events() // then set headers, outbox.Enqueue(ctx, tx, evs...)
//
// Building an event can fail only when its payload cannot be encoded as
// JSON; the first such error is kept and returned by Events, so producers
// add without checking each call. The zero Batch has an empty ordering key;
// use NewBatch.
type Batch struct {
	key    string
	events []outbox.Event
	err    error
}

// NewBatch returns an empty batch whose events get the ordering key key
// (usually the learner's id).
func NewBatch(key string) Batch {
	return Batch{key: key}
}

// Add appends an event of p's topic with payload p (encoded as JSON), to be
// delivered at once.
func (b *Batch) Add(p Payload) {
	b.AddAt(p, time.Time{})
}

// AddAt appends an event of p's topic with payload p, not to be delivered
// before notBefore (at once when zero).
func (b *Batch) AddAt(p Payload, notBefore time.Time) {
	ev, err := New(b.key, p)
	if err != nil {
		b.err = cmp.Or(b.err, err)
		return
	}
	ev.NotBefore = notBefore
	b.events = append(b.events, ev)
}

// Join appends o's events, in their order and with their own ordering key,
// and o's error (when b has none yet).
func (b *Batch) Join(o Batch) {
	b.events, b.err = append(b.events, o.events...), cmp.Or(b.err, o.err)
}

// Events returns the batch's events in the order they were added, or the
// first error met while building them. The slice is the batch's own: the
// caller may set each event's Headers before enqueueing.
func (b *Batch) Events() ([]outbox.Event, error) {
	return b.events, b.err
}
