package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/reminders"
)

// EnrollLearnerRequest is the body of EnrollLearner: either a teacher's
// class_id and the learner's email (display_name and timezone are used when
// the learner has no account yet), or a learner's join_code. The email is
// stored and matched in its canonical form (text.CanonicalEmail), so two
// addresses that look alike are one account or refused.
type EnrollLearnerRequest struct {
	ClassID     string `json:"class_id" validate:"required_without=JoinCode,excluded_with=JoinCode,omitempty,uuid"`
	Email       string `json:"email" validate:"required_with=ClassID,excluded_with=JoinCode,omitempty,email,max=254"`
	DisplayName string `json:"display_name" validate:"excluded_with=JoinCode,max=200,singleline"`
	Timezone    string `json:"timezone" validate:"excluded_with=JoinCode,omitempty,timezone"`
	JoinCode    string `json:"join_code" validate:"required_without=ClassID,omitempty,alphanum,min=4,max=12"`
}

// Invitation is the answer of EnrollLearner (202) when the email belongs to
// an account outside the teacher's classes: nothing is shared with the
// teacher until that learner joins with the class's code, which
// learner.invited emails them. An email of a teacher or an operator gets the
// same answer and nothing is sent, so staff addresses cannot be probed.
type Invitation struct {
	ClassID uuid.UUID `json:"class_id"`
	Email   string    `json:"email"`
	Status  string    `json:"status"` // "invited"
}

func (Invitation) httpStatus() int { return http.StatusAccepted }

// Enrollment is the answer of EnrollLearner.
type Enrollment struct {
	ClassID   uuid.UUID `json:"class_id"`
	LearnerID uuid.UUID `json:"learner_id"`
	// Assignments were created, with the learner's cards, for the class's
	// active decks, so the learner's schedule is right at once.
	Assignments []Assignment `json:"assignments"`
}

// EnrollLearner (POST) adds a learner to a class: a teacher by the learner's
// email (creating the learner's account when there is none), or a learner
// with the class's join code. In one transaction it records the membership,
// assigns the class's active decks (those the teacher has assigned to its
// learners and that are not yet due, with the latest due date) with their
// cards, starts the learner's daily reminder (if not yet), and enqueues
// learner.enrolled and each assignment's events.
// Answers: 201 with an Enrollment; 400 for an invalid body; 401; 404 for a
// class that is not the teacher's or an unknown join code, and for a caller
// of the wrong role; 409 when the learner is already in the class, or the
// email belongs to a teacher.
func (s *Service) EnrollLearner(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.caller(w, r, http.MethodPost, "teacher", "learner")
	var req EnrollLearnerRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if req.Email != "" {
		email, err := text.CanonicalEmail(req.Email)
		if err != nil {
			p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "one or more fields are invalid")
			p.Errors = []httpx.FieldError{{Field: "email", Reason: err.Error()}}
			httpx.WriteError(w, r, s.log, p)
			return
		}
		req.Email = email
	}
	s.write(w, r, caller, "EnrollLearner", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		return s.enroll(r.Context(), tx, r, caller, req)
	})
}

// The class's active decks: assigned by its teacher to its learners and not
// yet due; each with its latest due date.
const activeDecksSQL = `
SELECT a.deck_id, max(a.due_at)
FROM assignments a JOIN class_members m ON m.learner_id = a.learner_id AND m.class_id = $1
WHERE a.teacher_id = $2 AND a.due_at > $3
  AND NOT EXISTS (SELECT 1 FROM assignments mine WHERE mine.deck_id = a.deck_id AND mine.learner_id = $4 AND mine.teacher_id = $2)
GROUP BY a.deck_id ORDER BY a.deck_id`

