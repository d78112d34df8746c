package functions

import (
	"cmp"
	"errors"
	"net/http"
	"slices"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/account/signin"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// A teacher's classes, the library of decks they assign from, and each
// class's progress; the rules are pkg/classroom's. A user becomes a teacher
// by creating their first class (self-serve, see CreateClass).

// CreateClass (POST) creates a class with a fresh join code for the
// calling teacher and answers 201 with it (a classroom.Class, no members
// yet). A signed-in user without a Lexora account, whose email the identity
// provider verified, becomes a teacher by creating their first class: the
// same transaction creates their teacher account (linked to the token's
// subject). Answers: 400 for an invalid body; 401 without a valid token, or
// for a newcomer whose email is not verified; 404 for a learner or an
// operator (a user has one role); 409 when a concurrent first request of
// the same newcomer with another Idempotency-Key (or none) made the account
// (the retry acts as that teacher; copies with the same key get the first
// one's answer).
func (s *Service) CreateClass(w http.ResponseWriter, r *http.Request) {
	t, newcomer, ok := s.callerOrNewcomer(w, r, account.Teacher, account.Teacher)
	var req api.CreateClassJSONBody
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.write(w, r, t, "CreateClass", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		c := s.classroom()
		if newcomer != nil {
			newcomer.DisplayName, newcomer.Timezone = cmp.Or(text.Name(req.DisplayName), newcomer.DisplayName), req.Timezone
			if err := c.AddAccount(r.Context(), tx, *newcomer); err != nil {
				return nil, err
			}
		}
		class, err := c.CreateClass(r.Context(), tx, t.ID, text.Name(req.Name))
		return toClass(class), err
	})
}

// callerOrNewcomer is caller for a write that a newcomer may make as their
// first request (CreateClass, EnrollLearner): 405 unless POST, 401 without
// a valid ID token, 404 to a role not in roles; otherwise the acting user,
// or a newcomer: an identity without an account whose email is verified,
// who acts as a user of role as (their account's role, the newcomer's
// Role), named by the token's name claim when it is one line of at most
// 200 characters (else AddAccount's default). A newcomer's user has the id
// their account will get (signin.NewcomerID, one per subject), so that a
// copy of their first request with its Idempotency-Key, sent while it runs
// or once the account exists, finds that request's answer. A newcomer whose email is unverified or not an address gets 401,
// as from caller.
func (s *Service) callerOrNewcomer(w http.ResponseWriter, r *http.Request, as account.Role, roles ...account.Role) (user, *classroom.Newcomer, bool) {
	if !allow(w, r, http.MethodPost) {
		return user{}, nil, false
	}
	c, err := s.identity(r.Context(), r)
	var u user
	if err == nil {
		u, err = signin.Resolve(r.Context(), s.pool, c)
	}
	switch email, verified := signin.VerifiedEmail(c); {
	case errors.Is(err, signin.ErrNoAccount) && verified:
		n := &classroom.Newcomer{ID: signin.NewcomerID(c.Subject), Role: as, Subject: c.Subject, Email: email}
		if name := text.Name(c.Name); text.SingleLine(name) && utf8.RuneCountInString(name) <= 200 {
			n.DisplayName = name
		}
		return user{ID: n.ID, Role: as}, n, true
	case errors.Is(err, signin.ErrNoAccount):
		err = unauthenticated("this identity has no Lexora account; a verified email can create a class or join one with its code")
	case err == nil && !slices.Contains(roles, u.Role):
		err = httpx.NotFound("function")
	}
	if err != nil {
		s.fail(w, r, err)
		return user{}, nil, false
	}
	return u, nil, true
}

// ListClasses (GET) answers the calling teacher's classes, oldest first,
// with their join codes and members: {"classes": [classroom.Class]}.
func (s *Service) ListClasses(w http.ResponseWriter, r *http.Request) {
	t, ok := s.listCaller(w, r, account.Teacher)
	if !ok {
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		classes, err := classroom.ListClasses(r.Context(), tx, t.ID)
		return api.ClassList{Classes: each(classes, toClass)}, err
	})
}

// ListDecks (GET) answers the deck library: to a teacher the decks they may
// assign, the library's by level then title and then their own; to a
// learner the library's, each saying whether they have started it:
// {"decks": [classroom.Deck]}. 400 for any query parameter.
func (s *Service) ListDecks(w http.ResponseWriter, r *http.Request) {
	u, ok := s.listCaller(w, r, account.Teacher, account.Learner)
	if !ok {
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		decks, err := classroom.ListDecks(r.Context(), tx, u.ID, u.Role)
		return api.DeckList{Decks: each(decks, toDeck)}, err
	})
}

// listCaller is the acting user of a GET function without parameters
// (a list), callable by roles; false when it has answered: 401 or 404 for
// the caller (caller), 400 for any query parameter.
func (s *Service) listCaller(w http.ResponseWriter, r *http.Request, roles ...account.Role) (user, bool) {
	u, ok := s.caller(w, r, http.MethodGet, roles...)
	return u, ok && s.noQuery(w, r)
}

// GetClassProgress (GET ?class_id=) answers the calling teacher's class as
// a learner × assignment grid with its hardest words (a
// classroom.ClassProgress). The counts come from the progress projection,
// which the drain writes a moment after each review: each cell says when it
// was last updated. 400 without a class_id; 404 for a class that is not the
// caller's.
func (s *Service) GetClassProgress(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	q := newQueryParams(r)
	classID := q.requiredUUID("class_id")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		p, err := classroom.ClassProgressOf(r.Context(), tx, t.ID, classID, s.now())
		return toClassProgress(p), err
	})
}
