package consumers

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
)

// Progress maintains the progress projection (tables assignment_progress and
// assignment_daily_reviews) from assignment.created and review.submitted.
// Its updates are increments, so each event is applied once through
// outbox.HandleOnce; increments commute, so delivery order does not matter.
type Progress struct {
	pool *pgxpool.Pool
}

// Reviews delivered before the creation event left increments in the row;
// the cards' states at creation add to them.
const upsertProgressTotalSQL = `
INSERT INTO assignment_progress (assignment_id, learner_id, cards_total, cards_seen, cards_learned)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (assignment_id) DO UPDATE SET
    cards_total = excluded.cards_total,
    cards_seen = assignment_progress.cards_seen + excluded.cards_seen,
    cards_learned = assignment_progress.cards_learned + excluded.cards_learned,
    updated_at = now()`

// seen: the card left New; learned: +1 on entering Review, -1 on leaving it.
const applyReviewSQL = `
WITH a AS (SELECT unnest($1::uuid[]) AS id),
progress AS (
    INSERT INTO assignment_progress (assignment_id, learner_id, cards_seen, cards_learned, reviews)
    SELECT a.id, $2, $3, $4, 1 FROM a
    ON CONFLICT (assignment_id) DO UPDATE SET
        cards_seen = assignment_progress.cards_seen + excluded.cards_seen,
        cards_learned = assignment_progress.cards_learned + excluded.cards_learned,
        reviews = assignment_progress.reviews + 1,
        updated_at = now())
INSERT INTO assignment_daily_reviews (assignment_id, day, reviews)
SELECT a.id, $5::date, 1 FROM a
ON CONFLICT (assignment_id, day) DO UPDATE SET reviews = assignment_daily_reviews.reviews + 1`

// Handle applies one event to the projection. It returns a permanent error
// for a topic it does not handle or a payload that does not decode.
func (p *Progress) Handle(ctx context.Context, d outbox.Delivery) error {
	switch d.Event.Topic {
	case events.AssignmentCreated:
		var e events.AssignmentCreatedPayload
		if err := decode(d, &e); err != nil {
			return err
		}
		return outbox.HandleOnce(ctx, p.pool, d, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, upsertProgressTotalSQL, e.AssignmentID, e.LearnerID, e.Cards, e.CardsSeen, e.CardsLearned)
			return err
		})
	case events.ReviewSubmitted:
		var e events.ReviewSubmittedPayload
		if err := decode(d, &e); err != nil {
			return err
		}
		if len(e.AssignmentIDs) == 0 {
			return nil
		}
		seen := 0
		if learning.State(e.StateBefore) == learning.New {
			seen = 1
		}
		learned := 0
		before, after := learning.State(e.StateBefore) == learning.Review, learning.State(e.StateAfter) == learning.Review
		switch {
		case after && !before:
			learned = 1
		case before && !after:
			learned = -1
		}
		return outbox.HandleOnce(ctx, p.pool, d, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, applyReviewSQL, e.AssignmentIDs, e.LearnerID, seen, learned, e.LocalDay); err != nil {
				return fmt.Errorf("apply review %d: %w", e.ReviewID, err)
			}
			return nil
		})
	default:
		return unexpectedTopic(d)
	}
}
