package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// MaxReviewAge is how long after a review (made offline) it may still be
// recorded at its own instant.
const MaxReviewAge = 7 * 24 * time.Hour

// ReviewRequest is one rating of one of the learner's cards.
type ReviewRequest struct {
	CardID uuid.UUID
	Rating learning.Rating
	// ReviewedAt, when set, is when the learner made the review (a review
	// made offline and sent later); nil means now.
	ReviewedAt *time.Time
}

// reviewInstant is when a review counts: the clock's now, or req.ReviewedAt
// when set, which must be at most learning.MaxClockAhead ahead of now (a
// client's clock skew; such an instant counts as now, so no card is
// reviewed in the future) and at most MaxReviewAge before it. Errors:
// ErrReviewedInFuture, ErrReviewTooOld.
func (s Study) reviewInstant(req ReviewRequest) (time.Time, error) {
	now := s.clock.Now()
	if req.ReviewedAt == nil {
		return now, nil
	}
	at := req.ReviewedAt.Truncate(learning.Precision)
	switch {
	case at.After(now.Add(learning.MaxClockAhead)):
		return time.Time{}, ErrReviewedInFuture
	case at.Before(now.Add(-MaxReviewAge)):
		return time.Time{}, ErrReviewTooOld
	case at.After(now):
		return now, nil
	}
	return at, nil
}

// CardView is a card's schedule as the client sees it.
type CardView struct {
	ID    uuid.UUID `json:"id"`
	State string    `json:"state"`
	Due   time.Time `json:"due"`
	// Stability is in days; Difficulty in [1, 10].
	Stability     float64 `json:"stability"`
	Difficulty    float64 `json:"difficulty"`
	ScheduledDays uint64  `json:"scheduled_days"`
	Reps          uint64  `json:"reps"`
	Lapses        uint64  `json:"lapses"`
	// Suspended is set when this review made the card a leech.
	Suspended bool `json:"suspended"`
}

// ReviewResult is what a review changed.
type ReviewResult struct {
	ReviewID int64    `json:"review_id"`
	Card     CardView `json:"card"`
	// CompletedAssignments lists the assignments this review completed.
	CompletedAssignments []uuid.UUID `json:"completed_assignments"`
}

// lockedCard is a card as a review loads it (store.LockCard).
type lockedCard struct {
	learning.Card
	id       uuid.UUID
	lexemeID uuid.UUID
	lemma    string
}

// Review records learner's rating of one of their cards, in tx: it locks
// the learner's row and the card, computes the card's next FSRS-6 state
// (learning.Scheduler.Review, at the clock's now, in the learner's zone),
// stores it, appends the review to the log and, for every assignment of the
// learner whose cards have now all reached the Review state, marks it
// completed. The review counts at req.ReviewedAt when set (a review made
// offline: its schedule, study day and completion are computed at that
// instant; see reviewInstant), else at the clock's now. A lapse that brings a Review card to learning.LeechLapses
// suspends it at once (learning state is synchronous).
//
// The batch holds, under the learner's ordering key: review.submitted;
// card.leeched when the card became a leech; assignment.completed for each
// completed assignment.
//
// Errors: ErrCardNotFound when the card is not the learner's; a
// *SuspendedError (ErrSuspended) for a card suspended as a leech;
// ErrReviewedInFuture, ErrReviewTooOld, and ErrBeforeLastReview (an
// instant before the card's last review) for req.ReviewedAt; an invalid
// rating wraps learning.ErrInvalidRating.
func (s Study) Review(ctx context.Context, tx pgx.Tx, learner Learner, req ReviewRequest) (ReviewResult, events.Batch, error) {
	at, err := s.reviewInstant(req)
	if err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	cards := store.New(tx)
	card, err := lockCard(ctx, cards, learner.ID, req.CardID)
	if err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	if req.ReviewedAt != nil && at.Before(card.LastReview) {
		return ReviewResult{}, events.Batch{}, ErrBeforeLastReview
	}
	zone := learning.Zone(learner.Timezone)
	next, rlog, err := s.scheduler.ReviewAt(card.Card, req.Rating, zone, at)
	if err != nil {
		return ReviewResult{}, events.Batch{}, fmt.Errorf("schedule card %s: %w", req.CardID, err)
	}
	// A lapse that brings the card to learning.LeechLapses makes it a leech:
	// suspended at once, announced by card.leeched.
	leech := req.Rating == learning.Again && card.State == learning.Review && next.Lapses >= learning.LeechLapses
	out := ReviewResult{Card: cardView(req.CardID, next), CompletedAssignments: []uuid.UUID{}}
	out.Card.Suspended = leech
	if out.ReviewID, err = s.storeReview(ctx, cards, learner.ID, card, req.Rating, next, rlog, leech); err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	assignments := store.New(tx)
	assignmentIDs, err := assignments.AssignmentsOfLexeme(ctx, learner.ID, card.lexemeID)
	if err != nil {
		return ReviewResult{}, events.Batch{}, fmt.Errorf("find assignments: %w", err)
	}
	batch := events.NewBatch(learner.ID.String())
	batch.Add(events.ReviewSubmitted, events.ReviewSubmittedPayload{
		ReviewID: out.ReviewID, CardID: req.CardID, LearnerID: learner.ID, LexemeID: card.lexemeID, Rating: int(req.Rating),
		StateBefore: int(card.State), StateAfter: int(next.State), ReviewedAt: rlog.Reviewed,
		Due: next.Due, AssignmentIDs: assignmentIDs,
		StudyDay: learning.StudyDay(rlog.Reviewed, zone),
	})
	if leech {
		batch.Add(events.CardLeeched, events.CardLeechedPayload{
			CardID: req.CardID, LearnerID: learner.ID, Lemma: card.lemma, Lapses: int(next.Lapses)})
	}
	if next.State == learning.Review || leech {
		if out.CompletedAssignments, err = complete(ctx, assignments, assignmentIDs, rlog.Reviewed, &batch); err != nil {
			return ReviewResult{}, events.Batch{}, err
		}
	}
	return out, batch, nil
}

