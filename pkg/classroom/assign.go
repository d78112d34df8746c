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

// Assignment is a deck given to a learner by a teacher through one of the
// teacher's classes, as the teacher sees it when it is made.
type Assignment struct {
	ID        uuid.UUID
	ClassID   uuid.UUID
	DeckID    uuid.UUID
	LearnerID uuid.UUID
	TeacherID uuid.UUID
	DueAt     time.Time
	// Cards is the number of lexemes in the deck; the learner has a card for each.
	Cards int
	// NewCards is how many of those cards this assignment created; the others
	// already existed, from another deck, and keep their schedule.
	NewCards int
	// CompletedAt is set when every card was already learned (in the Review
	// state) at creation, because the learner met the words in other decks.
	CompletedAt *time.Time
}

// AssignRequest asks for DeckID to be assigned through ClassID, due at
// DueAt, to the class (its current and later members), or only to
// LearnerID when it is not uuid.Nil.
type AssignRequest struct {
	ClassID, DeckID uuid.UUID
	LearnerID       uuid.UUID
	DueAt           time.Time
}

// The outcomes of an assignment for one learner (LearnerOutcome.Status).
const (
	// StatusAssigned: the learner got the deck now.
	StatusAssigned = "assigned"
	// StatusAlreadyAssigned: the class had already given the learner the
	// deck; nothing changed for them.
	StatusAlreadyAssigned = "already_assigned"
)

// ClassAssignment is what an assignment to a class did, learner by learner.
type ClassAssignment struct {
	ClassID uuid.UUID
	DeckID  uuid.UUID
	// DueAt is the due date given, or the one kept when Status is
	// StatusAlreadyAssigned (the class's, or the learner's named).
	DueAt time.Time
	// Status is StatusAssigned when the assignment changed anything: the
	// class got the deck (learners who join before DueAt get it; a deck the
	// class had and that was due already is renewed), or a learner did;
	// StatusAlreadyAssigned when the class and every learner named had it.
	Status   string
	Learners []LearnerOutcome
}

// LearnerOutcome is an assignment's outcome for one learner: Status is
// StatusAssigned, with the new Assignment, or StatusAlreadyAssigned,
// without one.
type LearnerOutcome struct {
	LearnerID  uuid.UUID
	Status     string
	Assignment *Assignment
}

// Assigned counts the learners who got the deck.
func (c ClassAssignment) Assigned() int {
	n := 0
	for _, l := range c.Learners {
		if l.Status == StatusAssigned {
			n++
		}
	}
	return n
}

// EndOfDay is the due time of an assignment due on t's calendar day in
// loc (the teacher's zone): the last second of that day there, 23:59:59
// local, as the teacher's assignment form sends it
// (frontend/src/features/teacher/assign.ts, endOfDay), so that every
// assignment, the seed's and the demo's too, shows 11:59 PM to its teacher.
// On a day that skips or repeats 23:59:59 (a zone's change of offset at
// midnight) it is time.Date's normalisation of that wall time.
func EndOfDay(t time.Time, loc *time.Location) time.Time {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 23, 59, 59, 0, loc)
}

// CheckDue returns ErrDueOutOfRange unless due is after now and at most
// MaxDueDays (calendar days) after it.
func CheckDue(due, now time.Time) error {
	if !due.After(now) || due.After(now.AddDate(0, 0, MaxDueDays)) {
		return ErrDueOutOfRange
	}
	return nil
}

// Assign assigns req.DeckID through teacherID's class req.ClassID, in tx:
// to the class itself (class_decks: learners who join before DueAt get it,
// see Enroll), even when it has no learner yet, and to each of its current
// learners; or, when req.LearnerID is set, to that learner alone (the
// class's decks are left alone). For each learner who does not have the
// deck from this class yet, it stores the assignment, creates the learner's
// missing cards (due now) and adds, under the learner's ordering key, the
// events assignment.created, reminder.due_soon (delayed to
// learning.DueSoonLead before the due date) and, when the learner already
// knows every word from other decks, assignment.completed. The class's row
// is locked first (enrolments to it wait, see Enroll), then the learners'
// rows in id order, which serialises each learner's writes (so their
// outbox ids follow commit order) without deadlocks between two
// assignments. A teacher's own deck is then locked FOR SHARE
// (store.LockDeckForCards) before its entries are read, so that an edit of
// it at the same time (pkg/decks) either gives these learners its new
// entries' cards or comes after their assignment. The due date is kept at
// microseconds, as the database stores it. When nothing changed
// (StatusAlreadyAssigned), the answer's DueAt is the due date kept: the
// class's, or with req.LearnerID that learner's assignment's. Errors:
// ErrDueOutOfRange (CheckDue), ErrClassNotFound when the class is not the
// teacher's, ErrClassArchived (an archived class takes no deck),
// ErrDeckNotFound, ErrDeckArchived (an archived own deck: take
// it out of the archive first), ErrLearnerNotFound when req.LearnerID is
// not a learner of the class.
func (c Classroom) Assign(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req AssignRequest) (ClassAssignment, events.Batch, error) {
	req.DueAt = req.DueAt.Truncate(time.Microsecond)
	if err := CheckDue(req.DueAt, c.clock.Now()); err != nil {
		return ClassAssignment{}, events.Batch{}, err
	}
	q := store.On(tx)
	archivedClass, err := lockClass(ctx, q, teacherID, req.ClassID)
	if err != nil {
		return ClassAssignment{}, events.Batch{}, err
	}
	if archivedClass {
		return ClassAssignment{}, events.Batch{}, ErrClassArchived
	}
	// Before the deck's entries are read: an edit of the deck in progress
	// finishes first (pkg/decks), or waits for this assignment.
	if err := q.LockDeckForCards(ctx, req.DeckID); err != nil {
		return ClassAssignment{}, events.Batch{}, fmt.Errorf("lock deck: %w", err)
	}
	archived, err := q.DeckAssignable(ctx, req.DeckID, teacherID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ClassAssignment{}, events.Batch{}, ErrDeckNotFound
	case err != nil:
		return ClassAssignment{}, events.Batch{}, fmt.Errorf("load deck: %w", err)
	case archived:
		return ClassAssignment{}, events.Batch{}, ErrDeckArchived
	}
	out := ClassAssignment{ClassID: req.ClassID, DeckID: req.DeckID, DueAt: req.DueAt.UTC(), Status: StatusAlreadyAssigned}
	var only *uuid.UUID
	if req.LearnerID != uuid.Nil {
		only = &req.LearnerID
	} else if out, err = c.assignClass(ctx, q, out); err != nil {
		return ClassAssignment{}, events.Batch{}, err
	}
	learners, err := q.LockClassLearners(ctx, req.ClassID, account.Learner, only)
	switch {
	case err != nil:
		return ClassAssignment{}, events.Batch{}, fmt.Errorf("lock learners: %w", err)
	case len(learners) == 0 && only != nil:
		return ClassAssignment{}, events.Batch{}, ErrLearnerNotFound
	}
	out, batch, err := c.assignLearners(ctx, tx, teacherID, req, out, learners)
	if err != nil || only == nil || out.Status == StatusAssigned {
		return out, batch, err
	}
	due, err := q.AssignmentDue(ctx, req.ClassID, req.LearnerID, req.DeckID) // the learner keeps theirs
	if err != nil {
		return ClassAssignment{}, events.Batch{}, fmt.Errorf("load the assignment's due date: %w", err)
	}
	out.DueAt = due.UTC()
	return out, batch, nil
}

