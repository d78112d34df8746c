package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
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
	learner, ok := s.caller(w, r, http.MethodPost, "learner")
	var req SubmitReviewRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.write(w, r, learner, "SubmitReview", http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		return s.submitReview(r.Context(), tx, r, learner, uuid.MustParse(req.CardID), learning.Rating(*req.Rating))
	})
}

// The learner row is locked first (as in CreateAssignment) so that one
// learner's writes, and so their events, are serialised.
const lockCardSQL = `
WITH learner AS (SELECT id FROM users WHERE id = $2 FOR NO KEY UPDATE)
SELECT c.lexeme_id, c.state, c.due, c.stability, c.difficulty, c.elapsed_days, c.scheduled_days,
       c.reps, c.lapses, c.step, c.last_review, c.suspended, l2.lemma
FROM cards c JOIN learner l ON l.id = c.learner_id JOIN lexemes l2 ON l2.id = c.lexeme_id
WHERE c.id = $1
FOR UPDATE OF c`

const updateCardSQL = `
UPDATE cards SET state = $2, due = $3, stability = $4, difficulty = $5, elapsed_days = $6,
    scheduled_days = $7, reps = $8, lapses = $9, step = $10, last_review = $11, suspended = $12, updated_at = now()
WHERE id = $1`

const insertReviewSQL = `
INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before, state_after, due_after,
    stability, difficulty, elapsed_days, scheduled_days, reviewed_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
RETURNING id`

const assignmentsOfLexemeSQL = `
SELECT a.id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
WHERE a.learner_id = $1 AND di.lexeme_id = $2
ORDER BY a.id`

// An assignment is complete when every one of its deck's lexemes has a card
// of the learner in the Review state, or suspended as a leech (it will not
// be scheduled again, so it must not hold the assignment open).
const completeAssignmentsSQL = `
UPDATE assignments a SET completed_at = $2
WHERE a.id = ANY($1) AND a.completed_at IS NULL
  AND NOT EXISTS (
      SELECT 1 FROM deck_items di
      LEFT JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = a.learner_id
      WHERE di.deck_id = a.deck_id AND c.state IS DISTINCT FROM 2 AND NOT coalesce(c.suspended, false))
RETURNING a.id, a.deck_id, a.learner_id, a.teacher_id, a.due_at`

