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
	"github.com/lexora-app/lexora/pkg/store/assignmentstore"
	"github.com/lexora-app/lexora/pkg/store/cardstore"
	"github.com/lexora-app/lexora/pkg/store/userstore"
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
	caller, ok := s.caller(w, r, http.MethodGet, account.Teacher, account.Learner)
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
		s.fail(w, r, err)
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
		s.fail(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// assigner is whose assignments caller may see of a learner they can see:
// a teacher only their own (a learner can be in several teachers' classes),
// anyone else (the learner) all, as nil.
func assigner(caller user) *uuid.UUID {
	if caller.Role == account.Teacher {
		return &caller.ID
	}
	return nil
}

// visibleLearner is the zone of learnerID (the caller when uuid.Nil) if
// the caller may see them (userstore.VisibleLearnerTimezone); 404 otherwise.
func visibleLearner(ctx context.Context, users *userstore.Queries, caller user, learnerID uuid.UUID) (uuid.UUID, *time.Location, error) {
	if learnerID == uuid.Nil {
		learnerID = caller.ID
	}
	tz, err := users.VisibleLearnerTimezone(ctx, learnerID, account.Learner, caller.ID)
	if errors.Is(err, pgx.ErrNoRows) {
		return uuid.Nil, nil, httpx.NotFound("learner")
	}
	if err != nil {
		return uuid.Nil, nil, fmt.Errorf("load learner: %w", err)
	}
	return learnerID, learning.Zone(tz), nil
}

func (s *Service) schedule(ctx context.Context, tx pgx.Tx, caller user, learnerID uuid.UUID, assignmentID *uuid.UUID, limit, days int) (Schedule, error) {
	learnerID, loc, err := visibleLearner(ctx, userstore.New(tx), caller, learnerID)
	if err != nil {
		return Schedule{}, err
	}
	out := Schedule{LearnerID: learnerID, Timezone: loc.String(), Now: s.now().UTC()}
	if assignmentID != nil {
		ok, err := assignmentstore.New(tx).IsVisible(ctx, *assignmentID, learnerID, assigner(caller))
		if err != nil {
			return Schedule{}, fmt.Errorf("load assignment: %w", err)
		}
		if !ok {
			return Schedule{}, httpx.NotFound("assignment")
		}
	}
	cards := cardstore.New(tx)
	if out.Due, out.DueCount, err = dueCards(ctx, cards, cardstore.DueCardsParams{LearnerID: learnerID, Now: out.Now,
		AssignmentID: assignmentID, TeacherID: assigner(caller), MaxCards: int32(limit)}); err != nil {
		return Schedule{}, err
	}
	// Forecast days are study days: today is the one holding now, and the
	// forecast ends where the study day after the last one begins.
	today, err := time.Parse(time.DateOnly, learning.StudyDay(out.Now, loc))
	if err != nil {
		return Schedule{}, fmt.Errorf("forecast: %w", err)
	}
	// A card counts on the study day of its due instant; overdue cards
	// count on the first day (cardstore.Forecast).
	counts, err := cards.Forecast(ctx, cardstore.ForecastParams{LearnerID: learnerID, Now: out.Now, Zone: loc.String(),
		RolloverHours: learning.RolloverHour, EndAt: learning.StudyDayStart(today.AddDate(0, 0, days), loc),
		AssignmentID: assignmentID, TeacherID: assigner(caller)})
	if err != nil {
		return Schedule{}, fmt.Errorf("forecast: %w", err)
	}
	byDay := map[string]int{}
	for _, c := range counts {
		byDay[c.Day.Format(time.DateOnly)] = int(c.Due)
	}
	for i := range days {
		date := today.AddDate(0, 0, i).Format(time.DateOnly)
		out.Forecast = append(out.Forecast, ForecastDay{Date: date, Due: byDay[date]})
	}
	return out, nil
}

// dueCards lists the cards p selects and counts all of them.
func dueCards(ctx context.Context, cards *cardstore.Queries, p cardstore.DueCardsParams) ([]DueCard, int, error) {
	rows, err := cards.DueCards(ctx, p)
	if err != nil {
		return nil, 0, fmt.Errorf("list due cards: %w", err)
	}
	due, total := make([]DueCard, 0, len(rows)), 0
	for _, c := range rows {
		due = append(due, DueCard{CardID: c.ID, Lemma: c.Lemma, PartOfSpeech: c.PartOfSpeech, Definition: c.Definition,
			Example: c.Example, State: c.State.String(), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty})
		total = int(c.Total)
	}
	return due, total, nil
}
