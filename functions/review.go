package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/store/assignmentstore"
	"github.com/lexora-app/lexora/pkg/store/cardstore"
)

// SubmitReviewRequest is the body of SubmitReview.
type SubmitReviewRequest struct {
	CardID string `json:"card_id" validate:"required,uuid"`
	// Rating is 1 Again, 2 Hard, 3 Good or 4 Easy.
	Rating *int `json:"rating" validate:"required,min=1,max=4"`
}

// CardView is a card's schedule as the client sees it.
type CardView struct {
	ID    uuid.UUID `json:"id"`
	State string    `json:"state"`
	Due   time.Time `json:"due"`
	// Stability is in days; Difficulty in [1, 10].
	Stability     float64 `json:"stability"`
	Difficulty    float64 `json:"difficulty"`
	ScheduledDays uint64  `json:"scheduled_days"`
	Reps          uint64  `json:"reps"`
	Lapses        uint64  `json:"lapses"`
	// Suspended is set when this review made the card a leech.
	Suspended bool `json:"suspended"`
}

// ReviewResult is the answer of SubmitReview.
type ReviewResult struct {
	ReviewID int64    `json:"review_id"`
	Card     CardView `json:"card"`
	// CompletedAssignments lists the assignments this review completed.
	CompletedAssignments []uuid.UUID `json:"completed_assignments"`
}

// SubmitReview records a learner's rating of one of their cards. In one
// transaction it locks the card, computes its next FSRS-6 state, updates it,
// appends to the review log, enqueues review.submitted and, for every
// assignment of the learner whose cards have now all reached the Review
// state, marks it completed and enqueues assignment.completed. Answers: 200
// with a ReviewResult; 400 for an invalid body (rating outside 1..4); 401
// without a valid acting user; 404 when the card is not the caller's; 409
// for a card suspended as a leech. A lapse that reaches learning.LeechLapses
// suspends the card and enqueues card.leeched.
func (s *Service) SubmitReview(w http.ResponseWriter, r *http.Request) {
	learner, ok := s.caller(w, r, http.MethodPost, account.Learner)
	var req SubmitReviewRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.write(w, r, learner, "SubmitReview", http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		return s.submitReview(r.Context(), tx, r, learner, uuid.MustParse(req.CardID), learning.Rating(*req.Rating))
	})
}

// reviewedCard is a card as SubmitReview loads it (cardstore.LockCard).
type reviewedCard struct {
	learning.Card
	lexemeID uuid.UUID
	lemma    string
}

// lockCard locks the learner's row, then their card cardID (cardstore.LockCard);
// 404 when it is not theirs, 409 when it was suspended as a leech.
func lockCard(ctx context.Context, cards *cardstore.Queries, learnerID, cardID uuid.UUID) (reviewedCard, error) {
	row, err := cards.LockCard(ctx, cardID, learnerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return reviewedCard{}, httpx.NotFound("card")
	}
	if err != nil {
		return reviewedCard{}, fmt.Errorf("load card: %w", err)
	}
	if row.Suspended {
		return reviewedCard{}, httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Card suspended",
			fmt.Sprintf("this card was suspended as a leech after %d lapses", row.Lapses))
	}
	c := reviewedCard{lexemeID: row.LexemeID, lemma: row.Lemma, Card: learning.Card{State: row.State, Due: row.Due,
		Stability: row.Stability, Difficulty: row.Difficulty, ElapsedDays: uint64(row.ElapsedDays),
		ScheduledDays: uint64(row.ScheduledDays), Reps: uint64(row.Reps), Lapses: uint64(row.Lapses), Step: int(row.Step)}}
	if row.LastReview != nil {
		c.LastReview = *row.LastReview
	}
	return c, nil
}

