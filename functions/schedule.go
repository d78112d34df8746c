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

// Schedule is the answer of GetSchedule.
type Schedule struct {
	LearnerID uuid.UUID `json:"learner_id"`
	Timezone  string    `json:"timezone"`
	Now       time.Time `json:"now"`
	// DueCount is the number of cards due now; Due lists the first of them,
	// most overdue first.
	DueCount int       `json:"due_count"`
	Due      []DueCard `json:"due"`
	// Forecast counts cards falling due on each of the coming study days
	// (learning.StudyDay: the learner's zone, from 04:00 to 04:00), today
	// first; today includes the cards already due.
	Forecast []ForecastDay `json:"forecast"`
}

// DueCard is a card due now, with what the learner reviews.
type DueCard struct {
	CardID       uuid.UUID `json:"card_id"`
	Lemma        string    `json:"lemma"`
	PartOfSpeech string    `json:"part_of_speech"`
	Definition   string    `json:"definition"`
	Example      string    `json:"example"`
	State        string    `json:"state"`
	Due          time.Time `json:"due"`
	// Stability is in days; Difficulty in [1, 10]; both 0 for a new card.
	Stability  float64 `json:"stability"`
	Difficulty float64 `json:"difficulty"`
}

// ForecastDay is the number of cards due on one study day (YYYY-MM-DD).
type ForecastDay struct {
	Date string `json:"date"`
	Due  int    `json:"due"`
}

// Query parameter limits of GetSchedule.
const (
	defaultDueLimit = 20
	maxDueLimit     = 200
	defaultDays     = 7
	maxDays         = 60
)

// GetSchedule returns a learner's due cards and a forecast of the coming
// days, read-only. Query parameters: learner_id (default: the caller),
// assignment_id (only the cards of that assignment of the learner), limit
// (cards listed, 1..200, default 20), days (forecast length, 1..60, default
// 7). A learner may read only their own schedule; a teacher may read the
// schedule of a learner in one of their classes. Answers: 200 with a
// Schedule; 400 for invalid parameters; 401 without a valid acting user; 404
// for a learner or assignment the caller may not see.
func (s *Service) GetSchedule(w http.ResponseWriter, r *http.Request) {
	caller, ok := s.caller(w, r, http.MethodGet, "teacher", "learner")
	if !ok {
		return
	}
	q := newQueryParams(r)
	limit := q.int("limit", defaultDueLimit, 1, maxDueLimit)
	days := q.int("days", defaultDays, 1, maxDays)
	var learnerID uuid.UUID
	if id := q.uuid("learner_id"); id != nil {
		learnerID = *id
	}
	assignmentID := q.uuid("assignment_id")
	if err := q.err(); err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	var out Schedule
	err := pgx.BeginTxFunc(r.Context(), s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead},
		func(tx pgx.Tx) error {
			var err error
			out, err = s.schedule(r.Context(), tx, caller, learnerID, assignmentID, limit, days)
			return err
		})
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// assigner is whose assignments caller may see of a learner they can see:
// a teacher only their own (a learner can be in several teachers' classes),
// anyone else (the learner) all, as nil.
func assigner(caller user) *uuid.UUID {
	if caller.Role == "teacher" {
		return &caller.ID
	}
	return nil
}

const visibleLearnerSQL = `
SELECT u.timezone FROM users u
WHERE u.id = $1 AND u.role = 'learner'
  AND (u.id = $2 OR EXISTS (
      SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id
      WHERE m.learner_id = u.id AND c.teacher_id = $2))`

// inScope restricts cards to one assignment's deck when $4 is set, and,
// when the parameter named teacher is set, to the decks that teacher
// assigned to the learner: a teacher does not see the cards of another
// teacher's decks of a learner they share.
func inScope(teacher string) string {
	return `
  AND ($4::uuid IS NULL OR c.lexeme_id IN (
      SELECT di.lexeme_id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
      WHERE a.id = $4 AND a.learner_id = $1))
  AND (` + teacher + `::uuid IS NULL OR c.lexeme_id IN (
      SELECT di.lexeme_id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
      WHERE a.learner_id = $1 AND a.teacher_id = ` + teacher + `))`
}

