package webhooks

import (
	"fmt"
	"net/http"
	"time"

	"github.com/lexora-app/lexora/pkg/store"
)

// FailuresCounted bounds Health.FailuresInRow: past it, an endpoint is
// failing, and how much more does not change the action.
const FailuresCounted = 100

// The states of an endpoint's Health.
const (
	// StateUnused: no delivery has reached the endpoint yet.
	StateUnused = "unused"
	// StateHealthy: its receiver accepted the latest delivery (2xx).
	StateHealthy = "healthy"
	// StateFailing: its receiver rejected (4xx) every delivery since the
	// last it accepted, or all of them.
	StateFailing = "failing"
	// StateDisabled: it receives nothing: its receiver answered 410 Gone,
	// or it was disabled as a duplicate.
	StateDisabled = "disabled"
)

// Health is what the deliveries to an endpoint say of it, read from its
// recorded answers (webhook_attempts: each event it accepted with a 2xx or
// rejected with a 4xx). A 5xx, a timeout or a network error is not an
// answer: the outbox retries that delivery and, after its last attempt,
// lists it as a dead letter for the operator (it is not counted here).
type Health struct {
	State string
	// LastDeliveryAt is the latest answer, accepted or rejected; null
	// before the first.
	LastDeliveryAt *time.Time
	// LastAcceptedAt is the latest 2xx; null when it never accepted one.
	LastAcceptedAt *time.Time
	// LastError is the latest rejection ("status 404 Not Found"), and
	// LastErrorAt when it came; both null when it never rejected one.
	LastError   *string
	LastErrorAt *time.Time
	// FailuresInRow counts the rejections since the latest 2xx (all of
	// them when there was none), at most FailuresCounted.
	FailuresInRow int
	// Action is what the teacher does about it, one sentence; "" when
	// nothing is to be done.
	Action string
}

// health is the Health of ep from its attempts row.
func health(ep store.WebhookEndpoint, row store.EndpointHealthRow) Health {
	h := Health{LastAcceptedAt: row.AcceptedAt, LastErrorAt: row.RejectedAt, FailuresInRow: int(row.FailuresInRow)}
	h.LastDeliveryAt = latest(row.AcceptedAt, row.RejectedAt)
	if row.RejectedStatus != nil {
		e := fmt.Sprintf("status %d %s", *row.RejectedStatus, http.StatusText(int(*row.RejectedStatus)))
		h.LastError = &e
	}
	switch {
	case ep.DisabledAt != nil:
		h.State = StateDisabled
		h.Action = "It receives nothing. Fix the receiver (or register its new URL and delete this one), then enable it; " +
			"events of the time it was disabled are not sent."
	case h.FailuresInRow > 0:
		h.State = StateFailing
		h.Action = fmt.Sprintf("Its receiver rejected the last %s with %s: check the URL and the receiver "+
			"(a 404 is usually a wrong path; register the right URL and delete this one). "+
			"Rejected events are not sent again unless an operator replays them.", deliveries(h.FailuresInRow), *h.LastError)
	case h.LastAcceptedAt != nil:
		h.State = StateHealthy
	default:
		h.State = StateUnused
	}
	return h
}

// deliveries is "1 delivery", "3 deliveries", "100 or more deliveries".
func deliveries(n int) string {
	switch {
	case n == 1:
		return "1 delivery"
	case n >= FailuresCounted:
		return fmt.Sprintf("%d or more deliveries", n)
	}
	return fmt.Sprintf("%d deliveries", n)
}

// latest is the later of a and b, either of which may be null.
func latest(a, b *time.Time) *time.Time {
	switch {
	case a == nil:
		return b
	case b == nil || a.After(*b):
		return a
	}
	return b
}
