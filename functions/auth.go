package functions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
)

// user is the acting user.
type user struct {
	ID       uuid.UUID
	Role     account.Role
	Timezone string
}

// actor authenticates the request's ID token and resolves it to a user: by
// the token's subject, or, at a first sign-in, by its verified email, which
// links the account to the subject (the email matched in its canonical
// form, text.CanonicalEmail; one that has none links nothing). It returns a
// 401 problem for a missing, invalid or expired token, or an identity
// without a Lexora account.
func (s *Service) actor(ctx context.Context, r *http.Request) (user, error) {
	c, err := s.identity(ctx, r)
	if err != nil {
		return user{}, err
	}
	u, err := s.account(ctx, c)
	if errors.Is(err, errNoAccount) {
		return user{}, unauthenticated("this identity has no Lexora account")
	}
	return u, err
}

// errNoAccount is account's error for an identity without a Lexora account.
var errNoAccount = errors.New("no account")

// identity is the request's verified ID token's claims, or a 401 problem.
func (s *Service) identity(ctx context.Context, r *http.Request) (auth.Claims, error) {
	c, err := s.verifier.Verify(ctx, r)
	if err != nil {
		s.log.InfoContext(ctx, "request not authenticated", slog.String("reason", err.Error()))
		return auth.Claims{}, unauthenticated("send a valid, unexpired ID token as Authorization: Bearer <token>")
	}
	return c, nil
}

// account is the user c signs in as (see actor); errNoAccount when there is none.
func (s *Service) account(ctx context.Context, c auth.Claims) (user, error) {
	users := store.On(s.pool)
	u, err := users.UserBySubject(ctx, c.Subject)
	email, emailErr := text.CanonicalEmail(c.Email)
	if errors.Is(err, store.ErrNotFound) && c.EmailVerified && emailErr == nil {
		var linked store.LinkSubjectRow
		linked, err = users.LinkSubject(ctx, c.Subject, email)
		u = store.UserBySubjectRow(linked)
		if errors.Is(err, store.ErrNotFound) {
			u, err = users.UserBySubject(ctx, c.Subject) // a concurrent first request of the same sign-in linked it
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return user{}, errNoAccount
	}
	if err != nil {
		return user{}, fmt.Errorf("load acting user: %w", err)
	}
	return user{ID: u.ID, Role: u.Role, Timezone: u.Timezone}, nil
}

// caller is every function's first step: it answers 405 unless r uses
// method, 401 unless r carries a valid ID token of a Lexora user (actor),
// and, when roles are given, 404 to every other role, as if the function did
// not exist. So a request that may not call the function learns nothing
// about its body or parameters. It reports whether to go on.
func (s *Service) caller(w http.ResponseWriter, r *http.Request, method string, roles ...account.Role) (user, bool) {
	if !allow(w, r, method) {
		return user{}, false
	}
	u, err := s.actor(r.Context(), r)
	if err == nil && len(roles) > 0 && !slices.Contains(roles, u.Role) {
		err = httpx.NotFound("function")
	}
	if err != nil {
		s.fail(w, r, err)
		return user{}, false
	}
	return u, true
}
