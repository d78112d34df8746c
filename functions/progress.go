package functions

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
)

// GetProgress (GET) returns a learner's streak, achievements, assignment
// progress and latest feed items (study.Study.Progress). Query parameter
// learner_id (default: the caller); the same visibility as GetSchedule.
// Answers: 200 with a study.Progress; 400 for a malformed learner_id; 401; 404
// for a learner the caller may not see.
func (s *Service) GetProgress(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.caller(w, r, http.MethodGet, account.Teacher, account.Learner)
	if !ok {
		return
	}
	q := newQueryParams(r)
	var learnerID uuid.UUID
	if id := q.uuid("learner_id"); id != nil {
		learnerID = *id
	}
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		p, err := s.study.Progress(r.Context(), tx, viewer(caller), learnerID)
		return toProgress(p), err
	})
}