func (s *Service) submitReview(ctx context.Context, tx pgx.Tx, r *http.Request, learner user, cardID uuid.UUID, rating learning.Rating) (ReviewResult, error) {
	var card learning.Card
	var lexemeID uuid.UUID
	var elapsed, scheduled, reps, lapses int64
	var lastReview *time.Time
	var suspended bool
	var lemma string
	err := tx.QueryRow(ctx, lockCardSQL, cardID, learner.ID).Scan(&lexemeID, &card.State, &card.Due,
		&card.Stability, &card.Difficulty, &elapsed, &scheduled, &reps, &lapses, &card.Step, &lastReview, &suspended, &lemma)
	if errors.Is(err, pgx.ErrNoRows) {
		return ReviewResult{}, httpx.NotFound("card")
	}
	if err != nil {
		return ReviewResult{}, fmt.Errorf("load card: %w", err)
	}
	if suspended {
		return ReviewResult{}, httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Card suspended",
			fmt.Sprintf("this card was suspended as a leech after %d lapses", lapses))
	}
	card.ElapsedDays, card.ScheduledDays, card.Reps, card.Lapses = uint64(elapsed), uint64(scheduled), uint64(reps), uint64(lapses)
	if lastReview != nil {
		card.LastReview = *lastReview
	}

	next, rlog, err := s.scheduler.Review(card, rating, learning.Zone(learner.Timezone))
	if err != nil {
		return ReviewResult{}, fmt.Errorf("schedule card %s: %w", cardID, err)
	}
	// A lapse that brings the card to learning.LeechLapses makes it a leech:
	// suspended at once (learning state is synchronous), announced by
	// card.leeched.
	leech := rating == learning.Again && card.State == learning.Review && next.Lapses >= learning.LeechLapses
	if _, err := tx.Exec(ctx, updateCardSQL, cardID, next.State, next.Due, next.Stability, next.Difficulty,
		next.ElapsedDays, next.ScheduledDays, next.Reps, next.Lapses, next.Step, next.LastReview, leech); err != nil {
		return ReviewResult{}, fmt.Errorf("update card: %w", err)
	}
	out := ReviewResult{Card: cardView(cardID, next), CompletedAssignments: []uuid.UUID{}}
	if err := tx.QueryRow(ctx, insertReviewSQL, cardID, learner.ID, rating, card.State, card.Due,
		next.State, next.Due, next.Stability, next.Difficulty, next.ElapsedDays, next.ScheduledDays,
		rlog.Reviewed).Scan(&out.ReviewID); err != nil {
		return ReviewResult{}, fmt.Errorf("append review: %w", err)
	}

	rows, err := tx.Query(ctx, assignmentsOfLexemeSQL, learner.ID, lexemeID)
	if err != nil {
		return ReviewResult{}, fmt.Errorf("find assignments: %w", err)
	}
	assignmentIDs, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		return ReviewResult{}, fmt.Errorf("find assignments: %w", err)
	}
	key := learner.ID.String()
	headers := requestHeaders(r, learner)
	submitted, err := outbox.NewEvent(events.ReviewSubmitted, key, events.ReviewSubmittedPayload{
		ReviewID: out.ReviewID, CardID: cardID, LearnerID: learner.ID, LexemeID: lexemeID, Rating: int(rating),
		StateBefore: int(card.State), StateAfter: int(next.State), ReviewedAt: rlog.Reviewed,
		Due: next.Due, AssignmentIDs: assignmentIDs,
		StudyDay: learning.StudyDay(rlog.Reviewed, learning.Zone(learner.Timezone)),
	})
	if err != nil {
		return ReviewResult{}, err
	}
	submitted.Headers = headers
	evs := []outbox.Event{submitted}

	if leech {
		ev, err := outbox.NewEvent(events.CardLeeched, key, events.CardLeechedPayload{
			CardID: cardID, LearnerID: learner.ID, Lemma: lemma, Lapses: int(next.Lapses)})
		if err != nil {
			return ReviewResult{}, err
		}
		ev.Headers = headers
		evs = append(evs, ev)
		out.Card.Suspended = true
	}
	if (next.State == learning.Review || leech) && len(assignmentIDs) > 0 {
		rows, err := tx.Query(ctx, completeAssignmentsSQL, assignmentIDs, rlog.Reviewed)
		if err != nil {
			return ReviewResult{}, fmt.Errorf("complete assignments: %w", err)
		}
		done, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (events.AssignmentCompletedPayload, error) {
			p := events.AssignmentCompletedPayload{CompletedAt: rlog.Reviewed}
			return p, row.Scan(&p.AssignmentID, &p.DeckID, &p.LearnerID, &p.TeacherID, &p.DueAt)
		})
		if err != nil {
			return ReviewResult{}, fmt.Errorf("complete assignments: %w", err)
		}
		for _, p := range done {
			ev, err := outbox.NewEvent(events.AssignmentCompleted, key, p)
			if err != nil {
				return ReviewResult{}, err
			}
			ev.Headers = headers
			evs = append(evs, ev)
			out.CompletedAssignments = append(out.CompletedAssignments, p.AssignmentID)
		}
	}
	return out, s.outbox.Enqueue(ctx, tx, evs...)
}

func cardView(id uuid.UUID, c learning.Card) CardView {
	return CardView{ID: id, State: c.State.String(), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		ScheduledDays: c.ScheduledDays, Reps: c.Reps, Lapses: c.Lapses}
}
