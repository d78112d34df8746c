package functions

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/study"
)

// SubmitReviewRequest is the body of SubmitReview.
type SubmitReviewRequest struct {
	CardID string `json:"card_id" validate:"required,uuid"`
	// Rating is 1 Again, 2 Hard, 3 Good or 4 Easy.
	Rating *int `json:"rating" validate:"required,min=1,max=4"`
	// ReviewedAt, optional, is when the learner made the review (RFC 3339),
	// for a review made offline and sent later (study.ReviewRequest).
	ReviewedAt string `json:"reviewed_at,omitempty" validate:"omitempty,rfc3339"`
}

// SubmitReview records a learner's rating of one of their cards
// (study.Study.Review, in one transaction with its events). Answers: 200
// with a study.ReviewResult; 400 for an invalid body (rating outside 1..4);
// 400 for a reviewed_at in the future (beyond learning.MaxClockAhead) or
// more than 7 days ago; 401 without a valid acting user; 404 when the card
// is not the caller's; 409 for a card suspended as a leech, or a
// reviewed_at before the card's last review.
func (s *Service) SubmitReview(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Learner, "SubmitReview", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, learner user, req SubmitReviewRequest) (any, error) {
			rr := study.ReviewRequest{CardID: uuid.MustParse(req.CardID), Rating: learning.Rating(*req.Rating)}
			if req.ReviewedAt != "" {
				at, _ := text.ParseTime(req.ReviewedAt) // well-formed: validated by decode
				rr.ReviewedAt = &at
			}
			out, batch, err := s.study.Review(ctx, tx, study.Learner{ID: learner.ID, Timezone: learner.Timezone}, rr)
			if err != nil {
				return nil, err
			}
			return out, s.enqueue(ctx, tx, r, learner, batch)
		})
}

// UndoReviewRequest is the body of UndoReview.
type UndoReviewRequest struct {
	CardID string `json:"card_id" validate:"required,uuid"`
	// ReviewID, optional, is the review the learner means to undo
	// (SubmitReview's review_id): the undo happens only if it is still the
	// card's last review.
	ReviewID *int64 `json:"review_id" validate:"omitempty,min=1"`
}

// UndoReview takes back the learner's last review of one of their cards
// (study.Study.Undo, in one transaction with its review.undone event): the
// card gets back its state from before the review, the review log keeps the
// review and records the undo, and the subscribers take back what the
// review counted (docs/architecture.md, "Undoing a review"). Answers: 200
// with a study.UndoResult; 400 for an invalid body; 401; 404 when the card
// is not the caller's; 409 when the card has no review, its last review is
// undone already, review_id is not its last review, or that review was
// recorded before undo existed.
func (s *Service) UndoReview(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Learner, "UndoReview", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, learner user, req UndoReviewRequest) (any, error) {
			out, batch, err := s.study.Undo(ctx, tx, study.Learner{ID: learner.ID, Timezone: learner.Timezone},
				study.UndoRequest{CardID: uuid.MustParse(req.CardID), ReviewID: req.ReviewID})
			if err != nil {
				return nil, err
			}
			return out, s.enqueue(ctx, tx, r, learner, batch)
		})
}