// assignClass gives out.DeckID to the class out.ClassID, due at out.DueAt
// (store.AssignClassDeck); out.Status becomes StatusAssigned when the class
// got it or renewed it. A class that has the deck, not yet due, keeps it
// as it was: out.DueAt becomes the due date it keeps.
func (c Classroom) assignClass(ctx context.Context, q *store.Queries, out ClassAssignment) (ClassAssignment, error) {
	_, err := q.AssignClassDeck(ctx, out.ClassID, out.DeckID, out.DueAt, c.clock.NowOrNil())
	switch {
	case err == nil:
		out.Status = StatusAssigned
		return out, nil
	case !errors.Is(err, store.ErrNotFound): // not found: the class has the deck, not yet due
		return ClassAssignment{}, fmt.Errorf("assign to the class: %w", err)
	}
	due, err := q.ClassDeckDue(ctx, out.ClassID, out.DeckID)
	if err != nil {
		return ClassAssignment{}, fmt.Errorf("load the class's due date: %w", err)
	}
	out.DueAt = due.UTC()
	return out, nil
}

// assignLearners assigns req.DeckID to each of learners (locked, in the
// class) and adds their outcomes to out; out.Status becomes StatusAssigned
// when any of them got the deck. Each learner's events keep the learner's
// ordering key.
func (c Classroom) assignLearners(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req AssignRequest, out ClassAssignment,
	learners []uuid.UUID) (ClassAssignment, events.Batch, error) {
	out.Learners = make([]LearnerOutcome, 0, len(learners))
	var all events.Batch
	for _, l := range learners {
		req.LearnerID = l
		batch := events.NewBatch(l.String())
		a, err := c.assign(ctx, tx, teacherID, req, &batch)
		switch {
		case errors.Is(err, ErrAlreadyAssigned):
			out.Learners = append(out.Learners, LearnerOutcome{LearnerID: l, Status: StatusAlreadyAssigned})
		case err != nil:
			return ClassAssignment{}, events.Batch{}, err
		default:
			out.Learners = append(out.Learners, LearnerOutcome{LearnerID: l, Status: StatusAssigned, Assignment: &a})
			out.Status = StatusAssigned
			all.Join(batch)
		}
	}
	return out, all, nil
}

// assign stores the assignment of req.DeckID to req.LearnerID through
// teacherID's class req.ClassID, creates the learner's missing cards (the
// scheduler's new card, due now), and adds its events to batch (see
// Assign). The caller has locked the learner's row and the deck
// (store.LockDeckForCards) and checked that the learner is in the class
// and that the teacher may assign the deck;
// ErrAlreadyAssigned when the class already gave the learner the deck.
func (c Classroom) assign(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req AssignRequest, batch *events.Batch) (Assignment, error) {
	assignments, cards := store.On(tx), store.On(tx)
	a := Assignment{ClassID: req.ClassID, DeckID: req.DeckID, LearnerID: req.LearnerID, TeacherID: teacherID, DueAt: req.DueAt.UTC()}
	var err error
	a.ID, err = assignments.InsertAssignment(ctx, store.InsertAssignmentParams{
		ClassID: req.ClassID, LearnerID: req.LearnerID, TeacherID: teacherID, DueAt: a.DueAt, DeckID: req.DeckID})
	switch {
	case errors.Is(err, store.ErrNotFound):
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
	batch.Add(events.AssignmentCreatedPayload{Assignment: a.event(), Cards: a.Cards,
		CardsSeen: int(known.Seen), CardsLearned: int(known.Learned)})
	if remindAt := a.DueAt.Add(-learning.DueSoonLead); remindAt.After(c.clock.Now()) {
		batch.AddAt(events.ReminderDueSoonPayload{
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
	batch.Add(events.AssignmentCompletedPayload{Assignment: a.event(), CompletedAt: now})
	return a, nil
}

// event is what the assignment events say of a.
func (a Assignment) event() events.Assignment {
	return events.Assignment{AssignmentID: a.ID, DeckID: a.DeckID, LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt}
}