// storeReview writes the card's next state (suspended when leech) and
// appends the review to the log; it returns the review's id.
func (s *Service) storeReview(ctx context.Context, cards *cardstore.Queries, learnerID, cardID uuid.UUID, rating learning.Rating,
	before, next learning.Card, rlog learning.ReviewLog, leech bool) (int64, error) {
	if err := cards.UpdateCard(ctx, cardstore.UpdateCardParams{CardID: cardID, State: next.State, Due: next.Due,
		Stability: next.Stability, Difficulty: next.Difficulty, ElapsedDays: int32(next.ElapsedDays),
		ScheduledDays: int32(next.ScheduledDays), Reps: int32(next.Reps), Lapses: int32(next.Lapses), Step: int32(next.Step),
		LastReview: &next.LastReview, Suspended: leech, Now: s.clock.NowOrNil()}); err != nil {
		return 0, fmt.Errorf("update card: %w", err)
	}
	id, err := cards.AppendReview(ctx, cardstore.AppendReviewParams{CardID: cardID, LearnerID: learnerID, Rating: rating,
		StateBefore: before.State, DueBefore: before.Due, StateAfter: next.State, DueAfter: next.Due,
		Stability: next.Stability, Difficulty: next.Difficulty, ElapsedDays: int32(next.ElapsedDays),
		ScheduledDays: int32(next.ScheduledDays), ReviewedAt: rlog.Reviewed})
	if err != nil {
		return 0, fmt.Errorf("append review: %w", err)
	}
	return id, nil
}

func (s *Service) submitReview(ctx context.Context, tx pgx.Tx, r *http.Request, learner user, cardID uuid.UUID, rating learning.Rating) (ReviewResult, error) {
	cards, assignments := cardstore.New(tx), assignmentstore.New(tx)
	card, err := lockCard(ctx, cards, learner.ID, cardID)
	if err != nil {
		return ReviewResult{}, err
	}
	zone := learning.Zone(learner.Timezone)
	next, rlog, err := s.scheduler.Review(card.Card, rating, zone)
	if err != nil {
		return ReviewResult{}, fmt.Errorf("schedule card %s: %w", cardID, err)
	}
	// A lapse that brings the card to learning.LeechLapses makes it a leech:
	// suspended at once (learning state is synchronous), announced by
	// card.leeched.
	leech := rating == learning.Again && card.State == learning.Review && next.Lapses >= learning.LeechLapses
	out := ReviewResult{Card: cardView(cardID, next), CompletedAssignments: []uuid.UUID{}}
	if out.ReviewID, err = s.storeReview(ctx, cards, learner.ID, cardID, rating, card.Card, next, rlog, leech); err != nil {
		return ReviewResult{}, err
	}
	assignmentIDs, err := assignments.AssignmentsOfLexeme(ctx, learner.ID, card.lexemeID)
	if err != nil {
		return ReviewResult{}, fmt.Errorf("find assignments: %w", err)
	}
	evs := events.NewBatch(learner.ID.String())
	evs.Add(events.ReviewSubmitted, events.ReviewSubmittedPayload{
		ReviewID: out.ReviewID, CardID: cardID, LearnerID: learner.ID, LexemeID: card.lexemeID, Rating: int(rating),
		StateBefore: int(card.State), StateAfter: int(next.State), ReviewedAt: rlog.Reviewed,
		Due: next.Due, AssignmentIDs: assignmentIDs,
		StudyDay: learning.StudyDay(rlog.Reviewed, zone),
	})
	if leech {
		evs.Add(events.CardLeeched, events.CardLeechedPayload{
			CardID: cardID, LearnerID: learner.ID, Lemma: card.lemma, Lapses: int(next.Lapses)})
		out.Card.Suspended = true
	}
	if (next.State == learning.Review || leech) && len(assignmentIDs) > 0 {
		done, err := assignments.CompleteAssignments(ctx, rlog.Reviewed, assignmentIDs, learning.Review)
		if err != nil {
			return ReviewResult{}, fmt.Errorf("complete assignments: %w", err)
		}
		for _, a := range done {
			evs.Add(events.AssignmentCompleted, events.AssignmentCompletedPayload{AssignmentID: a.ID, DeckID: a.DeckID,
				LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt, CompletedAt: rlog.Reviewed})
			out.CompletedAssignments = append(out.CompletedAssignments, a.ID)
		}
	}
	return out, s.enqueue(ctx, tx, r, learner, evs)
}

func cardView(id uuid.UUID, c learning.Card) CardView {
	return CardView{ID: id, State: c.State.String(), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		ScheduledDays: c.ScheduledDays, Reps: c.Reps, Lapses: c.Lapses}
}
