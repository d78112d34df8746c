package main

import (
	"slices"
	"sync"
	"time"

	"github.com/lexora-app/lexora/pkg/events"
)

// attempt is one call of a subscriber's handler, as the drain execution
// that made it traced it (DRAIN_CHAOS_TRACE: "chaos attempt" when it
// started, "chaos attempt done" when it returned).
type attempt struct {
	exec       string // the drain execution, "drain-<task>.<run>"
	delivery   int64  // outbox_deliveries.id
	start, end time.Time
	ended      bool   // false: its process ended first (killed, or exited with the handler abandoned)
	err        string // the handler's error when it ended, "" for success
}

// trace gathers the drains' attempt lines: the attempts of every delivery
// whose effect leaves the database (emails, webhooks: the duplicates check
// ties each copy to the attempt that sent it) or whose subscriber is
// ordered (the order check reads their start order), and the attempts
// each execution has in flight (the leases a killed task held).
type trace struct {
	mu       sync.Mutex
	attempts map[deliveryKey][]*attempt
	open     map[string]map[int64][]*attempt // exec -> delivery id -> running attempts
	exited   map[string]time.Time            // exec -> when its process ended
}

func newTrace() *trace {
	return &trace{attempts: map[deliveryKey][]*attempt{}, open: map[string]map[int64][]*attempt{}, exited: map[string]time.Time{}}
}

// kept tells whether the attempts of subscriber sub are kept after they end.
func kept(sub string) bool {
	switch sub {
	case events.SubscriberEmail, events.SubscriberCongratulation, events.SubscriberReminder, events.SubscriberWebhook:
		return true
	}
	return slices.Contains(orderedSubscribers(), sub)
}

// started records that exec began an attempt at delivery id (key k) at at.
func (t *trace) started(exec string, k deliveryKey, id int64, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	a := &attempt{exec: exec, delivery: id, start: at}
	if t.open[exec] == nil {
		t.open[exec] = map[int64][]*attempt{}
	}
	t.open[exec][id] = append(t.open[exec][id], a)
	if kept(k.subscriber) {
		t.attempts[k] = append(t.attempts[k], a)
	}
}

// done records that exec's oldest running attempt at delivery id ended at
// at with error err ("" for success).
func (t *trace) done(exec string, id int64, at time.Time, err string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	running := t.open[exec][id]
	if len(running) == 0 {
		return
	}
	a := running[0]
	a.end, a.ended, a.err = at, true, err
	if len(running) == 1 {
		delete(t.open[exec], id)
	} else {
		t.open[exec][id] = running[1:]
	}
}

// exit records that exec's process ended at at: its running attempts never
// end.
func (t *trace) exit(exec string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.exited[exec] = at
	delete(t.open, exec)
}

// running returns the deliveries exec has an attempt in flight at.
func (t *trace) running(exec string) []int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var ids []int64
	for id := range t.open[exec] {
		ids = append(ids, id)
	}
	return ids
}

// of returns copies of the attempts at delivery k, and when each one's
// process exited (zero while it runs).
func (t *trace) of(k deliveryKey) ([]attempt, map[string]time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]attempt, 0, len(t.attempts[k]))
	exits := map[string]time.Time{}
	for _, a := range t.attempts[k] {
		out = append(out, *a)
		exits[a.exec] = t.exited[a.exec]
	}
	return out, exits
}

// bySubscriber returns copies of the attempts of subscriber sub's
// deliveries, by event id.
func (t *trace) bySubscriber(sub string) map[string][]attempt {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string][]attempt{}
	for k, as := range t.attempts {
		if k.subscriber != sub {
			continue
		}
		for _, a := range as {
			out[k.event] = append(out[k.event], *a)
		}
	}
	return out
}

// add appends a finished attempt at delivery k (the self-test's planted
// reordering).
func (t *trace) add(k deliveryKey, a attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.attempts[k] = append(t.attempts[k], &a)
}
