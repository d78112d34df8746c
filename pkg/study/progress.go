package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// Progress is a learner's streak, achievements, assignment progress and
// feed: the projections the consumers keep, so they trail the learner's
// reviews by the drain's latency.
type Progress struct {
	LearnerID    uuid.UUID
	Streak       Streak
	Achievements []Achievement
	Assignments  []AssignmentProgress
	Feed         []FeedItem
	// Recall is the predicted recall of the words the learner has
	// learned.
	Recall PredictedRecall
}

// RecallHorizonDays is how far ahead PredictedRecall.Later looks, in days.
const RecallHorizonDays = 30

// PredictedRecall is the mean probability that the learner recalls their
// learned words (cards in the learned state, not suspended, in the
// viewer's scope), by FSRS-6's forgetting curve (learning.Retrievability)
// with the learner's current parameters (the defaults until a fit is
// kept), counting the study days since each word's last review.
type PredictedRecall struct {
	// Words is how many learned words the figures cover.
	Words int
	// Today is the mean recall probability now, in [0, 1]; Later
	// RecallHorizonDays days from now without a review; both 0 when Words
	// is 0.
	Today, Later float64
}

// Streak counts consecutive study days (see learning.StudyDay): Current is 0
// once a study day has been missed.
type Streak struct {
	Current int
	Longest int
	LastDay *string
}

// Achievement is one earned achievement.
type Achievement struct {
	Code     string
	EarnedAt time.Time
}

// AssignmentProgress is one assignment's row of the progress projection.
// Pending is true until the projection has counted the assignment's
// creation (the drain's delivery of assignment.created: seconds locally,
// up to a minute in production): until then CardsTotal is 0 and the other
// figures are partial, although the learner's cards exist already.
type AssignmentProgress struct {
	AssignmentID uuid.UUID
	Deck         string
	DueAt        time.Time
	CompletedAt  *time.Time
	CardsTotal   int
	CardsSeen    int
	CardsLearned int
	Reviews      int
	Pending      bool
}

// FeedItem is one entry of the learner's feed, newest first.
type FeedItem struct {
	Kind    string
	Message string
	At      time.Time
}

// Progress reads, in tx, the streak, achievements, assignment progress and
// latest feed items (20) of learnerID (the viewer when uuid.Nil), with the
// same visibility as Schedule: a teacher sees only the assignments they made
// and the feed items of their relation to the learner (store.Feed;
// a learner may be in several teachers' classes). Errors:
// ErrLearnerNotFound.
func (s Study) Progress(ctx context.Context, tx pgx.Tx, viewer Viewer, learnerID uuid.UUID) (Progress, error) {
	learnerID, loc, err := visibleLearner(ctx, store.On(tx), viewer, learnerID)
	if err != nil {
		return Progress{}, err
	}
	q := store.On(tx)
	out := Progress{LearnerID: learnerID}
	if out.Streak, err = s.streak(ctx, q, learnerID, loc); err != nil {
		return Progress{}, err
	}
	achievements, err := q.Achievements(ctx, learnerID)
	if err != nil {
		return Progress{}, fmt.Errorf("load achievements: %w", err)
	}
	out.Achievements = make([]Achievement, 0, len(achievements))
	for _, a := range achievements {
		out.Achievements = append(out.Achievements, Achievement(a))
	}
	assignments, err := q.AssignmentProgress(ctx, learnerID, viewer.assigner())
	if err != nil {
		return Progress{}, fmt.Errorf("load assignment progress: %w", err)
	}
	out.Assignments = make([]AssignmentProgress, 0, len(assignments))
	for _, a := range assignments {
		out.Assignments = append(out.Assignments, AssignmentProgress{AssignmentID: a.ID, Deck: a.Title, DueAt: a.DueAt,
			CompletedAt: a.CompletedAt, CardsTotal: int(a.CardsTotal), CardsSeen: int(a.CardsSeen),
			CardsLearned: int(a.CardsLearned), Reviews: int(a.Reviews), Pending: a.Pending})
	}
	// A learner shared by several teachers never shows one teacher
	// another's decks (store.Feed).
	feed, err := q.Feed(ctx, learnerID, viewer.assigner())
	if err != nil {
		return Progress{}, fmt.Errorf("load feed: %w", err)
	}
	out.Feed = make([]FeedItem, 0, len(feed))
	for _, f := range feed {
		out.Feed = append(out.Feed, FeedItem(f))
	}
	if out.Recall, err = s.predictedRecall(ctx, q, learnerID, viewer, loc); err != nil {
		return Progress{}, err
	}
	return out, nil
}

// predictedRecall is the learner's PredictedRecall at the clock's now in
// their zone loc.
func (s Study) predictedRecall(ctx context.Context, q *store.Queries, learnerID uuid.UUID, viewer Viewer,
	loc *time.Location) (PredictedRecall, error) {
	sched, _, err := s.learnerScheduler(ctx, q, learnerID)
	if err != nil {
		return PredictedRecall{}, err
	}
	cards, err := q.LearnedCards(ctx, learnerID, viewer.assigner(), int16(learning.Review))
	if err != nil {
		return PredictedRecall{}, fmt.Errorf("load learned cards: %w", err)
	}
	if len(cards) == 0 {
		return PredictedRecall{}, nil
	}
	weights, now := sched.Params().Weights, s.clock.Now()
	var out PredictedRecall
	for _, c := range cards {
		t := float64(learning.StudyDaysBetween(c.LastReview, now, loc))
		out.Today += learning.Retrievability(weights, t, c.Stability)
		out.Later += learning.Retrievability(weights, t+RecallHorizonDays, c.Stability)
	}
	out.Words = len(cards)
	out.Today /= float64(len(cards))
	out.Later /= float64(len(cards))
	return out, nil
}

// streak is the learner's streak as of the clock's now in their zone loc.
func (s Study) streak(ctx context.Context, q *store.Queries, learnerID uuid.UUID, loc *time.Location) (Streak, error) {
	row, err := q.Streak(ctx, learnerID)
	if errors.Is(err, store.ErrNotFound) {
		return Streak{}, nil
	}
	if err != nil {
		return Streak{}, fmt.Errorf("load streak: %w", err)
	}
	day := row.LastDay.Format(time.DateOnly)
	out := Streak{Current: int(row.Current), Longest: int(row.Longest), LastDay: &day}
	// A streak is alive while its last day is today or yesterday (study
	// days); after a missed day it is 0 until the next review.
	today, _ := time.Parse(time.DateOnly, learning.StudyDay(s.clock.Now(), loc))
	if row.LastDay.Before(today.AddDate(0, 0, -1)) {
		out.Current = 0
	}
	return out, nil
}
