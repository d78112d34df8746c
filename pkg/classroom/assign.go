package classroom

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// MaxDueDays bounds how far ahead of now an assignment may be due.
const MaxDueDays = 366

// Assignment is a deck given to a learner by a teacher, as the teacher
// sees it when it is made.
type Assignment struct {
	ID        uuid.UUID `json:"id"`
	DeckID    uuid.UUID `json:"deck_id"`
	LearnerID uuid.UUID `json:"learner_id"`
	TeacherID uuid.UUID `json:"teacher_id"`
	DueAt     time.Time `json:"due_at"`
	// Cards is the number of lexemes in the deck; the learner has a card for each.
	Cards int `json:"cards"`
	// NewCards is how many of those cards this assignment created; the others
	// already existed, from another deck, and keep their schedule.
	NewCards int `json:"new_cards"`
	// CompletedAt is set when every card was already learned (in the Review
	// state) at creation, because the learner met the words in other decks.
	CompletedAt *time.Time `json:"completed_at"`
}

// AssignRequest asks for a deck to be assigned to a learner, due at DueAt.
type AssignRequest struct {
	LearnerID, DeckID uuid.UUID
	DueAt             time.Time
}

// CheckDue returns ErrDueOutOfRange unless due is after now and at most
// MaxDueDays (calendar days) after it.
func CheckDue(due, now time.Time) error {
	if !due.After(now) || due.After(now.AddDate(0, 0, MaxDueDays)) {
		return ErrDueOutOfRange
	}
	return nil
}

// Assign assigns req.DeckID to req.LearnerID for teacher teacherID, in tx:
// it stores the assignment, creates the learner's missing cards (due now)
// and answers the events assignment.created, reminder.due_soon (delayed to
// events.DueSoonLead before the due date) and, when the learner already
// knows every word from other decks, assignment.completed. The due date is
// kept at microseconds, as the database stores it. Errors: ErrDueOutOfRange
// (CheckDue), ErrLearnerNotFound when the learner is not in one of the
// teacher's classes, ErrDeckNotFound, ErrAlreadyAssigned.
func (c Classroom) Assign(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req AssignRequest) (Assignment, events.Batch, error) {
	req.DueAt = req.DueAt.Truncate(time.Microsecond)
	if err := CheckDue(req.DueAt, c.clock.Now()); err != nil {
		return Assignment{}, events.Batch{}, err
	}
	// Locking the learner's row serialises the learner's writes, so the
	// outbox ids of one learner's events follow commit order.
	_, err := store.On(tx).LockLearnerOfTeacher(ctx, req.LearnerID, account.Learner, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return Assignment{}, events.Batch{}, ErrLearnerNotFound
	}
	if err != nil {
		return Assignment{}, events.Batch{}, fmt.Errorf("lock learner: %w", err)
	}
	batch := events.NewBatch(req.LearnerID.String())
	a, err := c.assign(ctx, tx, teacherID, req, &batch)
	return a, batch, err
}

// assign stores the assignment of req.DeckID to req.LearnerID by teacherID,
// creates the learner's missing cards (the scheduler's new card, due now),
// and adds its events to batch (see Assign). The caller has locked the
// learner's row and checked that the teacher may assign to them.
func (c Classroom) assign(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req AssignRequest, batch *events.Batch) (Assignment, error) {
	assignments, cards := store.On(tx), store.On(tx)
	a := Assignment{DeckID: req.DeckID, LearnerID: req.LearnerID, TeacherID: teacherID, DueAt: req.DueAt.UTC()}
	var err error
	a.ID, err = assignments.InsertAssignment(ctx, req.LearnerID, teacherID, a.DueAt, req.DeckID)
	switch err = store.Classify(err); {
	case errors.Is(err, store.ErrNotFound):
		return Assignment{}, ErrDeckNotFound
	case errors.Is(err, store.ErrDuplicate):
		return Assignment{}, ErrAlreadyAssigned
	case err != nil:
		return Assignment{}, fmt.Errorf("insert assignment: %w", err)
	}
	fresh := c.scheduler.NewCard()
	made, err := cards.CreateCards(ctx, store.CreateCardsParams{DeckID: req.DeckID, LearnerID: req.LearnerID,
		State: int16(fresh.State), Due: fresh.Due, Stability: fresh.Stability, Difficulty: fresh.Difficulty, Step: int32(fresh.Step)})
	if err != nil {
		return Assignment{}, fmt.Errorf("create cards: %w", err)
	}
	a.Cards, a.NewCards = int(made.Cards), int(made.Created)
	known, err := cards.CountKnownCards(ctx, learning.Review, req.LearnerID, req.DeckID)
	if err != nil {
		return Assignment{}, fmt.Errorf("count known cards: %w", err)
	}
	batch.Add(events.AssignmentCreated, events.AssignmentCreatedPayload{AssignmentID: a.ID, DeckID: a.DeckID,
		LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, Cards: a.Cards,
		CardsSeen: int(known.Seen), CardsLearned: int(known.Learned)})
	if remindAt := a.DueAt.Add(-events.DueSoonLead); remindAt.After(c.clock.Now()) {
		batch.AddAt(events.ReminderDueSoon, events.ReminderDueSoonPayload{
			AssignmentID: a.ID, LearnerID: a.LearnerID, DueAt: a.DueAt}, remindAt)
	}
	if a.Cards == 0 || int(known.Learned) != a.Cards {
		return a, nil
	}
	now := c.clock.Now()
	if err := assignments.MarkAssignmentCompleted(ctx, now, a.ID); err != nil {
		return Assignment{}, fmt.Errorf("complete assignment: %w", err)
	}
	a.CompletedAt = &now
	batch.Add(events.AssignmentCompleted, events.AssignmentCompletedPayload{
		AssignmentID: a.ID, DeckID: a.DeckID, LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, CompletedAt: now,
	})
	return a, nil
}
