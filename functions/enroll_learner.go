package functions

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/reminders"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/store/assignmentstore"
	"github.com/lexora-app/lexora/pkg/store/classstore"
	"github.com/lexora-app/lexora/pkg/store/userstore"
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
	caller, ok := s.caller(w, r, http.MethodPost, account.Teacher, account.Learner)
	var req EnrollLearnerRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if req.Email != "" {
		email, err := text.CanonicalEmail(req.Email)
		if err != nil {
			p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "one or more fields are invalid")
			p.Errors = []httpx.FieldError{{Field: "email", Reason: err.Error()}}
			s.fail(w, r, p)
			return
		}
		req.Email = email
	}
	s.write(w, r, caller, "EnrollLearner", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		return s.enroll(r.Context(), tx, r, caller, req)
	})
}

// enroll answers an Enrollment, or an Invitation (see learnerByEmail).
func (s *Service) enroll(ctx context.Context, tx pgx.Tx, r *http.Request, caller user, req EnrollLearnerRequest) (any, error) {
	classID, teacherID, err := findClass(ctx, classstore.New(tx), caller, req)
	if err != nil {
		return nil, err
	}
	learnerID, by := caller.ID, "join_code"
	if req.JoinCode == "" {
		by = "teacher"
		var invite bool
		if learnerID, invite, err = learnerByEmail(ctx, userstore.New(tx), teacherID, req); err != nil {
			return nil, err
		}
		if invite {
			return s.invite(ctx, tx, r, caller, classID, learnerID, req.Email)
		}
	}
	return s.addMember(ctx, tx, r, caller, Enrollment{ClassID: classID, LearnerID: learnerID}, teacherID, by)
}

// findClass is the class req names and its teacher: by join code for a
// learner, by id among the caller's classes for a teacher; 404 otherwise.
func findClass(ctx context.Context, classes *classstore.Queries, caller user, req EnrollLearnerRequest) (classID, teacherID uuid.UUID, err error) {
	switch {
	case req.JoinCode != "" && caller.Role == account.Learner:
		var c classstore.ClassByJoinCodeRow
		c, err = classes.ClassByJoinCode(ctx, strings.ToUpper(req.JoinCode))
		classID, teacherID = c.ID, c.TeacherID
	case req.JoinCode == "" && caller.Role == account.Teacher:
		teacherID = caller.ID
		classID, err = classes.TeachersClass(ctx, uuid.MustParse(req.ClassID), caller.ID)
	default:
		err = pgx.ErrNoRows
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, uuid.Nil, httpx.NotFound("class")
	}
	if err != nil {
		return uuid.Nil, uuid.Nil, fmt.Errorf("load class: %w", err)
	}
	return classID, teacherID, nil
}

// addMember adds out.LearnerID to out.ClassID, assigns them the class's
// active decks (assignmentstore.ActiveDecks) with their cards, starts their
// daily reminder, and enqueues learner.enrolled, then the assignments'
// events; 409 when the learner is already in the class.
func (s *Service) addMember(ctx context.Context, tx pgx.Tx, r *http.Request, caller user, out Enrollment, teacherID uuid.UUID, by string) (Enrollment, error) {
	users := userstore.New(tx)
	// Serialise with the learner's other writes (see CreateAssignment).
	if err := users.LockUser(ctx, out.LearnerID); err != nil {
		return Enrollment{}, fmt.Errorf("lock learner: %w", err)
	}
	err := store.Classify(classstore.New(tx).AddMember(ctx, out.ClassID, out.LearnerID))
	if errors.Is(err, store.ErrDuplicate) {
		return Enrollment{}, httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Already enrolled",
			"the learner is already in this class")
	}
	if err != nil {
		return Enrollment{}, fmt.Errorf("enrol: %w", err)
	}
	decks, err := assignmentstore.New(tx).ActiveDecks(ctx, out.ClassID, teacherID, s.now(), out.LearnerID)
	if err != nil {
		return Enrollment{}, fmt.Errorf("find active decks: %w", err)
	}
	out.Assignments = []Assignment{}
	assigned := events.NewBatch(out.LearnerID.String())
	enrolled := events.LearnerEnrolledPayload{ClassID: out.ClassID, LearnerID: out.LearnerID, TeacherID: teacherID,
		Assignments: []uuid.UUID{}, By: by}
	for _, d := range decks {
		a, err := s.assignDeck(ctx, tx, teacherID, assignmentInput{learnerID: out.LearnerID, deckID: d.DeckID, dueAt: d.DueAt}, &assigned)
		if err != nil {
			return Enrollment{}, err
		}
		out.Assignments = append(out.Assignments, a)
		enrolled.Assignments = append(enrolled.Assignments, a.ID)
	}
	tz, err := users.Timezone(ctx, out.LearnerID)
	if err != nil {
		return Enrollment{}, fmt.Errorf("load learner: %w", err)
	}
	if err := reminders.Start(ctx, tx, s.outbox, out.LearnerID, tz, s.now()); err != nil {
		return Enrollment{}, err
	}
	evs := events.NewBatch(out.LearnerID.String())
	evs.Add(events.LearnerEnrolled, enrolled)
	evs.Join(assigned)
	return out, s.enqueue(ctx, tx, r, caller, evs)
}

// learnerByEmail finds the learner with req.Email, creating the account when
// there is none (then with req.DisplayName, or the email's local part, and
// req.Timezone, or UTC). invite is true when the email belongs to an
// account the teacher may not simply add: a learner outside all of the
// teacher's classes (then id is theirs), or a teacher or operator (id is
// uuid.Nil).
func learnerByEmail(ctx context.Context, users *userstore.Queries, teacherID uuid.UUID, req EnrollLearnerRequest) (id uuid.UUID, invite bool, err error) {
	email := req.Email // canonical (EnrollLearner)
	name := text.Name(req.DisplayName)
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	u, err := users.FindOrCreateUser(ctx, email, name, account.Learner, cmp.Or(req.Timezone, "UTC"))
	switch {
	case err != nil:
		return uuid.Nil, false, fmt.Errorf("find or create learner: %w", err)
	case u.Role != account.Learner:
		return uuid.Nil, true, nil
	case u.Created:
		return u.ID, false, nil
	}
	// A statement of its own, so that it sees what a concurrent enrolment of
	// the same email, which this one waited for on the user's row, committed.
	known, err := users.IsTaughtBy(ctx, u.ID, teacherID)
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("find learner's classes: %w", err)
	}
	return u.ID, !known, nil
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
	_, err := classstore.New(tx).Invite(ctx, classID, learnerID, s.clock.NowOrNil(), InvitationInterval.Seconds())
	if errors.Is(err, pgx.ErrNoRows) {
		return inv, nil // invited lately: no second email
	}
	if err != nil {
		return nil, fmt.Errorf("record invitation: %w", err)
	}
	evs := events.NewBatch(learnerID.String())
	evs.Add(events.LearnerInvited, events.LearnerInvitedPayload{ClassID: classID, LearnerID: learnerID, TeacherID: caller.ID})
	return inv, s.enqueue(ctx, tx, r, caller, evs)
}
