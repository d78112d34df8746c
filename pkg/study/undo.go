package study

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// UndoRequest names the review to undo: the last review not yet undone of
// the learner's card CardID.
type UndoRequest struct {
	CardID uuid.UUID
	// ReviewID, when set, is the review the learner means to undo (the
	// ReviewResult.ReviewID of its review): the undo happens only if it is
	// still the card's last review not undone, so that it never takes back
	// a later review made on another device.
	ReviewID *int64
}

// UndoResult is what an undo changed.
type UndoResult struct {
	// ReviewID is the undone review; the review log keeps it.
	ReviewID int64
	// Card is the card as restored, its state from before the review;
	// Suspended tells whether it is suspended now (false after undoing the
	// review that made it a leech).
	Card     CardView
	UndoneAt time.Time
}

// Undo takes back the learner's last review not yet undone of one of their
// cards, in tx (docs/architecture.md, "Undoing a review"): it locks the
// learner's row and the card as Review does, restores the card's whole
// state from before the review (FSRS state, due, stability, difficulty,
// elapsed and scheduled days, reps, lapses, step, last review, suspension),
// and records the undo in review_undo at the clock's NowOrNil; the review
// log keeps the review. Called again, it takes back the review before,
// and so on, last first, as far back as the card's reviews go: each
// review's state before it is the state the undo of the one after it
// restored. An assignment the review completed stays completed.
//
// The batch holds review.undone (events.ReviewUndonePayload) under the
// learner's ordering key.
//
// Errors: ErrCardNotFound when the card is not the learner's;
// ErrNothingToUndo for a card without a review; ErrAlreadyUndone when every
// review of the card is undone already, or req.ReviewID is; ErrNotLastReview
// when req.ReviewID is not the card's last review not undone;
// ErrUndoUnavailable for a review recorded before undo existed.
func (s Study) Undo(ctx context.Context, tx pgx.Tx, learner Learner, req UndoRequest) (UndoResult, events.Batch, error) {
	q := store.On(tx)
	card, err := lockCard(ctx, q, learner.ID, req.CardID)
	if err != nil {
		return UndoResult{}, events.Batch{}, err
	}
	last, err := reviewToUndo(ctx, q, req)
	if err != nil {
		return UndoResult{}, events.Batch{}, err
	}
	before, suspended := last.before()
	if err := q.UpdateCard(ctx, cardUpdate(req.CardID, before, suspended, s.clock.NowOrNil())); err != nil {
		return UndoResult{}, events.Batch{}, fmt.Errorf("restore card: %w", err)
	}
	undoneAt, err := q.RecordUndo(ctx, last.ID, req.CardID, learner.ID, s.clock.NowOrNil())
	if err != nil {
		return UndoResult{}, events.Batch{}, fmt.Errorf("record undo: %w", err)
	}
	holding, err := assignmentsOf(ctx, q, learner.ID, card.lexemeID)
	if err != nil {
		return UndoResult{}, events.Batch{}, err
	}
	later := slices.DeleteFunc(holding, func(id uuid.UUID) bool { return slices.Contains(last.AssignmentIds, id) })
	batch := events.NewBatch(learner.ID.String())
	batch.Add(events.ReviewUndonePayload{
		Review: events.Review{ReviewID: last.ID, CardID: req.CardID, LearnerID: learner.ID, LexemeID: card.lexemeID,
			Rating: int(last.Rating), StateBefore: int(last.StateBefore), StateAfter: int(last.StateAfter),
			ReviewedAt: last.ReviewedAt, StudyDay: last.day.Format(time.DateOnly)},
		UndoneAt: undoneAt, AssignmentIDs: last.AssignmentIds, LaterAssignmentIDs: later, Unsuspended: card.suspended && !suspended})
	out := UndoResult{ReviewID: last.ID, Card: cardView(req.CardID, before), UndoneAt: undoneAt}
	out.Card.Suspended = suspended
	return out, batch, nil
}

// undoable is a card's last review not undone, which can be undone: every
// before_* column, the study day and the assignments are set.
type undoable struct {
	store.ReviewToUndoRow
	// day is the review's study day.
	day time.Time
}

// reviewToUndo is the card's last review not undone, if req may undo it
// (see Undo for the errors).
func reviewToUndo(ctx context.Context, q *store.Queries, req UndoRequest) (undoable, error) {
	row, err := q.ReviewToUndo(ctx, req.ReviewID, req.CardID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return undoable{}, ErrNothingToUndo
	case err != nil:
		return undoable{}, fmt.Errorf("load the review to undo: %w", err)
	case row.UndoneAt != nil || row.NamedUndone:
		return undoable{}, ErrAlreadyUndone
	case req.ReviewID != nil && *req.ReviewID != row.ID:
		return undoable{}, ErrNotLastReview
	case row.BeforeReps == nil || row.StudyDay == nil:
		return undoable{}, ErrUndoUnavailable
	}
	if row.AssignmentIds == nil {
		row.AssignmentIds = []uuid.UUID{}
	}
	return undoable{ReviewToUndoRow: row, day: *row.StudyDay}, nil
}

// before is the card's state before the review, and whether it was
// suspended. Its fields are set (reviewToUndo checked them: the schema sets
// them all or none).
func (r undoable) before() (learning.Card, bool) {
	c := learning.Card{State: r.StateBefore, Due: r.DueBefore, Stability: *r.BeforeStability, Difficulty: *r.BeforeDifficulty,
		ElapsedDays: uint64(*r.BeforeElapsedDays), ScheduledDays: uint64(*r.BeforeScheduledDays), Reps: uint64(*r.BeforeReps),
		Lapses: uint64(*r.BeforeLapses), Step: int(*r.BeforeStep)}
	if r.BeforeLastReview != nil {
		c.LastReview = *r.BeforeLastReview
	}
	return c, *r.BeforeSuspended
}

// cardUpdate is the statement's parameters that store card id as c,
// suspended or not, updated at now (nil: the database's now()).
func cardUpdate(id uuid.UUID, c learning.Card, suspended bool, now *time.Time) store.UpdateCardParams {
	p := store.UpdateCardParams{CardID: id, State: c.State, Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		ElapsedDays: int32(c.ElapsedDays), ScheduledDays: int32(c.ScheduledDays), Reps: int32(c.Reps),
		Lapses: int32(c.Lapses), Step: int32(c.Step), Suspended: suspended, Now: now}
	if !c.LastReview.IsZero() {
		p.LastReview = &c.LastReview
	}
	return p
}
