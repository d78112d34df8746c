package functions

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// A teacher's chores on a class: take a learner out, rename it or put it in
// the archive, give it a new join code, name a learner as the class sees
// them. The rules, and what each does to the learners' cards, reviews and
// assignments, are pkg/classroom's (RemoveLearner, UpdateClass,
// NewJoinCode, SetLearnerName). Another teacher's class is a 404, as is a
// learner who is not in the class.

// RemoveLearner (POST {"class_id", "learner_id"}) takes the learner out of
// the caller's class and answers 200 with what it did (the assignments of
// the class deleted with their progress; the learner's cards and reviews
// stay) and enqueues learner.removed. 400 for an invalid body; 404 for a
// class that is not the caller's or a learner not in it.
func (s *Service) RemoveLearner(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "RemoveLearner", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.RemoveLearnerJSONBody) (any, error) {
			out, batch, err := s.classroom().RemoveLearner(ctx, tx, t.ID, uuid.MustParse(req.ClassId), uuid.MustParse(req.LearnerId))
			if err != nil {
				return nil, err
			}
			return api.LearnerRemoval{ClassId: out.ClassID, LearnerId: out.LearnerID, Assignments: out.Assignments},
				s.enqueue(ctx, tx, r, t, batch)
		})
}

// UpdateClass (POST {"class_id", "name"?, "archived"?}) renames the
// caller's class and puts it in the archive or takes it out, and answers
// 200 with the class's own fields after (an api.ClassState), enqueuing
// class.updated when something changed. 400 for an invalid body or one
// that changes nothing (neither name nor archived); 404 for a class that is
// not the caller's.
func (s *Service) UpdateClass(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "UpdateClass", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.UpdateClassJSONBody) (any, error) {
			change := classroom.ClassChange{Name: text.Name(req.Name), Archived: req.Archived}
			if change.Name == "" && change.Archived == nil {
				return nil, invalid("give name or archived: an update that changes nothing is a mistake")
			}
			state, batch, err := s.classroom().UpdateClass(ctx, tx, t.ID, uuid.MustParse(req.ClassId), change)
			if err != nil {
				return nil, err
			}
			return toClassState(state), s.enqueue(ctx, tx, r, t, batch)
		})
}

// NewJoinCode (POST {"class_id"}) gives the caller's class a fresh join
// code and answers 200 with the class's own fields (an api.ClassState, with
// the new code), enqueuing class.updated (without the code). The old code
// finds no class from the commit on. 400 for an invalid body; 404 for a
// class that is not the caller's; 409 for an archived class.
func (s *Service) NewJoinCode(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "NewJoinCode", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.NewJoinCodeJSONBody) (any, error) {
			state, batch, err := s.classroom().NewJoinCode(ctx, tx, t.ID, uuid.MustParse(req.ClassId))
			if err != nil {
				return nil, err
			}
			return toClassState(state), s.enqueue(ctx, tx, r, t, batch)
		})
}

// SetLearnerName (POST {"class_id", "learner_id", "display_name"?}) gives
// a learner of the caller's class the name the class shows (left out: the
// account's own again) and answers 200 with the learner as a member of the
// class (an api.ClassMember). No event. 400 for an invalid body (a name of
// more than 200 characters or more than one line); 404 for a class that is
// not the caller's or a learner not in it.
func (s *Service) SetLearnerName(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "SetLearnerName", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.SetLearnerNameJSONBody) (any, error) {
			classID, learnerID := uuid.MustParse(req.ClassId), uuid.MustParse(req.LearnerId)
			if err := s.classroom().SetLearnerName(ctx, tx, t.ID, classID, learnerID, text.Name(req.DisplayName)); err != nil {
				return nil, err
			}
			m, err := classroom.MemberOf(ctx, tx, classID, learnerID)
			return toClassMember(m), err
		})
}
