package consumers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// Webhook posts each event to the active endpoints of the event's teacher
// (the payload's teacher_id, or each of its teacher_ids) that subscribe to
// its topic.
//
// Each endpoint's outcome is recorded in webhook_attempts: a 2xx is
// accepted, a 4xx other than 410 is rejected (with the delivery's replay
// count), 410 Gone disables the endpoint. A redelivery skips endpoints that
// accepted, and does not post again to those that rejected it since the last
// replay, so a receiver accepts each event once, while an operator's replay
// sends to the endpoints that rejected it again (and can deduplicate on
// webhook-id, the event id, if the process dies between its 2xx and the
// record). No transaction is held across the HTTP call (see deliver). A 5xx,
// 429 or 408, a timeout or a network error leaves no record there and fails
// the delivery, which the outbox retries with backoff; it is counted on the
// endpoint instead (its last transient error and failures in a row, which an
// accepted delivery ends), for its health only: that count changes no
// redelivery, and a failure to write it leaves the delivery retryable.
// When only rejections remain, those
// of this attempt and those recorded by an earlier one of the same replay
// (by endpoints that still exist and are active), the delivery is failed
// permanently, so that it is listed as a dead letter. So a rejection is never
// dropped because the endpoint that was being retried beside it went away.
type Webhook struct {
	pool   *pgxpool.Pool
	sender *webhooks.Sender
	clock  clock.Clock
}

// Handle delivers one event to its teacher's endpoints. See Webhook for the
// errors it returns.
func (h *Webhook) Handle(ctx context.Context, d outbox.Delivery) error {
	teachers, err := owners(d)
	if err != nil {
		return err
	}
	var eps []store.DeliveryEndpointsRow
	for _, teacher := range teachers {
		got, err := store.On(h.pool).DeliveryEndpoints(ctx, store.DeliveryEndpointsParams{TeacherID: teacher,
			Topic: d.Event.Topic, EventID: d.Event.ID, Replays: int32(d.Replays), Now: h.clock.NowOrNil()})
		if err != nil {
			return fmt.Errorf("load webhook endpoints: %w", err)
		}
		eps = append(eps, got...)
	}
	msg := webhooks.Message{Type: d.Event.Topic, Timestamp: d.Event.CreatedAt, Data: json.RawMessage(d.Event.Payload)}
	var retry, rejected []string
	for _, ep := range eps {
		outcome := webhookOutcome{rejected: describe(int(ep.RejectedStatus), nil)}
		if ep.RejectedStatus == 0 {
			if outcome, err = h.deliver(ctx, ep, d, msg); err != nil {
				return err
			}
		}
		switch {
		case outcome.retry != "":
			retry = append(retry, fmt.Sprintf("endpoint %s: %s", ep.ID, outcome.retry))
		case outcome.rejected != "":
			rejected = append(rejected, fmt.Sprintf("endpoint %s: %s", ep.ID, outcome.rejected))
		}
	}
	switch {
	case len(retry) > 0:
		return errors.New(strings.Join(append(retry, rejected...), "; "))
	case len(rejected) > 0:
		return outbox.Permanent(errors.New(strings.Join(rejected, "; ")))
	}
	return nil
}

// owners are the teachers whose endpoints receive d's event. Every topic it
// takes names them, as teacher_id, or, for an event about a learner of
// several teachers' classes (learner.parameters_changed), as teacher_ids
// (possibly empty: nobody to post to); the payload is posted as stored, so
// only those fields are read, whatever the topic. Errors (permanent): an
// undecodable payload, or one that names no teacher_id nor teacher_ids.
func owners(d outbox.Delivery) ([]uuid.UUID, error) {
	var owner struct {
		TeacherID  uuid.UUID    `json:"teacher_id"`
		TeacherIDs *[]uuid.UUID `json:"teacher_ids"`
	}
	if err := json.Unmarshal(d.Event.Payload, &owner); err != nil {
		return nil, outbox.Permanent(fmt.Errorf("decode %s payload: %w", d.Event.Topic, err))
	}
	switch {
	case owner.TeacherIDs != nil:
		return *owner.TeacherIDs, nil
	case owner.TeacherID == uuid.Nil:
		return nil, outbox.Permanent(fmt.Errorf("%s payload has no teacher_id", d.Event.Topic))
	}
	return []uuid.UUID{owner.TeacherID}, nil
}

func describe(status int, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("status %d %s", status, http.StatusText(status))
}

type webhookOutcome struct {
	retry, rejected string
}

// deliver sends one event to one endpoint, outside any transaction so that
// no pooled connection waits on the receiver, then records the outcome in
// one statement. Endpoints already done were left out by DeliveryEndpoints; a
// copy of the delivery running at the same time (a lost lease, whose
// handler the drain cancels) may post again with the same webhook-id, and
// the outcome record is idempotent (an accepted record is never
// overwritten).
func (h *Webhook) deliver(ctx context.Context, ep store.DeliveryEndpointsRow, d outbox.Delivery, msg webhooks.Message) (webhookOutcome, error) {
	var out webhookOutcome
	eventID := d.Event.ID
	status, err := h.sender.Send(ctx, ep.Url, ep.Secrets, eventID.String(), msg)
	switch {
	case err != nil || status >= 500 || status == http.StatusTooManyRequests || status == http.StatusRequestTimeout:
		out.retry = describe(status, err)
		reason := describe(status, nil)
		if err != nil {
			reason = h.sender.Reason(err)
		}
		if ctx.Err() != nil {
			return out, nil // the handler was stopped (a lost lease, a run's end): not the receiver's failure
		}
		// The endpoint's health only: a failure to write it is said in
		// the delivery's error, which stays a retryable one.
		if err := store.On(h.pool).RecordTransientFailure(ctx, reason, h.clock.NowOrNil(), webhooks.FailuresCounted, ep.ID); err != nil {
			out.retry += fmt.Sprintf(" (its health not recorded: %v)", err)
		}
		return out, nil
	case status == http.StatusGone:
		err = store.On(h.pool).DisableEndpoint(ctx, h.clock.NowOrNil(), "the receiver answered 410 Gone", ep.ID)
	default:
		accepted := status >= 200 && status < 300
		if !accepted {
			out.rejected = describe(status, nil)
		}
		err = store.On(h.pool).RecordWebhookAttempt(ctx, store.RecordWebhookAttemptParams{EndpointID: ep.ID, EventID: eventID,
			Status: int32(status), Accepted: accepted, Replays: int32(d.Replays), Now: h.clock.NowOrNil()})
	}
	if err != nil {
		return out, fmt.Errorf("webhook to endpoint %s: %w", ep.ID, err)
	}
	return out, nil
}
