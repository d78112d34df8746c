package functions

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// CreateAssignmentRequest is the body of CreateAssignment.
type CreateAssignmentRequest struct {
	LearnerID string `json:"learner_id" validate:"required,uuid"`
	DeckID    string `json:"deck_id" validate:"required,uuid"`
	// DueAt is an RFC 3339 instant in the future, at most 366 days ahead.
	DueAt string `json:"due_at" validate:"required,rfc3339"`
}

// CreateAssignment lets a teacher assign one of their own or a library deck
// to a learner of one of their classes, with a due date (classroom.Assign):
// in one transaction it stores the assignment, creates the learner's
// missing cards and enqueues assignment.created, reminder.due_soon and,
// when the learner already knows every word, assignment.completed.
// Answers: 201 with a classroom.Assignment; 400 for an invalid body or a
// due date in the past or more than 366 days ahead; 401 without a valid
// acting user; 404 when the learner is not in the teacher's classes, the
// deck is not visible to the teacher, or the caller is not a teacher; 409
// when the deck is already assigned to that learner by this teacher.
func (s *Service) CreateAssignment(w http.ResponseWriter, r *http.Request) {
	teacher, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req CreateAssignmentRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	in := classroom.AssignRequest{LearnerID: uuid.MustParse(req.LearnerID), DeckID: uuid.MustParse(req.DeckID)}
	in.DueAt, _ = text.ParseTime(req.DueAt)
	s.write(w, r, teacher, "CreateAssignment", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		a, batch, err := s.classroom().Assign(r.Context(), tx, teacher.ID, in)
		if err != nil {
			return nil, err
		}
		return a, s.enqueue(r.Context(), tx, r, teacher, batch)
	})
}
