package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// MaxReviewAge is how long after a review (made offline) it may still be
// recorded at its own instant.
const MaxReviewAge = 7 * 24 * time.Hour

// ReviewRequest is one rating of one of the learner's cards.
type ReviewRequest struct {
	CardID uuid.UUID
	Rating learning.Rating
	// ReviewedAt, when set, is when the learner made the review (a review
	// made offline and sent later); nil means now.
	ReviewedAt *time.Time
}

// reviewInstant is when a review counts: the clock's now, or req.ReviewedAt
// when set, which must be at most learning.MaxClockAhead ahead of now (a
// client's clock skew; such an instant counts as now, so no card is
// reviewed in the future; the web client corrects a device clock further
// off by the offset it measures from the functions' Date header) and at
// most MaxReviewAge before it. Errors:
// ErrReviewedInFuture, ErrReviewTooOld.
func (s Study) reviewInstant(req ReviewRequest) (time.Time, error) {
	now := s.clock.Now()
	if req.ReviewedAt == nil {
		return now, nil
	}
	at := req.ReviewedAt.Truncate(learning.Precision)
	switch {
	case at.After(now.Add(learning.MaxClockAhead)):
		return time.Time{}, ErrReviewedInFuture
	case at.Before(now.Add(-MaxReviewAge)):
		return time.Time{}, ErrReviewTooOld
	case at.After(now):
		return now, nil
	}
	return at, nil
}

// CardView is a card's schedule as the client sees it.
type CardView struct {
	ID    uuid.UUID
	State string
	Due   time.Time
	// Stability is in days; Difficulty in [1, 10].
	Stability     float64
	Difficulty    float64
	ScheduledDays uint64
	Reps          uint64
	Lapses        uint64
	// Suspended is set when this review made the card a leech.
	Suspended bool
}

// ReviewResult is what a review changed.
type ReviewResult struct {
	ReviewID int64
	Card     CardView
	// CompletedAssignments lists the assignments this review completed.
	CompletedAssignments []uuid.UUID
}

// lockedCard is a card as a review, or an undo, loads it (store.LockCard).
type lockedCard struct {
	learning.Card
	id        uuid.UUID
	lexemeID  uuid.UUID
	lemma     string
	suspended bool
}

// reviewed is one review as it is stored: the card before and after it,
// the rating, its instant and study day, the assignments it counts for, and
// whether it made the card a leech.
type reviewed struct {
	before      lockedCard
	next        learning.Card
	rating      learning.Rating
	at          time.Time
	studyDay    string
	assignments []uuid.UUID
	leech       bool
	// parametersID is the learner_parameters row that scheduled the
	// review; nil for the defaults.
	parametersID *int64
}

