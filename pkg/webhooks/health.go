package webhooks

import (
	"fmt"
	"net/http"
	"time"

	"github.com/lexora-app/lexora/pkg/platform/text"
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
	// StateFailing: every attempt since the last delivery it accepted (or
	// all of them) failed: its receiver rejected the event (4xx), or gave
	// no answer the outbox takes (5xx, 429, 408, a timeout, a network
	// error; retried with backoff).
	StateFailing = "failing"
	// StateDisabled: it receives nothing: its receiver answered 410 Gone,
	// or it was disabled as a duplicate.
	StateDisabled = "disabled"
)

// Health is what the deliveries to an endpoint say of it, read from its
// recorded answers (webhook_attempts: each event it accepted with a 2xx or
// rejected with a 4xx) and its transient failures (a 5xx, 429 or 408, a
// timeout or a network error, counted on the endpoint: the outbox retries
// those deliveries with backoff and, after their last attempt, lists them
// as dead letters for the operator).
type Health struct {
	State string
	// LastDeliveryAt is the latest attempt, accepted, rejected or failed;
	// null before the first.
	LastDeliveryAt *time.Time
	// LastAcceptedAt is the latest 2xx; null when it never accepted one.
	LastAcceptedAt *time.Time
	// LastError is the latest failure, a rejection ("status 404 Not
	// Found") or a transient one ("status 503 Service Unavailable", "timed
	// out after 10s", "connection refused"), and LastErrorAt when it came;
	// both null when none failed.
	LastError   *string
	LastErrorAt *time.Time
	// LastErrorRetried: LastError is a transient failure, which the outbox
	// retries with backoff (not a rejection).
	LastErrorRetried bool
	// FailuresInRow counts the failed attempts since the latest 2xx (all
	// of them when there was none): the events rejected and each transient
	// failure, at most FailuresCounted.
	FailuresInRow int
	// Action is what the teacher does about it, one sentence; "" when
	// nothing is to be done.
	Action string
}

// health is the Health of ep from its attempts row and its transient
// failures.
func health(ep store.WebhookEndpoint, row store.EndpointHealthRow) Health {
	h := Health{LastAcceptedAt: row.AcceptedAt, LastErrorAt: row.RejectedAt,
		FailuresInRow: min(int(row.FailuresInRow)+int(ep.TransientFailuresInRow), FailuresCounted)}
	if row.RejectedStatus != nil {
		e := fmt.Sprintf("status %d %s", *row.RejectedStatus, http.StatusText(int(*row.RejectedStatus)))
		h.LastError = &e
	}
	if ep.LastTransientErrorAt != nil && latest(ep.LastTransientErrorAt, row.RejectedAt) == ep.LastTransientErrorAt {
		h.LastError, h.LastErrorAt, h.LastErrorRetried = ep.LastTransientError, ep.LastTransientErrorAt, true
	}
	h.LastDeliveryAt = latest(row.AcceptedAt, h.LastErrorAt)
	switch {
	case ep.DisabledAt != nil:
		h.State = StateDisabled
		h.Action = "It receives nothing. Fix the receiver (or register its new URL and delete this one), then enable it; " +
			"events of the time it was disabled are not sent."
	case h.FailuresInRow > 0 && h.LastErrorRetried:
		h.State = StateFailing
		last := "its last attempt"
		if h.FailuresInRow > 1 {
			last = "the last " + attempts(h.FailuresInRow)
		}
		h.Action = fmt.Sprintf("Its receiver failed %s (latest: %s). Lexora retries with backoff; "+
			"check that the receiver is up and answers within the time allowed.", last, *h.LastError)
	case h.FailuresInRow > 0:
		h.State = StateFailing
		h.Action = fmt.Sprintf("Its receiver rejected the last %s with %s: check the URL and the receiver "+
			"(a 404 is usually a wrong path; register the right URL and delete this one). "+
			"Rejected events are not sent again unless an operator replays them.", deliveries(int(row.FailuresInRow)), *h.LastError)
	case h.LastAcceptedAt != nil:
		h.State = StateHealthy
	default:
		h.State = StateUnused
	}
	return h
}

// deliveries is "1 delivery", "3 deliveries", "100 or more deliveries".
func deliveries(n int) string {
	return counted(n, "delivery", "deliveries")
}

// attempts is "3 attempts", "100 or more attempts".
func attempts(n int) string {
	return counted(n, "attempt", "attempts")
}

// counted is text.Count(n, one, many), or "N or more" from FailuresCounted
// on, where the count stops.
func counted(n int, one, many string) string {
	if n >= FailuresCounted {
		return fmt.Sprintf("%d or more %s", n, many)
	}
	return text.Count(n, one, many)
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
