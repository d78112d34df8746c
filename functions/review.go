package functions

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/study"
)

// SubmitReviewRequest is the body of SubmitReview.
type SubmitReviewRequest struct {
	CardID string `json:"card_id" validate:"required,uuid"`
	// Rating is 1 Again, 2 Hard, 3 Good or 4 Easy.
	Rating *int `json:"rating" validate:"required,min=1,max=4"`
}

// SubmitReview records a learner's rating of one of their cards
// (study.Study.Review, in one transaction with its events). Answers: 200
// with a study.ReviewResult; 400 for an invalid body (rating outside 1..4);
// 401 without a valid acting user; 404 when the card is not the caller's;
// 409 for a card suspended as a leech.
func (s *Service) SubmitReview(w http.ResponseWriter, r *http.Request) {
	learner, ok := s.caller(w, r, http.MethodPost, account.Learner)
	var req SubmitReviewRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.write(w, r, learner, "SubmitReview", http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		out, batch, err := s.study.Review(r.Context(), tx, study.Learner{ID: learner.ID, Timezone: learner.Timezone},
			study.ReviewRequest{CardID: uuid.MustParse(req.CardID), Rating: learning.Rating(*req.Rating)})
		if err != nil {
			return nil, err
		}
		return out, s.enqueue(r.Context(), tx, r, learner, batch)
	})
}
