// Package consumers holds the subscribers that turn Lexora's events into
// their downstream effects: the progress projection, the emails and the
// teachers' webhooks. Each is
// an outbox.Handler keyed by its subscriber name from pkg/events; each is
// idempotent, because the outbox delivers at least once.
package consumers

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// Deps are what the consumers need.
type Deps struct {
	Pool     *pgxpool.Pool
	Mail     mail.Sender
	Webhooks *webhooks.Sender
	Log      *slog.Logger
	// Now is the clock of time-dependent decisions (late reminders);
	// time.Now when nil.
	Now func() time.Time
}

// Handlers returns one handler per subscriber named in events.Subscriptions.
func Handlers(d Deps) map[string]outbox.Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	return map[string]outbox.Handler{
		events.SubscriberProgress:       &Progress{pool: d.Pool},
		events.SubscriberEmail:          &Email{pool: d.Pool, mail: d.Mail},
		events.SubscriberWebhook:        &Webhook{pool: d.Pool, sender: d.Webhooks},
		events.SubscriberActivity:       &Activity{pool: d.Pool, outbox: events.NewOutbox()},
		events.SubscriberFeed:           &Feed{pool: d.Pool},
		events.SubscriberCongratulation: &Email{pool: d.Pool, mail: d.Mail},
		events.SubscriberReminder:       &Email{pool: d.Pool, mail: d.Mail, outbox: events.NewOutbox(), now: d.Now},
	}
}

// decode reads an event payload; a payload that does not decode will never
// decode, so the error is permanent.
func decode(d outbox.Delivery, v any) error {
	if err := json.Unmarshal(d.Event.Payload, v); err != nil {
		return outbox.Permanent(fmt.Errorf("decode %s payload: %w", d.Event.Topic, err))
	}
	return nil
}

func unexpectedTopic(d outbox.Delivery) error {
	return outbox.Permanent(fmt.Errorf("%s does not handle topic %q", d.Subscriber, d.Event.Topic))
}
