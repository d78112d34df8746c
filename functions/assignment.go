package functions

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// assigned is CreateAssignment's answer: 201 when the class or a learner
// got the deck, 200 when they had it already.
type assigned struct{ api.ClassAssignment }

func (a assigned) httpStatus() int {
	if a.Status == api.ClassAssignmentStatusAssigned {
		return http.StatusCreated
	}
	return http.StatusOK
}

// CreateAssignment lets a teacher assign one of their own or a library deck
// through one of their classes, with a due date, to the class (its current
// learners, and those who join before the due date, even when it has none
// yet) or to one of its learners (classroom.Assign): in one transaction it
// stores the class's deck and the assignments, creates the learners' missing
// cards and enqueues, per learner under the learner's ordering key,
// assignment.created, reminder.due_soon and, when the learner already knows
// every word, assignment.completed. Answers: 201 with a
// classroom.ClassAssignment (status, and each learner's outcome) when the
// class or a learner got the deck, 200 with it when they had it from this
// class already; 400 for an invalid body (a learner_id given as null, ""
// or the nil UUID too: only a learner_id left out means the class) or a due date in the
// past or more than 366 days ahead; 401 without a valid acting user; 404 when the class
// is not the teacher's, the learner is not in it, the deck is not visible
// to the teacher, or the caller is not a teacher.
func (s *Service) CreateAssignment(w http.ResponseWriter, r *http.Request) {
	teacher, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req api.CreateAssignmentJSONBody
	if !ok || !s.decode(w, r, &req) {
		return
	}
	in := classroom.AssignRequest{ClassID: uuid.MustParse(req.ClassId), DeckID: uuid.MustParse(req.DeckId)}
	if req.LearnerId != "" {
		// classroom.Assign reads uuid.Nil as "the class": the nil UUID given
		// as learner_id must not widen the assignment to the whole class.
		if in.LearnerID = uuid.MustParse(req.LearnerId); in.LearnerID == uuid.Nil {
			s.fail(w, r, fieldProblem("learner_id", "must not be the nil UUID: give a learner's id, or leave the field out for the class"))
			return
		}
	}
	in.DueAt, _ = text.ParseTime(req.DueAt)
	s.write(w, r, teacher, "CreateAssignment", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		a, batch, err := s.classroom().Assign(r.Context(), tx, teacher.ID, in)
		if err != nil {
			return nil, err
		}
		return assigned{toClassAssignment(a)}, s.enqueue(r.Context(), tx, r, teacher, batch)
	})
}
