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
)

// Feed writes the learner's feed (learner_feed) from streak.extended,
// achievement.earned and card.leeched: one row per event, keyed by the event
// id.
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
	var kind, message string
	var at time.Time
	switch d.Event.Topic {
	case events.StreakExtended:
		var p events.StreakExtendedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		learner, kind, at = p.LearnerID, "streak", d.Event.CreatedAt
		message = fmt.Sprintf("%d-day streak", p.Current)
	case events.AchievementEarned:
		var p events.AchievementEarnedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		title, ok := achievementTitles[p.Code]
		if !ok {
			title = p.Code
		}
		learner, kind, at, message = p.LearnerID, "achievement", p.EarnedAt, "Achievement: "+title
	case events.CardLeeched:
		var p events.CardLeechedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		learner, kind, at = p.LearnerID, "leech", d.Event.CreatedAt
		message = fmt.Sprintf("%q is suspended after %d lapses: review it with your teacher", p.Lemma, p.Lapses)
	default:
		return unexpectedTopic(d)
	}
	return outbox.HandleOnce(ctx, f.pool, d, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO learner_feed (learner_id, event_id, kind, message, at) VALUES ($1, $2, $3, $4, $5)`,
			learner, d.Event.ID, kind, message, at)
		return err
	})
}
