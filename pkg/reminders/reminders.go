// Package reminders keeps each learner's daily study reminder: a chain of
// reminder.daily events, each delayed to learning.DailyReminderHour local
// time and each scheduling the next when the reminder-chain subscriber
// handles it (consumers.ReminderChain). The learner_reminders row
// names the current link, so the chain is single even if scheduling is
// requested twice, and a link that is not the current one ends its chain.
package reminders

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/store"
)

// Start schedules the learner's first daily reminder after the instant
// after, in tx, unless the learner already has a chain. tz is the learner's
// IANA zone (UTC when unknown).
func Start(ctx context.Context, tx pgx.Tx, ob *outbox.Outbox, learner uuid.UUID, tz string, after time.Time) error {
	ev, next, err := link(learner, tz, after)
	if err != nil {
		return err
	}
	started, err := store.On(tx).StartReminderChain(ctx, learner, ev.ID, next)
	if err != nil {
		return fmt.Errorf("start reminders: %w", err)
	}
	if started == 0 {
		return nil
	}
	return ob.Enqueue(ctx, tx, ev)
}

// Continue schedules the link after current, in tx, and reports false
// without scheduling anything when current is not the chain's current link.
func Continue(ctx context.Context, tx pgx.Tx, ob *outbox.Outbox, learner uuid.UUID, tz string, current uuid.UUID, after time.Time) (bool, error) {
	ev, next, err := link(learner, tz, after)
	if err != nil {
		return false, err
	}
	moved, err := store.On(tx).ContinueReminderChain(ctx, ev.ID, next, learner, current)
	if err != nil {
		return false, fmt.Errorf("continue reminders: %w", err)
	}
	if moved == 0 {
		return false, nil
	}
	return true, ob.Enqueue(ctx, tx, ev)
}

func link(learner uuid.UUID, tz string, after time.Time) (outbox.Event, time.Time, error) {
	next := learning.NextDailyReminder(after, learning.Zone(tz))
	ev, err := events.New(learner.String(), events.ReminderDailyPayload{LearnerID: learner, At: next})
	if err != nil {
		return outbox.Event{}, time.Time{}, err
	}
	ev.NotBefore = next
	return ev, next, nil
}
