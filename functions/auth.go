package functions

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"slices"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/account/signin"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

// user is the acting user.
type user = signin.Account

// actor authenticates the request's ID token and resolves it to a user
// (signin.Resolve). It returns a 401 problem for a missing, invalid or
// expired token, or an identity without a Lexora account.
func (s *Service) actor(ctx context.Context, r *http.Request) (user, error) {
	c, err := s.identity(ctx, r)
	if err != nil {
		return user{}, err
	}
	u, err := signin.Resolve(ctx, s.pool, c)
	if errors.Is(err, signin.ErrNoAccount) {
		return user{}, unauthenticated("this identity has no Lexora account")
	}
	return u, err
}

// identity is the request's verified ID token's claims, or a 401 problem.
func (s *Service) identity(ctx context.Context, r *http.Request) (auth.Claims, error) {
	c, err := s.verifier.Verify(ctx, r)
	if err != nil {
		s.log.InfoContext(ctx, "request not authenticated", slog.String("reason", err.Error()))
		return auth.Claims{}, unauthenticated("send a valid, unexpired ID token as Authorization: Bearer <token>")
	}
	return c, nil
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
