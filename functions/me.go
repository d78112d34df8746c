package functions

import (
	"errors"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account/signin"
	"github.com/lexora-app/lexora/pkg/classroom"
)

// Me (GET, any role) answers the caller's own account: id, name, email,
// roles, time zone, the classes they are in and those they teach (a
// classroom.Profile). A signed-in identity without a Lexora account gets
// 404 with the problem type httpx.TypeNoAccount, not 401, so that a client
// keeps the sign-in and offers the way in: with a verified email, creating
// a class (CreateClass) makes the identity a teacher; a learner is added by
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