// Review records learner's rating of one of their cards, in tx: it locks
// the learner's row and the card, computes the card's next FSRS-6 state
// (learning.Scheduler.Review, at the clock's now, in the learner's zone),
// stores it, appends the review to the log (with the card's state before
// it, its study day and assignments, which an undo restores and takes back)
// and, for every assignment of the learner whose cards have now all
// reached the Review state, marks it completed. The review counts at
// req.ReviewedAt when set (a review made offline: its schedule, study day
// and completion are computed at that instant; see reviewInstant), else at
// the clock's now. A lapse that brings a Review card to
// learning.LeechLapses suspends it at once (learning state is synchronous).
//
// The batch holds, under the learner's ordering key: review.submitted;
// card.leeched when the card became a leech; assignment.completed for each
// completed assignment.
//
// Errors: ErrCardNotFound when the card is not the learner's; a
// *SuspendedError (ErrSuspended) for a card suspended as a leech;
// ErrReviewedInFuture, ErrReviewTooOld, and ErrBeforeLastReview (an
// instant before the card's last review) for req.ReviewedAt; an invalid
// rating wraps learning.ErrInvalidRating.
func (s Study) Review(ctx context.Context, tx pgx.Tx, learner Learner, req ReviewRequest) (ReviewResult, events.Batch, error) {
	at, err := s.reviewInstant(req)
	if err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	q := store.On(tx)
	card, err := lockCard(ctx, q, learner.ID, req.CardID)
	switch {
	case err != nil:
		return ReviewResult{}, events.Batch{}, err
	case card.suspended:
		return ReviewResult{}, events.Batch{}, &SuspendedError{Lapses: int(card.Lapses)}
	case req.ReviewedAt != nil && at.Before(card.LastReview):
		return ReviewResult{}, events.Batch{}, ErrBeforeLastReview
	}
	sched, parametersID, err := s.learnerScheduler(ctx, q, learner.ID)
	if err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	if sched, err = s.withCardRetention(ctx, q, sched, learner.ID, card.lexemeID); err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	zone := learning.Zone(learner.Timezone)
	next, rlog, err := sched.ReviewAt(card.Card, req.Rating, zone, at)
	if err != nil {
		return ReviewResult{}, events.Batch{}, fmt.Errorf("schedule card %s: %w", req.CardID, err)
	}
	r := reviewed{before: card, next: next, rating: req.Rating, at: rlog.Reviewed, studyDay: learning.StudyDay(rlog.Reviewed, zone),
		parametersID: parametersID,
		// A lapse that brings the card to learning.LeechLapses makes it a
		// leech: suspended at once, announced by card.leeched.
		leech: req.Rating == learning.Again && card.State == learning.Review && next.Lapses >= learning.LeechLapses}
	if r.assignments, err = assignmentsOf(ctx, q, learner.ID, card.lexemeID); err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	out := ReviewResult{Card: cardView(req.CardID, next), CompletedAssignments: []uuid.UUID{}}
	out.Card.Suspended = r.leech
	if out.ReviewID, err = s.storeReview(ctx, q, learner.ID, r); err != nil {
		return ReviewResult{}, events.Batch{}, err
	}
	batch := events.NewBatch(learner.ID.String())
	batch.Add(events.ReviewSubmittedPayload{
		Review: events.Review{ReviewID: out.ReviewID, CardID: req.CardID, LearnerID: learner.ID, LexemeID: card.lexemeID,
			Rating: int(req.Rating), StateBefore: int(card.State), StateAfter: int(next.State), ReviewedAt: r.at,
			StudyDay: r.studyDay},
		Due: next.Due, AssignmentIDs: r.assignments})
	if r.leech {
		batch.Add(events.CardLeechedPayload{
			CardID: req.CardID, LearnerID: learner.ID, Lemma: card.lemma, Lapses: int(next.Lapses)})
	}
	if next.State == learning.Review || r.leech {
		if out.CompletedAssignments, err = complete(ctx, q, r.assignments, r.at, &batch); err != nil {
			return ReviewResult{}, events.Batch{}, err
		}
	}
	return out, batch, nil
}

// learnerScheduler is the scheduler of the learner's current parameters
// (store.CurrentParameters: their latest learner_parameters row) and that
// row's id, or s's own scheduler (the defaults) and nil when they have
// none. Read after the learner's row is locked: a fit adopts parameters
// under the same lock (pkg/fitting), so a review is scheduled by, and
// records, the set current when it commits. New parameters apply from a
// card's next review on; no card is rescheduled when they change.
func (s Study) learnerScheduler(ctx context.Context, q *store.Queries, learnerID uuid.UUID) (*learning.Scheduler, *int64, error) {
	row, err := q.CurrentParameters(ctx, learnerID)
	if errors.Is(err, store.ErrNotFound) {
		return s.scheduler, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load learner parameters: %w", err)
	}
	if len(row.Weights) != 21 {
		return nil, nil, fmt.Errorf("learner parameters %d: %d weights, want 21", row.ID, len(row.Weights))
	}
	sched, err := s.scheduler.WithWeights([21]float64(row.Weights))
	if err != nil {
		return nil, nil, fmt.Errorf("learner parameters %d: %w", row.ID, err)
	}
	return sched, &row.ID, nil
}

// withCardRetention is sched at the desired retention of the learner's
// card of lexemeID (store.CardRetention: the highest of its class decks',
// s's own retention, the default 0.90, when no class deck holds it).
func (s Study) withCardRetention(ctx context.Context, q *store.Queries, sched *learning.Scheduler,
	learnerID, lexemeID uuid.UUID) (*learning.Scheduler, error) {
	retention, err := q.CardRetention(ctx, s.scheduler.Params().DesiredRetention, learnerID, lexemeID)
	if err != nil {
		return nil, fmt.Errorf("load desired retention: %w", err)
	}
	sched, err = sched.WithRetention(retention)
	if err != nil {
		return nil, fmt.Errorf("desired retention %v: %w", retention, err)
	}
	return sched, nil
}

