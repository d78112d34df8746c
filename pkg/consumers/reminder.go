package consumers

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/reminders"
	"github.com/lexora-app/lexora/pkg/store"
)

// ReminderChain keeps each learner's daily reminder chain going: on
// reminder.daily it schedules the next link (see pkg/reminders) in the
// learner's zone. It is its own subscriber so that the chain goes on when
// the reminder's email fails or is not sent, and the email goes out when
// the chain fails. A link that is not the chain's current one schedules
// nothing, which ends a stray second chain; a learner who no longer
// exists ends theirs.
type ReminderChain struct {
	pool   *pgxpool.Pool
	outbox *outbox.Outbox
	clock  clock.Clock
}

// Handle schedules the link after the delivery's. It returns a permanent
// error for a topic other than reminder.daily or an undecodable payload.
func (r *ReminderChain) Handle(ctx context.Context, d outbox.Delivery) error {
	if d.Event.Topic != events.ReminderDaily {
		return unexpectedTopic(d)
	}
	p, err := decode[events.ReminderDailyPayload](d)
	if err != nil {
		return err
	}
	return outbox.HandleOnce(ctx, r.pool, d, func(tx pgx.Tx) error {
		tz, err := store.On(tx).Timezone(ctx, p.LearnerID)
		if errors.Is(err, store.ErrNotFound) {
			return nil // the learner is gone: the chain ends
		}
		if err != nil {
			return fmt.Errorf("load learner: %w", err)
		}
		// After an outage the chain resumes from now rather than
		// scheduling one link per missed day.
		after := p.At
		if now := r.clock.Now(); now.After(after) {
			after = now
		}
		_, err = reminders.Continue(ctx, tx, r.outbox, p.LearnerID, tz, d.Event.ID, after)
		return err
	})
}
