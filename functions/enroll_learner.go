package functions

import (
	"cmp"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// invitation is EnrollLearner's answer for a classroom.Invitation: 202.
type invitation struct{ api.Invitation }

func (invitation) httpStatus() int { return http.StatusAccepted }

// EnrollLearner (POST) adds a learner to a class (classroom.Enroll). Its
// body (api.EnrollLearnerJSONBody) is either a teacher's class_id and the
// learner's email, or a learner's join_code (sent with either, each of them
// is a field error: "must not be sent together"); display_name and
// timezone are used when the learner has no account yet (the learner added
// by email, or a newcomer who joins by code), and ignored otherwise. The
// email is stored and matched in its canonical form (text.CanonicalEmail),
// so two addresses that look alike are one account or refused. A
// teacher adds a learner by the learner's email (creating the learner's account when there
// is none), or a learner with the class's join code. A signed-in identity
// without an account whose email is verified (a newcomer, see
// callerOrNewcomer) joins by code as a new learner: the same transaction
// creates their learner account (linked to the token's subject, named by
// display_name, else the token's name, else the email's local part, in
// timezone or UTC); an unknown code creates nothing. In one transaction it
// records the membership, assigns the class's active decks with their
// cards, starts the learner's daily reminder (if not yet), and enqueues
// learner.enrolled and each assignment's events.
// Answers: 201 with a classroom.Enrollment (with the class's name); 202 with a classroom.Invitation
// when the email belongs to an account outside the teacher's classes (or to
// an operator: then nothing is sent); 400 for an invalid body, naming
// join_code for a learner who sends neither it nor class_id (class_id for a
// teacher); 401, also for a newcomer whose email is unverified or who gives
// class_id instead of a join_code; 403 (teacher-cannot-join) for a teacher
// who gives a join code, whatever the code; 404 for a class that is not the
// teacher's or an unknown join code, and for a caller of the wrong role; 409
// (email-belongs-to-teacher) for a teacher's email; 409 when the learner is
// already in the class, or, for a newcomer, when a concurrent first request
// of theirs with another Idempotency-Key (or none) made the account (as
// from CreateClass; copies with the same key get the first one's answer).
func (s *Service) EnrollLearner(w http.ResponseWriter, r *http.Request) {
	caller, newcomer, ok := s.callerOrNewcomer(w, r, account.Learner, account.Teacher, account.Learner)
	var req api.EnrollLearnerJSONBody
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if req.ClassId == "" && req.JoinCode == "" {
		s.fail(w, r, neitherWay(caller.Role))
		return
	}
	in := classroom.EnrolRequest{Email: req.Email, DisplayName: req.DisplayName, Timezone: req.Timezone, JoinCode: string(req.JoinCode)}
	if newcomer != nil {
		if req.JoinCode == "" {
			s.fail(w, r, unauthenticated("this identity has no Lexora account; a learner joins a class with its join code"))
			return
		}
		newcomer.DisplayName = cmp.Or(text.Name(req.DisplayName), newcomer.DisplayName)
		newcomer.Timezone, in.Newcomer = req.Timezone, newcomer
	}
	if req.ClassId != "" {
		in.ClassID = uuid.MustParse(req.ClassId)
	}
	if req.Email != "" {
		email, err := text.CanonicalEmail(req.Email)
		if err != nil {
			s.fail(w, r, fieldProblem("email", err.Error()))
			return
		}
		req.Email, in.Email = email, email
	}
	s.write(w, r, caller, "EnrollLearner", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		out, batch, err := s.classroom().Enroll(r.Context(), tx, classroom.Actor{ID: caller.ID, Role: caller.Role}, in)
		if err != nil {
			return nil, err
		}
		if err := s.enqueue(r.Context(), tx, r, caller, batch); err != nil {
			return nil, err
		}
		if out.Invitation != nil {
			return invitation{toInvitation(*out.Invitation)}, nil
		}
		return toEnrollment(*out.Enrollment), nil
	})
}

// neitherWay is the 400 of an EnrollLearner request with neither class_id
// nor join_code, naming the field the caller's role uses: class_id (with
// email) for a teacher, join_code for a learner (a newcomer is one).
func neitherWay(role account.Role) *httpx.Problem {
	if role == account.Teacher {
		return fieldProblem("class_id", "is required: a teacher adds a learner with class_id and email")
	}
	return fieldProblem("join_code", "is required: a learner joins a class with its join code")
}
