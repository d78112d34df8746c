package consumers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/reminders"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/schema"
)

// currentLink returns the chain's current reminder event, as a delivery to
// the reminder email.
func (b bundle) currentLink(t *testing.T) outbox.Delivery {
	t.Helper()
	var e outbox.Event
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT e.event_id, e.topic, e.ordering_key, e.payload
		FROM learner_reminders r JOIN outbox_events e ON e.event_id = r.event_id WHERE r.learner_id = $1`,
		b.learner.ID).Scan(&e.ID, &e.Topic, &e.OrderingKey, &e.Payload))
	return outbox.Delivery{ID: 1, Subscriber: events.SubscriberReminder, Attempt: 1, Event: e}
}

// chainDelivery is d delivered to the reminder chain instead.
func chainDelivery(d outbox.Delivery) outbox.Delivery {
	d.Subscriber = events.SubscriberReminderChain
	return d
}

// startChain makes every card of the learner's assignments due and starts
// their reminder chain afresh at start (rather than from the chain the seed
// started), twice: the second start adds nothing.
func (b bundle) startChain(t *testing.T, start time.Time) {
	t.Helper()
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `INSERT INTO cards (learner_id, lexeme_id, due)
		SELECT a.learner_id, di.lexeme_id, '2026-01-01' FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, "DELETE FROM learner_reminders; DELETE FROM outbox_events WHERE topic = 'reminder.daily'")
	require.NoError(t, err)
	ob := events.NewOutbox()
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if err := reminders.Start(ctx, tx, ob, b.learner.ID, b.learner.Timezone, start); err != nil {
			return err
		}
		return reminders.Start(ctx, tx, ob, b.learner.ID, b.learner.Timezone, start) // a second start adds nothing
	}))
	require.Equal(t, 1, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReminderDaily))
}

func TestDailyReminderOnlyWhenTheLearnerHasNotStudied(t *testing.T) {
	ctx, b := setup(t)
	b.startChain(t, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)) // 10:00 in Paris, Mia's zone
	// The clock reads a minute past each reminder's time.
	clock := clocktest.New(time.Time{})
	deps := b.deps
	deps.Clock = clock
	handlers := Handlers(deps)
	// Each link goes to both subscribers of reminder.daily.
	handle := func(d outbox.Delivery) error {
		if err := handlers[events.SubscriberReminder].Handle(ctx, d); err != nil {
			return err
		}
		return handlers[events.SubscriberReminderChain].Handle(ctx, chainDelivery(d))
	}

	first := b.currentLink(t)
	var p events.ReminderDailyPayload
	require.NoError(t, json.Unmarshal(first.Event.Payload, &p))
	require.Equal(t, time.Date(2026, 3, 2, 17, 0, 0, 0, time.UTC), p.At.UTC(), "18:00 in Paris")
	clock.Set(p.At.Add(time.Minute))
	require.NoError(t, handle(first))
	msgs, err := b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "not studied: reminded")
	require.Contains(t, msgs[0].Subject, "words are waiting")

	second := b.currentLink(t)
	require.NotEqual(t, first.Event.ID, second.Event.ID, "the reminder scheduled the next one")
	require.NoError(t, json.Unmarshal(second.Event.Payload, &p))
	require.Equal(t, time.Date(2026, 3, 3, 17, 0, 0, 0, time.UTC), p.At.UTC())
	clock.Set(p.At.Add(time.Minute))
	// The learner studied at 08:00 in Paris; the activity subscriber, behind
	// or blocked by a dead letter, has not written learner_daily_activity.
	_, err = b.pool.Exec(ctx, `INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before,
		state_after, due_after, stability, difficulty, elapsed_days, scheduled_days, reviewed_at)
		SELECT id, learner_id, 3, 0, due, 1, due, 2.3, 2.1, 0, 0, '2026-03-03T08:00:00+01:00'
		FROM cards WHERE learner_id = $1 LIMIT 1`, b.learner.ID)
	require.NoError(t, err)
	require.Zero(t, countRows(t, b, "SELECT count(*) FROM learner_daily_activity WHERE learner_id = $1", b.learner.ID))
	require.NoError(t, handle(second))
	msgs, err = b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "studied that day (the review log says so): no reminder")
	require.NotEqual(t, second.Event.ID, b.currentLink(t).Event.ID, "the chain goes on")

	// After an outage, a reminder a day late is not sent, and the chain
	// resumes from now rather than sending one per missed day.
	third := b.currentLink(t)
	require.NoError(t, json.Unmarshal(third.Event.Payload, &p))
	clock.Set(p.At.Add(30 * time.Hour))
	require.NoError(t, handle(third))
	msgs, err = b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "a stale reminder is not sent")
	require.NoError(t, json.Unmarshal(b.currentLink(t).Event.Payload, &p))
	require.True(t, p.At.After(clock.Now()), "the next link is after now")

	stray := first
	stray.Event.ID = uuid.New()
	require.NoError(t, handle(stray))
	require.Equal(t, 4, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReminderDaily),
		"a link that is not the current one ends its chain")
}

