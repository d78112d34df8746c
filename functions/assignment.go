package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/store/assignmentstore"
	"github.com/lexora-app/lexora/pkg/store/cardstore"
	"github.com/lexora-app/lexora/pkg/store/userstore"
)

// CreateAssignmentRequest is the body of CreateAssignment.
type CreateAssignmentRequest struct {
	LearnerID string `json:"learner_id" validate:"required,uuid"`
	DeckID    string `json:"deck_id" validate:"required,uuid"`
	// DueAt is an RFC 3339 instant in the future, at most 366 days ahead.
	DueAt string `json:"due_at" validate:"required,rfc3339"`
}

// maxDueDays bounds how far ahead an assignment may be due.
const maxDueDays = 366

// assignmentInput is a validated CreateAssignmentRequest.
type assignmentInput struct {
	learnerID, deckID uuid.UUID
	dueAt             time.Time
}

// Assignment is the answer of CreateAssignment.
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

// CreateAssignment lets a teacher assign one of their own or a library deck
// to a learner of one of their classes, with a due date. In one transaction it
// stores the assignment, creates the learner's missing cards (due now) and
// enqueues assignment.created, a reminder.due_soon not before 24 hours ahead
// of the due date, and assignment.completed when the learner already knows
// every word from other decks. Answers: 201 with an Assignment; 400 for an
// invalid body or a due date in the past; 401 without a valid acting user;
// 404 when the learner is not in the teacher's classes, the deck is not
// visible to the teacher, or the caller is not a teacher; 409 when the deck is
// already assigned to that learner by this teacher.
func (s *Service) CreateAssignment(w http.ResponseWriter, r *http.Request) {
	teacher, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req CreateAssignmentRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	in := assignmentInput{learnerID: uuid.MustParse(req.LearnerID), deckID: uuid.MustParse(req.DeckID)}
	in.dueAt, _ = text.ParseTime(req.DueAt)
	// PostgreSQL keeps microseconds: the answer, the events and the
	// reminder's check against the stored row must all see the same instant.
	in.dueAt = in.dueAt.Truncate(time.Microsecond)
	if !in.dueAt.After(s.now()) || in.dueAt.After(s.now().AddDate(0, 0, maxDueDays)) {
		p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "one or more fields are invalid")
		p.Errors = []httpx.FieldError{{Field: "due_at", Reason: fmt.Sprintf("must be in the future and within %d days", maxDueDays)}}
		s.fail(w, r, p)
		return
	}
	s.write(w, r, teacher, "CreateAssignment", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		return s.createAssignment(r.Context(), tx, r, teacher, in)
	})
}

func (s *Service) createAssignment(ctx context.Context, tx pgx.Tx, r *http.Request, teacher user, in assignmentInput) (Assignment, error) {
	// Locking the learner's row serialises the learner's writes, so the
	// outbox ids of one learner's events follow commit order.
	if _, err := userstore.New(tx).LockLearnerOfTeacher(ctx, in.learnerID, account.Learner, teacher.ID); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return Assignment{}, httpx.NotFound("learner")
		}
		return Assignment{}, fmt.Errorf("lock learner: %w", err)
	}
	evs := events.NewBatch(in.learnerID.String())
	a, err := s.assignDeck(ctx, tx, teacher.ID, in, &evs)
	if err != nil {
		return Assignment{}, err
	}
	return a, s.enqueue(ctx, tx, r, teacher, evs)
}

// requestHeaders are the event headers that tie an event to its request:
// the actor and the request id (kept when it is 1 to 128 printable ASCII
// characters, since every event of the request carries a copy). The trace
// context is added by outbox.Enqueue from the request's span (see traced).
func requestHeaders(r *http.Request, actor user) map[string]string {
	h := map[string]string{"actor": actor.ID.String()}
	if v := r.Header.Get("X-Request-Id"); printableASCII(v, 128) {
		h["request_id"] = v
	}
	return h
}

// assignDeck stores the assignment of in.deckID to in.learnerID by
// teacherID, creates the learner's missing cards (the scheduler's new card,
// due now), and adds its events to evs: assignment.created,
// reminder.due_soon (not before 24 hours ahead of the due date), and
// assignment.completed when every card is already learned. The caller has
// locked the learner's row and checked that the teacher may assign to them;
// the deck must be the teacher's or the library's (404 otherwise; 409 when
// already assigned).
func (s *Service) assignDeck(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, in assignmentInput, evs *events.Batch) (Assignment, error) {
	assignments, cards := assignmentstore.New(tx), cardstore.New(tx)
	a := Assignment{DeckID: in.deckID, LearnerID: in.learnerID, TeacherID: teacherID, DueAt: in.dueAt.UTC()}
	var err error
	a.ID, err = assignments.InsertAssignment(ctx, in.learnerID, teacherID, a.DueAt, in.deckID)
	switch err = store.Classify(err); {
	case errors.Is(err, store.ErrNotFound):
		return Assignment{}, httpx.NotFound("deck")
	case errors.Is(err, store.ErrDuplicate):
		return Assignment{}, httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Already assigned",
			"you have already assigned this deck to this learner")
	case err != nil:
		return Assignment{}, fmt.Errorf("insert assignment: %w", err)
	}
	fresh := s.scheduler.NewCard()
	made, err := cards.CreateCards(ctx, cardstore.CreateCardsParams{DeckID: in.deckID, LearnerID: in.learnerID,
		State: int16(fresh.State), Due: fresh.Due, Stability: fresh.Stability, Difficulty: fresh.Difficulty, Step: int32(fresh.Step)})
	if err != nil {
		return Assignment{}, fmt.Errorf("create cards: %w", err)
	}
	a.Cards, a.NewCards = int(made.Cards), int(made.Created)
	known, err := cards.CountKnownCards(ctx, learning.Review, in.learnerID, in.deckID)
	if err != nil {
		return Assignment{}, fmt.Errorf("count known cards: %w", err)
	}
	evs.Add(events.AssignmentCreated, events.AssignmentCreatedPayload{AssignmentID: a.ID, DeckID: a.DeckID,
		LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, Cards: a.Cards,
		CardsSeen: int(known.Seen), CardsLearned: int(known.Learned)})
	if remindAt := a.DueAt.Add(-events.DueSoonLead); remindAt.After(s.now()) {
		evs.AddAt(events.ReminderDueSoon, events.ReminderDueSoonPayload{
			AssignmentID: a.ID, LearnerID: a.LearnerID, DueAt: a.DueAt}, remindAt)
	}
	if a.Cards > 0 && int(known.Learned) == a.Cards {
		now := s.now().UTC()
		if err := assignments.MarkCompleted(ctx, now, a.ID); err != nil {
			return Assignment{}, fmt.Errorf("complete assignment: %w", err)
		}
		a.CompletedAt = &now
		evs.Add(events.AssignmentCompleted, events.AssignmentCompletedPayload{
			AssignmentID: a.ID, DeckID: a.DeckID, LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, CompletedAt: now,
		})
	}
	return a, nil
}
