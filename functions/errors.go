package functions

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/store"
)

// fail answers err as a problem document (see WriteError).
func (s *Service) fail(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, r, s.log, err)
}

// WriteError is the one place where an error becomes an answer (the
// functions' and the local server's own handlers use it): a problem
// (*httpx.Problem) as it is; a store error by what it means (store.Classify):
// a duplicate as 409, broken data rules as 422, an unreachable database as
// 503 with Retry-After; anything else as a logged 500 (httpx.WriteError).
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	httpx.WriteError(w, r, log, problem(err))
}

// problem maps err to what httpx.WriteError answers (see WriteError).
func problem(err error) error {
	if p, ok := err.(*httpx.Problem); ok {
		return p
	}
	err = store.Classify(err)
	switch {
	case errors.Is(err, store.ErrDuplicate):
		return httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Conflict", "the request conflicts with existing data")
	case errors.Is(err, store.ErrInvalidData):
		return httpx.NewProblem(http.StatusUnprocessableEntity, httpx.TypeUnprocessable, "Unprocessable request",
			"the request refers to something that does not exist or breaks a rule of the data")
	case errors.Is(err, store.ErrUnavailable):
		return fmt.Errorf("%w: %w", httpx.ErrUnavailable, err)
	}
	return err
}
