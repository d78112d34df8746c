package functions

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/study"
)

// Query parameter limits of GetSchedule.
const (
	defaultDueLimit = 20
	maxDueLimit     = 200
	defaultDays     = 7
	maxDays         = 60
)

// GetSchedule returns a learner's due cards and a forecast of the coming
// days, read-only. Query parameters: learner_id (default: the caller),
// assignment_id (only the cards of that assignment of the learner), limit
// (cards listed, 1..200, default 20), days (forecast length, 1..60, default
// 7). A learner may read only their own schedule; a teacher may read the
// schedule of a learner in one of their classes. Answers: 200 with a
// study.Schedule; 400 for invalid parameters; 401 without a valid acting user; 404
// for a learner or assignment the caller may not see.
func (s *Service) GetSchedule(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.caller(w, r, http.MethodGet, account.Teacher, account.Learner)
	if !ok {
		return
	}
	q := newQueryParams(r)
	limit := q.int("limit", defaultDueLimit, 1, maxDueLimit)
	days := q.int("days", defaultDays, 1, maxDays)
	var learnerID uuid.UUID
	if id := q.uuid("learner_id"); id != nil {
		learnerID = *id
	}
	assignmentID := q.uuid("assignment_id")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		sched, err := s.study.Schedule(r.Context(), tx, viewer(caller),
			study.ScheduleQuery{LearnerID: learnerID, AssignmentID: assignmentID, Limit: limit, Days: days})
		return toSchedule(sched), err
	})
}

// viewer is the acting user u as the study domain sees a reader.
func viewer(u user) study.Viewer {
	return study.Viewer{ID: u.ID, Role: u.Role}
}