// lockCard locks the learner's row, then their card cardID
// (store.LockCard), suspended or not. Errors: ErrCardNotFound.
func lockCard(ctx context.Context, cards *store.Queries, learnerID, cardID uuid.UUID) (lockedCard, error) {
	row, err := cards.LockCard(ctx, cardID, learnerID)
	if errors.Is(err, store.ErrNotFound) {
		return lockedCard{}, ErrCardNotFound
	}
	if err != nil {
		return lockedCard{}, fmt.Errorf("load card: %w", err)
	}
	c := lockedCard{id: cardID, lexemeID: row.LexemeID, lemma: row.Lemma, suspended: row.Suspended, Card: learning.Card{
		State: row.State, Due: row.Due, Stability: row.Stability, Difficulty: row.Difficulty, ElapsedDays: uint64(row.ElapsedDays),
		ScheduledDays: uint64(row.ScheduledDays), Reps: uint64(row.Reps), Lapses: uint64(row.Lapses), Step: int(row.Step)}}
	if row.LastReview != nil {
		c.LastReview = *row.LastReview
	}
	return c, nil
}

// assignmentsOf lists the learner's assignments whose deck holds the
// lexeme (an empty list when none does).
func assignmentsOf(ctx context.Context, q *store.Queries, learnerID, lexemeID uuid.UUID) ([]uuid.UUID, error) {
	ids, err := q.AssignmentsOfLexeme(ctx, learnerID, lexemeID)
	if err != nil {
		return nil, fmt.Errorf("find assignments: %w", err)
	}
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return ids, nil
}

// storeReview writes the card's next state (suspended when it became a
// leech) and appends the review to the log, with the card's whole state
// before it; it returns the review's id.
func (s Study) storeReview(ctx context.Context, q *store.Queries, learnerID uuid.UUID, r reviewed) (int64, error) {
	if err := q.UpdateCard(ctx, cardUpdate(r.before.id, r.next, r.leech, s.clock.NowOrNil())); err != nil {
		return 0, fmt.Errorf("update card: %w", err)
	}
	b := r.before.Card
	studyDay, err := time.Parse(time.DateOnly, r.studyDay)
	if err != nil {
		return 0, fmt.Errorf("study day %q: %w", r.studyDay, err)
	}
	p := store.AppendReviewParams{CardID: r.before.id, LearnerID: learnerID, Rating: r.rating,
		StateBefore: b.State, DueBefore: b.Due, StateAfter: r.next.State, DueAfter: r.next.Due,
		Stability: r.next.Stability, Difficulty: r.next.Difficulty, ElapsedDays: int32(r.next.ElapsedDays),
		ScheduledDays: int32(r.next.ScheduledDays), ReviewedAt: r.at,
		BeforeStability: b.Stability, BeforeDifficulty: b.Difficulty, BeforeElapsedDays: int32(b.ElapsedDays),
		BeforeScheduledDays: int32(b.ScheduledDays), BeforeReps: int32(b.Reps), BeforeLapses: int32(b.Lapses),
		BeforeStep: int32(b.Step), BeforeSuspended: r.before.suspended, StudyDay: studyDay, AssignmentIds: r.assignments,
		ParametersID: r.parametersID}
	if !b.LastReview.IsZero() {
		p.BeforeLastReview = &b.LastReview
	}
	id, err := q.AppendReview(ctx, p)
	if err != nil {
		return 0, fmt.Errorf("append review: %w", err)
	}
	return id, nil
}

// complete marks completed, at at, each of the assignments ids whose cards
// are now all in the Review state (store.CompleteAssignments),
// adds assignment.completed for each to batch and returns their ids.
func complete(ctx context.Context, assignments *store.Queries, ids []uuid.UUID, at time.Time, batch *events.Batch) ([]uuid.UUID, error) {
	completed := []uuid.UUID{}
	if len(ids) == 0 {
		return completed, nil
	}
	done, err := assignments.CompleteAssignments(ctx, at, ids, learning.Review)
	if err != nil {
		return nil, fmt.Errorf("complete assignments: %w", err)
	}
	for _, a := range done {
		batch.Add(events.AssignmentCompletedPayload{Assignment: events.Assignment{AssignmentID: a.ID,
			DeckID: a.DeckID, LearnerID: a.LearnerID, TeacherID: a.TeacherID, DueAt: a.DueAt}, CompletedAt: at})
		completed = append(completed, a.ID)
	}
	return completed, nil
}

func cardView(id uuid.UUID, c learning.Card) CardView {
	return CardView{ID: id, State: c.State.String(), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		ScheduledDays: c.ScheduledDays, Reps: c.Reps, Lapses: c.Lapses}
}
