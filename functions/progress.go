package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
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
// learner (feedSQL; a learner may be in several teachers' classes).
// Answers: 200 with a Progress; 400 for a malformed learner_id; 401; 404
// for a learner the caller may not see.
func (s *Service) GetProgress(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.caller(w, r, http.MethodGet, "teacher", "learner")
	if !ok {
		return
	}
	q := newQueryParams(r)
	var learnerID uuid.UUID
	if id := q.uuid("learner_id"); id != nil {
		learnerID = *id
	}
	if err := q.err(); err != nil {
		httpx.WriteError(w, r, s.log, err)
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
		httpx.WriteError(w, r, s.log, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// feedSQL selects the learner's latest feed items; for a teacher ($2) only
// those of the teacher's relation to the learner: items about the learner
// as a whole, achievements of the teacher's own assignments, and leeches of
// words in the decks the teacher assigned to the learner. A learner shared
// by several teachers so never shows one teacher another's decks.
const feedSQL = `
SELECT f.kind, f.message, f.at FROM learner_feed f
WHERE f.learner_id = $1
  AND ($2::uuid IS NULL OR f.learner_wide
       OR EXISTS (SELECT 1 FROM assignments a WHERE a.id = f.assignment_id AND a.teacher_id = $2)
       OR EXISTS (SELECT 1 FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
                  WHERE a.learner_id = $1 AND a.teacher_id = $2 AND di.lexeme_id = f.lexeme_id))
ORDER BY f.id DESC LIMIT 20`

func (s *Service) progress(ctx context.Context, tx pgx.Tx, caller user, learnerID uuid.UUID) (Progress, error) {
	if learnerID == uuid.Nil {
		learnerID = caller.ID
	}
	var tz string
	err := tx.QueryRow(ctx, visibleLearnerSQL, learnerID, caller.ID).Scan(&tz)
	if errors.Is(err, pgx.ErrNoRows) {
		return Progress{}, httpx.NotFound("learner")
	}
	if err != nil {
		return Progress{}, fmt.Errorf("load learner: %w", err)
	}
	out := Progress{LearnerID: learnerID}
	var last *time.Time
	err = tx.QueryRow(ctx, "SELECT current, longest, last_day FROM learner_streaks WHERE learner_id = $1", learnerID).
		Scan(&out.Streak.Current, &out.Streak.Longest, &last)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return Progress{}, fmt.Errorf("load streak: %w", err)
	}
	if last != nil {
		day := last.Format(time.DateOnly)
		out.Streak.LastDay = &day
		// A streak is alive while its last day is today or yesterday (study
		// days); after a missed day it is 0 until the next review.
		loc := learning.Zone(tz)
		today, _ := time.Parse(time.DateOnly, learning.StudyDay(s.now(), loc))
		if last.Before(today.AddDate(0, 0, -1)) {
			out.Streak.Current = 0
		}
	}
	rows, err := tx.Query(ctx, "SELECT code, earned_at FROM learner_achievements WHERE learner_id = $1 ORDER BY earned_at, code", learnerID)
	if err != nil {
		return Progress{}, err
	}
	if out.Achievements, err = pgx.CollectRows(rows, pgx.RowToStructByPos[Achievement]); err != nil {
		return Progress{}, fmt.Errorf("load achievements: %w", err)
	}
	rows, err = tx.Query(ctx, `SELECT a.id, d.title, a.due_at, a.completed_at, coalesce(p.cards_total, 0),
		coalesce(p.cards_seen, 0), coalesce(p.cards_learned, 0), coalesce(p.reviews, 0)
		FROM assignments a JOIN decks d ON d.id = a.deck_id
		LEFT JOIN assignment_progress p ON p.assignment_id = a.id
		WHERE a.learner_id = $1 AND ($2::uuid IS NULL OR a.teacher_id = $2)
		ORDER BY a.due_at, a.id`, learnerID, assigner(caller))
	if err != nil {
		return Progress{}, err
	}
	if out.Assignments, err = pgx.CollectRows(rows, pgx.RowToStructByPos[AssignmentProgress]); err != nil {
		return Progress{}, fmt.Errorf("load assignment progress: %w", err)
	}
	rows, err = tx.Query(ctx, feedSQL, learnerID, assigner(caller))
	if err != nil {
		return Progress{}, err
	}
	if out.Feed, err = pgx.CollectRows(rows, pgx.RowToStructByPos[FeedItem]); err != nil {
		return Progress{}, fmt.Errorf("load feed: %w", err)
	}
	return out, nil
}
