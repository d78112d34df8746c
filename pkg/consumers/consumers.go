// Package consumers holds the subscribers that turn Lexora's events into
// their downstream effects: the progress and activity projections, the
// feed, the emails, the daily reminder chain and the teachers' webhooks.
// Each is an outbox.Handler keyed by its subscriber name from pkg/events;
// each is idempotent, because the outbox delivers at least once. Their SQL
// is in package store (pkg/store/queries).
package consumers

import (
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// Deps are what the consumers need.
type Deps struct {
	Pool     *pgxpool.Pool
	Mail     mail.Sender
	Webhooks *webhooks.Sender
	// Clock decides with time: whether a daily reminder is too late to
	// send, from when the reminder chain resumes, whether a rotated
	// webhook secret still signs, and the instants the consumers write
	// (progress updated_at, webhook attempts, disabled endpoints).
	// clock.System when nil.
	Clock clock.Clock
}

// Handlers returns one handler per subscriber named in events.Subscriptions.
func Handlers(d Deps) map[string]outbox.Handler {
	c := d.Clock
	if c == nil {
		c = clock.System{}
	}
	email := &Email{pool: d.Pool, mail: d.Mail, clock: c}
	return map[string]outbox.Handler{
		events.SubscriberProgress:       &Progress{pool: d.Pool, clock: c},
		events.SubscriberEmail:          email,
		events.SubscriberWebhook:        &Webhook{pool: d.Pool, sender: d.Webhooks, clock: c},
		events.SubscriberActivity:       &Activity{pool: d.Pool, outbox: events.NewOutbox()},
		events.SubscriberFeed:           &Feed{pool: d.Pool},
		events.SubscriberCongratulation: email,
		events.SubscriberReminder:       email,
		events.SubscriberReminderChain:  &ReminderChain{pool: d.Pool, outbox: events.NewOutbox(), clock: c},
	}
}

// decode reads d's payload as a T, the payload type of d's topic
// (events.Decode). A payload that does not decode, or one of another topic,
// will never decode, so the error is permanent.
func decode[T events.Payload](d outbox.Delivery) (T, error) {
	p, err := events.Decode[T](d.Event)
	if err != nil {
		return p, outbox.Permanent(err)
	}
	return p, nil
}

func unexpectedTopic(d outbox.Delivery) error {
	return outbox.Permanent(fmt.Errorf("%s does not handle topic %q", d.Subscriber, d.Event.Topic))
}
