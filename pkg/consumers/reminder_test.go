package consumers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/reminders"
)

// currentLink returns the chain's current reminder event, as a delivery.
func (b bundle) currentLink(t *testing.T) outbox.Delivery {
	t.Helper()
	var e outbox.Event
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT e.event_id, e.topic, e.ordering_key, e.payload
		FROM learner_reminders r JOIN outbox_events e ON e.event_id = r.event_id WHERE r.learner_id = $1`,
		b.learner.ID).Scan(&e.ID, &e.Topic, &e.OrderingKey, &e.Payload))
	return outbox.Delivery{ID: 1, Subscriber: events.SubscriberReminder, Attempt: 1, Event: e}
}

func TestDailyReminderOnlyWhenTheLearnerHasNotStudied(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `INSERT INTO cards (learner_id, lexeme_id, due)
		SELECT a.learner_id, di.lexeme_id, '2026-01-01' FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id`)
	require.NoError(t, err)
	// Start afresh rather than from the chains the seed started.
	_, err = b.pool.Exec(ctx, "DELETE FROM learner_reminders; DELETE FROM outbox_events WHERE topic = 'reminder.daily'")
	require.NoError(t, err)
	ob := events.NewOutbox()
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // 10:00 in Paris, Mia's zone
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		if err := reminders.Start(ctx, tx, ob, b.learner.ID, b.learner.Timezone, start); err != nil {
			return err
		}
		return reminders.Start(ctx, tx, ob, b.learner.ID, b.learner.Timezone, start) // a second start adds nothing
	}))
	require.Equal(t, 1, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReminderDaily))
	// The clock reads a minute past each reminder's time.
	var clock time.Time
	deps := b.deps
	deps.Now = func() time.Time { return clock }
	h := Handlers(deps)[events.SubscriberReminder]

	first := b.currentLink(t)
	var p events.ReminderDailyPayload
	require.NoError(t, json.Unmarshal(first.Event.Payload, &p))
	require.Equal(t, time.Date(2026, 3, 2, 17, 0, 0, 0, time.UTC), p.At.UTC(), "18:00 in Paris")
	clock = p.At.Add(time.Minute)
	require.NoError(t, h.Handle(ctx, first))
	msgs, err := b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "not studied: reminded")
	require.Contains(t, msgs[0].Subject, "words are waiting")

	second := b.currentLink(t)
	require.NotEqual(t, first.Event.ID, second.Event.ID, "the reminder scheduled the next one")
	require.NoError(t, json.Unmarshal(second.Event.Payload, &p))
	require.Equal(t, time.Date(2026, 3, 3, 17, 0, 0, 0, time.UTC), p.At.UTC())
	clock = p.At.Add(time.Minute)
	// The learner studied at 08:00 in Paris; the activity subscriber, behind
	// or blocked by a dead letter, has not written learner_daily_activity.
	_, err = b.pool.Exec(ctx, `INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before,
		state_after, due_after, stability, difficulty, elapsed_days, scheduled_days, reviewed_at)
		SELECT id, learner_id, 3, 0, due, 1, due, 2.3, 2.1, 0, 0, '2026-03-03T08:00:00+01:00'
		FROM cards WHERE learner_id = $1 LIMIT 1`, b.learner.ID)
	require.NoError(t, err)
	require.Zero(t, countRows(t, b, "SELECT count(*) FROM learner_daily_activity WHERE learner_id = $1", b.learner.ID))
	require.NoError(t, h.Handle(ctx, second))
	msgs, err = b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "studied that day (the review log says so): no reminder")
	require.NotEqual(t, second.Event.ID, b.currentLink(t).Event.ID, "the chain goes on")

	// After an outage, a reminder a day late is not sent, and the chain
	// resumes from now rather than sending one per missed day.
	third := b.currentLink(t)
	require.NoError(t, json.Unmarshal(third.Event.Payload, &p))
	clock = p.At.Add(30 * time.Hour)
	require.NoError(t, h.Handle(ctx, third))
	msgs, err = b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1, "a stale reminder is not sent")
	require.NoError(t, json.Unmarshal(b.currentLink(t).Event.Payload, &p))
	require.True(t, p.At.After(clock), "the next link is after now")

	stray := first
	stray.Event.ID = uuid.New()
	require.NoError(t, h.Handle(ctx, stray))
	require.Equal(t, 4, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReminderDaily),
		"a link that is not the current one ends its chain")
}

func countRows(t *testing.T, b bundle, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}
