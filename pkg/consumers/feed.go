package consumers

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/store"
)

// Feed writes the learner's feed (learner_feed) from streak.extended,
// achievement.earned and card.leeched: one row per event, keyed by the event
// id. Each row records what it concerns, so that a teacher sees only the
// items of their relation to the learner (GetProgress): the assignment of an
// achievement earned with one, the lexeme of a leech; learner_wide marks the
// items about the learner as a whole (streaks, the other achievements).
type Feed struct {
	pool *pgxpool.Pool
}

var achievementTitles = map[string]string{
	events.AchievementFirstReview:   "First review",
	events.AchievementStreak7:       "Seven days in a row",
	events.AchievementWords100:      "100 words learned",
	events.AchievementFinishedEarly: "Assignment finished early",
}

// Handle adds one feed item. It returns a permanent error for an unexpected
// topic or an undecodable payload.
func (f *Feed) Handle(ctx context.Context, d outbox.Delivery) error {
	var learner uuid.UUID
	var assignment, card *uuid.UUID
	var kind, message string
	var at time.Time
	switch d.Event.Topic {
	case events.StreakExtended:
		p, err := decode[events.StreakExtendedPayload](d)
		if err != nil {
			return err
		}
		learner, kind, at = p.LearnerID, "streak", d.Event.CreatedAt
		message = fmt.Sprintf("%d-day streak", p.Current)
	case events.AchievementEarned:
		p, err := decode[events.AchievementEarnedPayload](d)
		if err != nil {
			return err
		}
		title, ok := achievementTitles[p.Code]
		if !ok {
			title = p.Code
		}
		learner, kind, at, message = p.LearnerID, "achievement", p.EarnedAt, "Achievement: "+title
		assignment = p.AssignmentID
	case events.CardLeeched:
		p, err := decode[events.CardLeechedPayload](d)
		if err != nil {
			return err
		}
		learner, kind, at, card = p.LearnerID, "leech", d.Event.CreatedAt, &p.CardID
		message = fmt.Sprintf("%q is suspended after %d lapses: review it with your teacher", p.Lemma, p.Lapses)
	case events.LearnerParametersChanged:
		p, err := decode[events.LearnerParametersChangedPayload](d)
		if err != nil {
			return err
		}
		learner, kind, at = p.LearnerID, "parameters", p.FittedAt
		message = "Your reviews are now scheduled from your own memory model, fitted to your reviews"
	default:
		return unexpectedTopic(d)
	}
	return outbox.HandleOnce(ctx, f.pool, d, func(tx pgx.Tx) error {
		return store.On(tx).AddFeedItem(ctx, store.AddFeedItemParams{LearnerID: learner, EventID: d.Event.ID,
			Kind: kind, Message: message, At: at, AssignmentID: assignment, CardID: card})
	})
}
