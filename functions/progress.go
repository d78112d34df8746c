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
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/store/progressstore"
	"github.com/lexora-app/lexora/pkg/store/userstore"
)

// Progress is the answer of GetProgress: the projections the consumers keep,
// so they trail the learner's reviews by the drain's latency.
type Progress struct {
	LearnerID    uuid.UUID            `json:"learner_id"`
	Streak       Streak               `json:"streak"`
	Achievements []Achievement        `json:"achievements"`
	Assignments  []AssignmentProgress `json:"assignments"`
	Feed         []FeedItem           `json:"feed"`
}

// Streak counts consecutive study days (see learning.StudyDay): Current is 0
// once a study day has been missed.
type Streak struct {
	Current int     `json:"current"`
	Longest int     `json:"longest"`
	LastDay *string `json:"last_day"`
}

// Achievement is one earned achievement.
type Achievement struct {
	Code     string    `json:"code"`
	EarnedAt time.Time `json:"earned_at"`
}

// AssignmentProgress is one assignment's row of the progress projection.
type AssignmentProgress struct {
	AssignmentID uuid.UUID  `json:"assignment_id"`
	Deck         string     `json:"deck"`
	DueAt        time.Time  `json:"due_at"`
	CompletedAt  *time.Time `json:"completed_at"`
	CardsTotal   int        `json:"cards_total"`
	CardsSeen    int        `json:"cards_seen"`
	CardsLearned int        `json:"cards_learned"`
	Reviews      int        `json:"reviews"`
}

// FeedItem is one entry of the learner's feed, newest first.
type FeedItem struct {
	Kind    string    `json:"kind"`
	Message string    `json:"message"`
	At      time.Time `json:"at"`
}

// GetProgress (GET) returns a learner's streak, achievements, assignment
// progress and latest feed items (20). Query parameter learner_id (default:
// the caller); the same visibility as GetSchedule, and a teacher sees only
// the assignments they made and the feed items of their relation to the
// learner (progressstore.Feed; a learner may be in several teachers' classes).
// Answers: 200 with a Progress; 400 for a malformed learner_id; 401; 404
// for a learner the caller may not see.
func (s *Service) GetProgress(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.caller(w, r, http.MethodGet, account.Teacher, account.Learner)
	if !ok {
		return
	}
	q := newQueryParams(r)
	var learnerID uuid.UUID
	if id := q.uuid("learner_id"); id != nil {
		learnerID = *id
	}
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	var out Progress
	err := pgx.BeginTxFunc(r.Context(), s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead},
		func(tx pgx.Tx) error {
			var err error
			out, err = s.progress(r.Context(), tx, caller, learnerID)
			return err
		})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

func (s *Service) progress(ctx context.Context, tx pgx.Tx, caller user, learnerID uuid.UUID) (Progress, error) {
	learnerID, loc, err := visibleLearner(ctx, userstore.New(tx), caller, learnerID)
	if err != nil {
		return Progress{}, err
	}
	q := progressstore.New(tx)
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
	assignments, err := q.AssignmentProgress(ctx, learnerID, assigner(caller))
	if err != nil {
		return Progress{}, fmt.Errorf("load assignment progress: %w", err)
	}
	out.Assignments = make([]AssignmentProgress, 0, len(assignments))
	for _, a := range assignments {
		out.Assignments = append(out.Assignments, AssignmentProgress{AssignmentID: a.ID, Deck: a.Title, DueAt: a.DueAt,
			CompletedAt: a.CompletedAt, CardsTotal: int(a.CardsTotal), CardsSeen: int(a.CardsSeen),
			CardsLearned: int(a.CardsLearned), Reviews: int(a.Reviews)})
	}
	// A teacher sees only the feed items of their relation to the learner
	// (progressstore.Feed): a learner shared by several teachers so never
	// shows one teacher another's decks.
	feed, err := q.Feed(ctx, learnerID, assigner(caller))
	if err != nil {
		return Progress{}, fmt.Errorf("load feed: %w", err)
	}
	out.Feed = make([]FeedItem, 0, len(feed))
	for _, f := range feed {
		out.Feed = append(out.Feed, FeedItem(f))
	}
	return out, nil
}

// streak is the learner's streak as of now in their zone loc.
func (s *Service) streak(ctx context.Context, q *progressstore.Queries, learnerID uuid.UUID, loc *time.Location) (Streak, error) {
	row, err := q.Streak(ctx, learnerID)
	if errors.Is(err, pgx.ErrNoRows) {
		return Streak{}, nil
	}
	if err != nil {
		return Streak{}, fmt.Errorf("load streak: %w", err)
	}
	day := row.LastDay.Format(time.DateOnly)
	out := Streak{Current: int(row.Current), Longest: int(row.Longest), LastDay: &day}
	// A streak is alive while its last day is today or yesterday (study
	// days); after a missed day it is 0 until the next review.
	today, _ := time.Parse(time.DateOnly, learning.StudyDay(s.now(), loc))
	if row.LastDay.Before(today.AddDate(0, 0, -1)) {
		out.Current = 0
	}
	return out, nil
}
