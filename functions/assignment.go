package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
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
	teacher, ok := s.caller(w, r, http.MethodPost, "teacher")
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
		httpx.WriteError(w, r, s.log, p)
		return
	}
	s.write(w, r, teacher, "CreateAssignment", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		return s.createAssignment(r.Context(), tx, r, teacher, in)
	})
}

const lockLearnerOfTeacherSQL = `
SELECT u.id FROM users u
WHERE u.id = $1 AND u.role = 'learner'
  AND EXISTS (SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id
              WHERE m.learner_id = u.id AND c.teacher_id = $2)
FOR NO KEY UPDATE OF u`

const insertAssignmentSQL = `
INSERT INTO assignments (deck_id, learner_id, teacher_id, due_at)
SELECT d.id, $2::uuid, $3::uuid, $4::timestamptz FROM decks d WHERE d.id = $1 AND (d.owner_id IS NULL OR d.owner_id = $3::uuid)
RETURNING id`

// The assignment's cards the learner has reviewed, and has learned, already.
const assignmentCardStatesSQL = `
SELECT count(*) FILTER (WHERE c.reps > 0), count(*) FILTER (WHERE c.state = 2)
FROM deck_items di JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = $2
WHERE di.deck_id = $1`

const createCardsSQL = `
WITH items AS (SELECT lexeme_id FROM deck_items WHERE deck_id = $1),
inserted AS (
    INSERT INTO cards (learner_id, lexeme_id, due)
    SELECT $2::uuid, lexeme_id, $3::timestamptz FROM items
    ON CONFLICT (learner_id, lexeme_id) DO NOTHING
    RETURNING 1)
SELECT (SELECT count(*) FROM items), (SELECT count(*) FROM inserted)`

func (s *Service) createAssignment(ctx context.Context, tx pgx.Tx, r *http.Request, teacher user, in assignmentInput) (Assignment, error) {
	// Locking the learner's row serialises the learner's writes, so the
	// outbox ids of one learner's events follow commit order.
	if err := tx.QueryRow(ctx, lockLearnerOfTeacherSQL, in.learnerID, teacher.ID).Scan(new(uuid.UUID)); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return Assignment{}, httpx.NotFound("learner")
		}
		return Assignment{}, fmt.Errorf("lock learner: %w", err)
	}
	a, evs, err := s.assignDeck(ctx, tx, teacher.ID, in)
	if err != nil {
		return Assignment{}, err
	}
	headers := requestHeaders(r, teacher)
	for i := range evs {
		evs[i].Headers = headers
	}
	return a, s.outbox.Enqueue(ctx, tx, evs...)
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
// teacherID, creates the learner's missing cards, and returns it with its
// events: assignment.created, reminder.due_soon (not before 24 hours ahead
// of the due date), and assignment.completed when every card is already
// learned. The caller has locked the learner's row and checked that the
// teacher may assign to them; the deck must be the teacher's or the
// library's (404 otherwise; 409 when already assigned).
func (s *Service) assignDeck(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, in assignmentInput) (Assignment, []outbox.Event, error) {
	a := Assignment{DeckID: in.deckID, LearnerID: in.learnerID, TeacherID: teacherID, DueAt: in.dueAt.UTC()}
	err := tx.QueryRow(ctx, insertAssignmentSQL, in.deckID, in.learnerID, teacherID, a.DueAt).Scan(&a.ID)
	var pgErr *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return Assignment{}, nil, httpx.NotFound("deck")
	case errors.As(err, &pgErr) && pgErr.Code == "23505":
		return Assignment{}, nil, httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Already assigned",
			"you have already assigned this deck to this learner")
	case err != nil:
		return Assignment{}, nil, fmt.Errorf("insert assignment: %w", err)
	}
	if err := tx.QueryRow(ctx, createCardsSQL, in.deckID, in.learnerID, s.now()).Scan(&a.Cards, &a.NewCards); err != nil {
		return Assignment{}, nil, fmt.Errorf("create cards: %w", err)
	}
	created := events.AssignmentCreatedPayload{
		AssignmentID: a.ID, DeckID: a.DeckID, LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, Cards: a.Cards,
	}
	if err := tx.QueryRow(ctx, assignmentCardStatesSQL, in.deckID, in.learnerID).Scan(&created.CardsSeen, &created.CardsLearned); err != nil {
		return Assignment{}, nil, fmt.Errorf("count known cards: %w", err)
	}
	ev, err := outbox.NewEvent(events.AssignmentCreated, in.learnerID.String(), created)
	if err != nil {
		return Assignment{}, nil, err
	}
	evs := []outbox.Event{ev}
	if remindAt := a.DueAt.Add(-events.DueSoonLead); remindAt.After(s.now()) {
		reminder, err := outbox.NewEvent(events.ReminderDueSoon, in.learnerID.String(), events.ReminderDueSoonPayload{
			AssignmentID: a.ID, LearnerID: a.LearnerID, DueAt: a.DueAt})
		if err != nil {
			return Assignment{}, nil, err
		}
		reminder.NotBefore = remindAt
		evs = append(evs, reminder)
	}
	if a.Cards > 0 && created.CardsLearned == a.Cards {
		now := s.now().UTC()
		if _, err := tx.Exec(ctx, "UPDATE assignments SET completed_at = $2 WHERE id = $1", a.ID, now); err != nil {
			return Assignment{}, nil, fmt.Errorf("complete assignment: %w", err)
		}
		a.CompletedAt = &now
		done, err := outbox.NewEvent(events.AssignmentCompleted, in.learnerID.String(), events.AssignmentCompletedPayload{
			AssignmentID: a.ID, DeckID: a.DeckID, LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, CompletedAt: now,
		})
		if err != nil {
			return Assignment{}, nil, err
		}
		evs = append(evs, done)
	}
	return a, evs, nil
}
