package consumers

import (
	"context"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
)

// Progress maintains the progress projection (tables assignment_progress and
// assignment_daily_reviews) from assignment.created, review.submitted,
// review.undone and deck.entries_changed (a teacher's edit of an assigned
// deck: its assignments' totals, and the removed entries' counts).
// Its updates are increments, so each event is applied once through
// outbox.HandleOnce; increments commute, so delivery order does not matter.
// Each update stamps the row's updated_at with the clock's NowOrNil.
type Progress struct {
	pool  *pgxpool.Pool
	clock clock.Clock
}

// Handle applies one event to the projection. It returns a permanent error
// for a topic it does not handle, a payload that does not decode or a
// malformed local day.
func (p *Progress) Handle(ctx context.Context, d outbox.Delivery) error {
	switch d.Event.Topic {
	case events.AssignmentCreated:
		e, err := decode[events.AssignmentCreatedPayload](d)
		if err != nil {
			return err
		}
		return outbox.HandleOnce(ctx, p.pool, d, func(tx pgx.Tx) error {
			total := int32(e.Cards)
			return store.On(tx).AddToProgress(ctx, store.AddToProgressParams{AssignmentIds: []uuid.UUID{e.AssignmentID},
				LearnerID: e.LearnerID, Total: &total, Seen: int32(e.CardsSeen), Learned: int32(e.CardsLearned), Now: p.clock.NowOrNil()})
		})
	case events.ReviewSubmitted:
		e, err := decode[events.ReviewSubmittedPayload](d)
		if err != nil {
			return err
		}
		if len(e.AssignmentIDs) == 0 {
			return nil
		}
		day, err := studyDay(e.StudyDay)
		if err != nil {
			return err
		}
		seen, learned := stateChange(learning.State(e.StateBefore), learning.State(e.StateAfter))
		return outbox.HandleOnce(ctx, p.pool, d, func(tx pgx.Tx) error {
			err := store.On(tx).AddToProgress(ctx, store.AddToProgressParams{AssignmentIds: e.AssignmentIDs,
				LearnerID: e.LearnerID, Seen: seen, Learned: learned, Reviews: 1, Day: day, Now: p.clock.NowOrNil()})
			if err != nil {
				return fmt.Errorf("apply review %d: %w", e.ReviewID, err)
			}
			return nil
		})
	case events.ReviewUndone:
		return p.takeBack(ctx, d)
	case events.DeckEntriesChanged:
		e, err := decode[events.DeckEntriesChangedPayload](d)
		if err != nil {
			return err
		}
		if len(e.Assignments) == 0 {
			return nil
		}
		return outbox.HandleOnce(ctx, p.pool, d, func(tx pgx.Tx) error {
			for _, a := range e.Assignments {
				total := int32(a.Total) //nolint:gosec // at most a deck's entries
				if err := store.On(tx).AddToProgress(ctx, store.AddToProgressParams{AssignmentIds: []uuid.UUID{a.AssignmentID},
					LearnerID: a.LearnerID, Total: &total, Seen: int32(a.Seen), Learned: int32(a.Learned), Now: p.clock.NowOrNil()}); err != nil { //nolint:gosec // idem
					return fmt.Errorf("apply the edit of deck %s: %w", e.DeckID, err)
				}
			}
			return nil
		})
	default:
		return unexpectedTopic(d)
	}
}