// enroll answers an Enrollment, or an Invitation (see learnerByEmail).
func (s *Service) enroll(ctx context.Context, tx pgx.Tx, r *http.Request, caller user, req EnrollLearnerRequest) (any, error) {
	var out Enrollment
	var err error
	var teacherID uuid.UUID
	by := "teacher"
	if req.JoinCode != "" {
		if caller.Role != "learner" {
			return Enrollment{}, httpx.NotFound("class")
		}
		by, out.LearnerID = "join_code", caller.ID
		err = tx.QueryRow(ctx, "SELECT id, teacher_id FROM classes WHERE join_code = $1",
			strings.ToUpper(req.JoinCode)).Scan(&out.ClassID, &teacherID)
	} else {
		if caller.Role != "teacher" {
			return Enrollment{}, httpx.NotFound("class")
		}
		teacherID = caller.ID
		err = tx.QueryRow(ctx, "SELECT id FROM classes WHERE id = $1 AND teacher_id = $2", req.ClassID, caller.ID).Scan(&out.ClassID)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return Enrollment{}, httpx.NotFound("class")
	}
	if err != nil {
		return Enrollment{}, fmt.Errorf("load class: %w", err)
	}
	if by == "teacher" {
		var invite bool
		if out.LearnerID, invite, err = s.learnerByEmail(ctx, tx, teacherID, req); err != nil {
			return nil, err
		}
		if invite {
			return s.invite(ctx, tx, r, caller, out.ClassID, out.LearnerID, req.Email)
		}
	}
	// Serialise with the learner's other writes (see CreateAssignment).
	if _, err := tx.Exec(ctx, "SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE", out.LearnerID); err != nil {
		return Enrollment{}, fmt.Errorf("lock learner: %w", err)
	}
	_, err = tx.Exec(ctx, "INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)", out.ClassID, out.LearnerID)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" {
		return Enrollment{}, httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Already enrolled",
			"the learner is already in this class")
	}
	if err != nil {
		return Enrollment{}, fmt.Errorf("enrol: %w", err)
	}

	rows, err := tx.Query(ctx, activeDecksSQL, out.ClassID, teacherID, s.now(), out.LearnerID)
	if err != nil {
		return Enrollment{}, fmt.Errorf("find active decks: %w", err)
	}
	var decks []assignmentInput
	var deck uuid.UUID
	var due time.Time
	if _, err := pgx.ForEachRow(rows, []any{&deck, &due}, func() error {
		decks = append(decks, assignmentInput{learnerID: out.LearnerID, deckID: deck, dueAt: due})
		return nil
	}); err != nil {
		return Enrollment{}, fmt.Errorf("find active decks: %w", err)
	}
	out.Assignments = []Assignment{}
	var evs []outbox.Event
	enrolled := events.LearnerEnrolledPayload{ClassID: out.ClassID, LearnerID: out.LearnerID, TeacherID: teacherID,
		Assignments: []uuid.UUID{}, By: by}
	for _, in := range decks {
		a, aevs, err := s.assignDeck(ctx, tx, teacherID, in)
		if err != nil {
			return Enrollment{}, err
		}
		out.Assignments = append(out.Assignments, a)
		enrolled.Assignments = append(enrolled.Assignments, a.ID)
		evs = append(evs, aevs...)
	}
	var tz string
	if err := tx.QueryRow(ctx, "SELECT timezone FROM users WHERE id = $1", out.LearnerID).Scan(&tz); err != nil {
		return Enrollment{}, fmt.Errorf("load learner: %w", err)
	}
	if err := reminders.Start(ctx, tx, s.outbox, out.LearnerID, tz, s.now()); err != nil {
		return Enrollment{}, err
	}
	ev, err := outbox.NewEvent(events.LearnerEnrolled, out.LearnerID.String(), enrolled)
	if err != nil {
		return Enrollment{}, err
	}
	evs = append([]outbox.Event{ev}, evs...)
	headers := requestHeaders(r, caller)
	for i := range evs {
		evs[i].Headers = headers
	}
	return out, s.outbox.Enqueue(ctx, tx, evs...)
}

// learnerByEmail finds the learner with req.Email, creating the account when
// there is none (then with req.DisplayName, or the email's local part, and
// req.Timezone, or UTC). invite is true when the email belongs to an
// account the teacher may not simply add: a learner outside all of the
// teacher's classes (then id is theirs), or a teacher or operator (id is
// uuid.Nil).
func (s *Service) learnerByEmail(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req EnrollLearnerRequest) (id uuid.UUID, invite bool, err error) {
	email := req.Email // canonical (EnrollLearner)
	name := text.Name(req.DisplayName)
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	tz := req.Timezone
	if tz == "" {
		tz = "UTC"
	}
	var role string
	var created, known bool
	err = tx.QueryRow(ctx, `INSERT INTO users (email, display_name, role, timezone) VALUES ($1, $2, 'learner', $3)
		ON CONFLICT (email) DO UPDATE SET email = excluded.email
		RETURNING id, role, xmax = 0`, email, name, tz).Scan(&id, &role, &created)
	switch {
	case err != nil:
		return uuid.Nil, false, fmt.Errorf("find or create learner: %w", err)
	case role != "learner":
		return uuid.Nil, true, nil
	case created:
		return id, false, nil
	}
	// A statement of its own, so that it sees what a concurrent enrolment of
	// the same email, which this one waited for on the user's row, committed.
	if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id
		WHERE m.learner_id = $1 AND c.teacher_id = $2)`, id, teacherID).Scan(&known); err != nil {
		return uuid.Nil, false, fmt.Errorf("find learner's classes: %w", err)
	}
	return id, !known, nil
}

// InvitationInterval is how long after an invitation to a class the same
// learner is not emailed about it again.
const InvitationInterval = 24 * time.Hour

// invite answers an Invitation for req.Email to the class, and enqueues
// learner.invited when learnerID is a learner's (see learnerByEmail).
func (s *Service) invite(ctx context.Context, tx pgx.Tx, r *http.Request, caller user, classID, learnerID uuid.UUID, email string) (any, error) {
	inv := Invitation{ClassID: classID, Email: email, Status: "invited"}
	if learnerID == uuid.Nil {
		return inv, nil
	}
	err := tx.QueryRow(ctx, `INSERT INTO class_invitations (class_id, learner_id) VALUES ($1, $2)
		ON CONFLICT (class_id, learner_id) DO UPDATE SET invited_at = now()
		WHERE class_invitations.invited_at < now() - make_interval(secs => $3)
		RETURNING true`, classID, learnerID, InvitationInterval.Seconds()).Scan(new(bool))
	if errors.Is(err, pgx.ErrNoRows) {
		return inv, nil // invited lately: no second email
	}
	if err != nil {
		return nil, fmt.Errorf("record invitation: %w", err)
	}
	ev, err := outbox.NewEvent(events.LearnerInvited, learnerID.String(),
		events.LearnerInvitedPayload{ClassID: classID, LearnerID: learnerID, TeacherID: caller.ID})
	if err != nil {
		return nil, err
	}
	ev.Headers = requestHeaders(r, caller)
	return inv, s.outbox.Enqueue(ctx, tx, ev)
}