var dueCardsSQL = `
SELECT c.id, l.lemma, l.part_of_speech, l.definition, l.example, c.state, c.due, c.stability, c.difficulty,
       count(*) OVER ()
FROM cards c JOIN lexemes l ON l.id = c.lexeme_id
WHERE c.learner_id = $1 AND c.due <= $2 AND NOT c.suspended` + inScope("$5") + `
ORDER BY c.due, c.id
LIMIT $3`

// A card counts on the study day of its due instant (learning.StudyDay in
// SQL: the local wall-clock time less the rollover hour $7, then its date);
// overdue cards count on the first day.
var forecastSQL = `
SELECT greatest(((c.due AT TIME ZONE $3) - make_interval(hours => $7))::date,
                (($2::timestamptz AT TIME ZONE $3) - make_interval(hours => $7))::date) AS day, count(*)
FROM cards c
WHERE c.learner_id = $1 AND c.due < $5 AND NOT c.suspended` + inScope("$6") + `
GROUP BY day ORDER BY day`

func (s *Service) schedule(ctx context.Context, tx pgx.Tx, caller user, learnerID uuid.UUID, assignmentID *uuid.UUID, limit, days int) (Schedule, error) {
	if learnerID == uuid.Nil {
		learnerID = caller.ID
	}
	out := Schedule{LearnerID: learnerID, Now: s.now().UTC(), Due: []DueCard{}}
	err := tx.QueryRow(ctx, visibleLearnerSQL, learnerID, caller.ID).Scan(&out.Timezone)
	if errors.Is(err, pgx.ErrNoRows) {
		return Schedule{}, httpx.NotFound("learner")
	}
	if err != nil {
		return Schedule{}, fmt.Errorf("load learner: %w", err)
	}
	loc := learning.Zone(out.Timezone)
	out.Timezone = loc.String()

	if assignmentID != nil {
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM assignments
			WHERE id = $1 AND learner_id = $2 AND ($3::uuid IS NULL OR teacher_id = $3))`,
			*assignmentID, learnerID, assigner(caller)).Scan(&ok); err != nil {
			return Schedule{}, fmt.Errorf("load assignment: %w", err)
		}
		if !ok {
			return Schedule{}, httpx.NotFound("assignment")
		}
	}
	rows, err := tx.Query(ctx, dueCardsSQL, learnerID, out.Now, limit, assignmentID, assigner(caller))
	if err != nil {
		return Schedule{}, fmt.Errorf("list due cards: %w", err)
	}
	var total int
	out.Due, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (DueCard, error) {
		var c DueCard
		var st learning.State
		err := row.Scan(&c.CardID, &c.Lemma, &c.PartOfSpeech, &c.Definition, &c.Example, &st, &c.Due,
			&c.Stability, &c.Difficulty, &total)
		c.State = st.String()
		return c, err
	})
	if err != nil {
		return Schedule{}, fmt.Errorf("list due cards: %w", err)
	}
	out.DueCount = total

	// Forecast days are study days: today is the one holding now, and the
	// forecast ends where the study day after the last one begins.
	today, err := time.Parse(time.DateOnly, learning.StudyDay(out.Now, loc))
	if err != nil {
		return Schedule{}, fmt.Errorf("forecast: %w", err)
	}
	end := learning.StudyDayStart(today.AddDate(0, 0, days), loc)
	counts := map[string]int{}
	rows, err = tx.Query(ctx, forecastSQL, learnerID, out.Now, loc.String(), assignmentID, end, assigner(caller),
		learning.RolloverHour)
	if err != nil {
		return Schedule{}, fmt.Errorf("forecast: %w", err)
	}
	var day time.Time
	var n int
	if _, err := pgx.ForEachRow(rows, []any{&day, &n}, func() error {
		counts[day.Format(time.DateOnly)] = n
		return nil
	}); err != nil {
		return Schedule{}, fmt.Errorf("forecast: %w", err)
	}
	for i := range days {
		date := today.AddDate(0, 0, i).Format(time.DateOnly)
		out.Forecast = append(out.Forecast, ForecastDay{Date: date, Due: counts[date]})
	}
	return out, nil
}