// lockCard locks the learner's row, then their card cardID
// (store.LockCard). Errors: ErrCardNotFound, *SuspendedError.
func lockCard(ctx context.Context, cards *store.Queries, learnerID, cardID uuid.UUID) (lockedCard, error) {
	row, err := cards.LockCard(ctx, cardID, learnerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return lockedCard{}, ErrCardNotFound
	}
	if err != nil {
		return lockedCard{}, fmt.Errorf("load card: %w", err)
	}
	if row.Suspended {
		return lockedCard{}, &SuspendedError{Lapses: int(row.Lapses)}
	}
	c := lockedCard{id: cardID, lexemeID: row.LexemeID, lemma: row.Lemma, Card: learning.Card{State: row.State, Due: row.Due,
		Stability: row.Stability, Difficulty: row.Difficulty, ElapsedDays: uint64(row.ElapsedDays),
		ScheduledDays: uint64(row.ScheduledDays), Reps: uint64(row.Reps), Lapses: uint64(row.Lapses), Step: int(row.Step)}}
	if row.LastReview != nil {
		c.LastReview = *row.LastReview
	}
	return c, nil
}

// storeReview writes the card's next state (suspended when leech) and
// appends the review to the log; it returns the review's id.
func (s Study) storeReview(ctx context.Context, cards *store.Queries, learnerID uuid.UUID, before lockedCard,
	rating learning.Rating, next learning.Card, rlog learning.ReviewLog, leech bool) (int64, error) {
	if err := cards.UpdateCard(ctx, store.UpdateCardParams{CardID: before.id, State: next.State, Due: next.Due,
		Stability: next.Stability, Difficulty: next.Difficulty, ElapsedDays: int32(next.ElapsedDays),
		ScheduledDays: int32(next.ScheduledDays), Reps: int32(next.Reps), Lapses: int32(next.Lapses), Step: int32(next.Step),
		LastReview: &next.LastReview, Suspended: leech, Now: s.clock.NowOrNil()}); err != nil {
		return 0, fmt.Errorf("update card: %w", err)
	}
	id, err := cards.AppendReview(ctx, store.AppendReviewParams{CardID: before.id, LearnerID: learnerID, Rating: rating,
		StateBefore: before.State, DueBefore: before.Due, StateAfter: next.State, DueAfter: next.Due,
		Stability: next.Stability, Difficulty: next.Difficulty, ElapsedDays: int32(next.ElapsedDays),
		ScheduledDays: int32(next.ScheduledDays), ReviewedAt: rlog.Reviewed})
	if err != nil {
		return 0, fmt.Errorf("append review: %w", err)
	}
	return id, nil
}

// complete marks completed, at at, each of the assignments ids whose cards
// are now all in the Review state (store.CompleteAssignments),
// adds assignment.completed for each to batch and returns their ids.
func complete(ctx context.Context, assignments *store.Queries, ids []uuid.UUID, at time.Time, batch *events.Batch) ([]uuid.UUID, error) {
	completed := []uuid.UUID{}
	if len(ids) == 0 {
		return completed, nil
	}
	done, err := assignments.CompleteAssignments(ctx, at, ids, learning.Review)
	if err != nil {
		return nil, fmt.Errorf("complete assignments: %w", err)
	}
	for _, a := range done {
		batch.Add(events.AssignmentCompleted, events.AssignmentCompletedPayload{AssignmentID: a.ID, DeckID: a.DeckID,
			LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, CompletedAt: at})
		completed = append(completed, a.ID)
	}
	return completed, nil
}

func cardView(id uuid.UUID, c learning.Card) CardView {
	return CardView{ID: id, State: c.State.String(), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		ScheduledDays: c.ScheduledDays, Reps: c.Reps, Lapses: c.Lapses}
}
