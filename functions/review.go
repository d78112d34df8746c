package functions

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/study"
)

// SubmitReview records a learner's rating of one of their cards
// (study.Study.Review, in one transaction with its events). Answers: 200
// with a study.ReviewResult; 400 for an invalid body (rating outside 1..4);
// 400 for a reviewed_at in the future (beyond learning.MaxClockAhead) or
// more than 7 days ago; 401 without a valid acting user; 404 when the card
// is not the caller's; 409 for a card suspended as a leech, or a
// reviewed_at before the card's last review.
func (s *Service) SubmitReview(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Learner, "SubmitReview", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, learner user, req api.SubmitReviewJSONBody) (any, error) {
			rr := study.ReviewRequest{CardID: uuid.MustParse(req.CardId), Rating: learning.Rating(*req.Rating)}
			if req.ReviewedAt != "" {
				at, _ := text.ParseTime(req.ReviewedAt) // well-formed: validated by decode
				rr.ReviewedAt = &at
			}
			out, batch, err := s.study.Review(ctx, tx, study.Learner{ID: learner.ID, Timezone: learner.Timezone}, rr)
			if err != nil {
				return nil, err
			}
			return toReviewResult(out), s.enqueue(ctx, tx, r, learner, batch)
		})
}

// UndoReview takes back the learner's last review not yet undone of one of
// their cards (study.Study.Undo, in one transaction with its review.undone
// event): the card gets back its state from before the review, the review
// log keeps the review and records the undo, and the subscribers take back
// what the review counted (docs/architecture.md, "Undoing a review");
// called again, it takes back the review before. Answers: 200 with a
// study.UndoResult; 400 for an invalid body; 401; 404 when the card is not
// the caller's; 409 when the card has no review, every review of it (or the
// one named) is undone already, review_id is not its last review not
// undone, or that review was recorded before undo existed.
func (s *Service) UndoReview(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Learner, "UndoReview", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, learner user, req api.UndoReviewJSONBody) (any, error) {
			out, batch, err := s.study.Undo(ctx, tx, study.Learner{ID: learner.ID, Timezone: learner.Timezone},
				study.UndoRequest{CardID: uuid.MustParse(req.CardId), ReviewID: req.ReviewId})
			if err != nil {
				return nil, err
			}
			return toUndoResult(out), s.enqueue(ctx, tx, r, learner, batch)
		})
}