// The chain and the email are separate subscribers of reminder.daily: the
// chain goes on while the SMTP server refuses, and the email goes out while
// the chain's transaction fails.
func TestReminderChainAndEmailFailIndependently(t *testing.T) {
	ctx, b := setup(t)
	b.startChain(t, time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	first := b.currentLink(t)
	var p events.ReminderDailyPayload
	require.NoError(t, json.Unmarshal(first.Event.Payload, &p))
	deps := b.deps
	deps.Clock = clocktest.New(p.At.Add(time.Minute))
	down, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: 1, TLS: "none", From: "x@lexora.app", Timeout: time.Second})
	require.NoError(t, err)
	broken := deps
	broken.Mail = down

	require.Error(t, Handlers(broken)[events.SubscriberReminder].Handle(ctx, first), "the SMTP server refuses")
	require.NoError(t, Handlers(broken)[events.SubscriberReminderChain].Handle(ctx, chainDelivery(first)))
	second := b.currentLink(t)
	require.NotEqual(t, first.Event.ID, second.Event.ID, "the chain went on without the email")
	require.Equal(t, 2, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReminderDaily))

	_, err = b.pool.Exec(ctx, `CREATE FUNCTION refuse_reminders() RETURNS trigger LANGUAGE plpgsql AS
		$$BEGIN RAISE EXCEPTION 'reminder chain refused'; END$$;
		CREATE TRIGGER refuse_reminders BEFORE UPDATE ON learner_reminders FOR EACH ROW EXECUTE FUNCTION refuse_reminders()`)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(second.Event.Payload, &p))
	deps.Clock = clocktest.New(p.At.Add(time.Minute))
	require.ErrorContains(t, Handlers(deps)[events.SubscriberReminderChain].Handle(ctx, chainDelivery(second)), "reminder chain refused")
	require.NoError(t, Handlers(deps)[events.SubscriberReminder].Handle(ctx, second))
	msgs, err := b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "the email went out without the chain")
	require.Equal(t, MessageID(second.Event, events.SubscriberReminder), msgs[0].MessageID)
	require.Equal(t, second.Event.ID, b.currentLink(t).Event.ID, "the failed chain scheduled nothing")
	require.Equal(t, 2, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReminderDaily))
}

func countRows(t *testing.T, b bundle, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// Chains in flight when the reminder-chain subscriber was added have their
// current link delivered to it: migration 00016 adds the deliveries that
// enqueueing under the old routing did not create.
func TestMigrationGivesChainsInFlightTheirChainDelivery(t *testing.T) {
	ctx, b := setup(t) // the seed started a chain per demo learner
	db := stdlib.OpenDBFromPool(b.pool)
	defer func() { require.NoError(t, db.Close()) }()
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 15)
	require.NoError(t, err)
	require.Zero(t, countRows(t, b, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = $1", events.SubscriberReminderChain),
		"as enqueued before the subscriber existed")
	_, err = p.Up(ctx)
	require.NoError(t, err)
	require.Equal(t, len(seed.Learners), countRows(t, b, `SELECT count(*) FROM learner_reminders r
		JOIN outbox_events e ON e.event_id = r.event_id
		JOIN outbox_deliveries d ON d.event_id = e.id AND d.subscriber = $1 AND d.state = 'pending' AND d.available_at = e.not_before`,
		events.SubscriberReminderChain), "each current link waits for the chain, until it is due")
}
