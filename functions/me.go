package functions

import (
	"cmp"
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/account/signin"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// CreateLearnerAccount (POST) makes a signed-in identity without a Lexora
// account, whose email the identity provider verified, a learner with no
// class (self-serve, "study on my own"): the account (classroom.AddAccount,
// linked to the token's subject, named display_name, else the token's name,
// else the email's local part, in timezone, else UTC), nothing else. The
// learner then starts library decks (StartDeck) under the default daily
// limit of new cards, and may join classes later. Answers: 201 with the new
// account (as Me); 400 for an invalid body; 401 without a valid token, or
// for an identity whose email is not verified; 404 for a teacher or an
// operator (a user has one role); 409 (account exists) for a learner, and
// when a concurrent first request of the same identity with another
// Idempotency-Key (or none) made the account; a copy with the same key gets
// the first one's answer.
func (s *Service) CreateLearnerAccount(w http.ResponseWriter, r *http.Request) {
	u, newcomer, ok := s.callerOrNewcomer(w, r, account.Learner, account.Learner)
	var req api.CreateLearnerAccountJSONBody
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.write(w, r, u, "CreateLearnerAccount", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		if newcomer == nil {
			return nil, classroom.ErrAccountExists
		}
		newcomer.DisplayName, newcomer.Timezone = cmp.Or(text.Name(req.DisplayName), newcomer.DisplayName), req.Timezone
		if err := s.classroom().AddAccount(r.Context(), tx, *newcomer); err != nil {
			return nil, err
		}
		p, err := classroom.ProfileOf(r.Context(), tx, u.ID)
		return toMe(p), err
	})
}

// Me (GET, any role) answers the caller's own account: id, name, email,
// roles, time zone, the classes they are in and those they teach (a
// classroom.Profile). A signed-in identity without a Lexora account gets
// 404 with the problem type httpx.TypeNoAccount, not 401, so that a client
// keeps the sign-in and offers the way in: with a verified email, creating
// a class (CreateClass) makes the identity a teacher, joining one by code
// (EnrollLearner) or CreateLearnerAccount a learner; a learner is added by
// a teacher with their email. Answers: 200; 400 for any query parameter;
// 401 without a valid token; 404 (no-account) as above.
func (s *Service) Me(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodGet) {
		return
	}
	c, err := s.identity(r.Context(), r)
	var u user
	if err == nil {
		u, err = signin.Resolve(r.Context(), s.pool, c)
	}
	if errors.Is(err, signin.ErrNoAccount) {
		err = noAccount(c)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if !s.noQuery(w, r) {
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		p, err := classroom.ProfileOf(r.Context(), tx, u.ID)
		return toMe(p), err
	})
}
