package functions

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store/userstore"
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
	unauthenticated := func(detail string) error {
		return httpx.NewProblem(http.StatusUnauthorized, httpx.TypeUnauthenticated, "Unauthenticated", detail)
	}
	c, err := s.verifier.Verify(ctx, r)
	if err != nil {
		s.log.InfoContext(ctx, "request not authenticated", slog.String("reason", err.Error()))
		return user{}, unauthenticated("send a valid, unexpired ID token as Authorization: Bearer <token>")
	}
	users := userstore.New(s.pool)
	u, err := users.UserBySubject(ctx, c.Subject)
	email, emailErr := text.CanonicalEmail(c.Email)
	if errors.Is(err, pgx.ErrNoRows) && c.EmailVerified && emailErr == nil {
		var linked userstore.LinkSubjectRow
		linked, err = users.LinkSubject(ctx, c.Subject, email)
		u = userstore.UserBySubjectRow(linked)
		if errors.Is(err, pgx.ErrNoRows) {
			u, err = users.UserBySubject(ctx, c.Subject) // a concurrent first request of the same sign-in linked it
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return user{}, unauthenticated("this identity has no Lexora account")
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
