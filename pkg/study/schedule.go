package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// Schedule is a learner's due cards and the forecast of the coming study days.
type Schedule struct {
	LearnerID uuid.UUID
	Timezone  string
	Now       time.Time
	// DueCount is the number of cards served now: every due review and at
	// most NewCardsLeft new cards (never reviewed); Due lists the first of
	// them, most overdue first. NewCount is the new cards among DueCount.
	DueCount int
	NewCount int
	Due      []DueCard
	// NewCardsPerDay is the learner's daily limit of new cards (see
	// NewCardBudget), NewCardsToday the cards they reviewed for the first
	// time this study day, NewCardsLeft the limit less those (never below 0).
	NewCardsPerDay, NewCardsToday, NewCardsLeft int
	// Forecast counts cards falling due on each of the coming study days
	// (learning.StudyDay: the learner's zone, from 04:00 to 04:00), today
	// first; today includes the cards already due.
	Forecast []ForecastDay
}

// DueCard is a card due now, with what the learner reviews.
type DueCard struct {
	CardID       uuid.UUID
	Lemma        string
	PartOfSpeech string
	Definition   string
	Example      string
	// TermLanguage is the BCP 47 tag of the term's language: its deck's,
	// "en" for the library.
	TermLanguage string
	// DeckTitle is the title of the card's deck: the teacher's deck its
	// entry belongs to, or for a library word the first of the learner's
	// decks (assigned or started) that holds it. The same term in a library
	// deck and a teacher's deck is two cards, each naming its deck.
	DeckTitle string
	State     string
	Due       time.Time
	// Stability is in days; Difficulty in [1, 10]; both 0 for a new card.
	Stability  float64
	Difficulty float64
	// Preview is what each rating would give if the card were reviewed at
	// the schedule's now, with the learner's parameters and the card's
	// desired retention as the review itself: Again, Hard, Good, Easy in
	// that order (learning.Scheduler.Preview).
	Preview []RatingPreview
}

// RatingPreview is the outcome of one rating of a due card, reviewed at
// the schedule's now.
type RatingPreview struct {
	// Rating is 1 Again, 2 Hard, 3 Good or 4 Easy.
	Rating int
	// State is the card's state after the rating.
	State string
	Due   time.Time
	// IntervalSeconds is Due minus the schedule's now, in seconds: minutes
	// for a (re)learning step, whole days for a Review card.
	IntervalSeconds int64
}

// ForecastDay is the number of cards due on one study day (YYYY-MM-DD).
type ForecastDay struct {
	Date string
	Due  int
}

// ScheduleQuery selects what Schedule reads.
type ScheduleQuery struct {
	// LearnerID is whose schedule; uuid.Nil for the viewer's own.
	LearnerID uuid.UUID
	// AssignmentID, when set, restricts the schedule to that assignment's
	// cards.
	AssignmentID *uuid.UUID
	// Limit is how many due cards to list (the count covers all); Days the
	// forecast's length in study days. Both must be positive.
	Limit, Days int
}

// Schedule reads, in tx, a learner's due cards (most overdue first, at most
// q.Limit, and their count; of the new cards only the first NewCardsLeft,
// see NewCardBudget) and how many cards fall due on each of the next
// q.Days study days, at the clock's now. A learner reads their own; a
// teacher the schedule of a learner in one of their classes, restricted to
// the decks that teacher assigned. Suspended cards are left out. Errors:
// ErrLearnerNotFound, ErrAssignmentNotFound (not the learner's, or not one
// the teacher made).
func (s Study) Schedule(ctx context.Context, tx pgx.Tx, viewer Viewer, q ScheduleQuery) (Schedule, error) {
	learnerID, loc, err := visibleLearner(ctx, store.On(tx), viewer, q.LearnerID)
	if err != nil {
		return Schedule{}, err
	}
	out := Schedule{LearnerID: learnerID, Timezone: loc.String(), Now: s.clock.Now().UTC()}
	if q.AssignmentID != nil {
		ok, err := store.On(tx).IsAssignmentVisible(ctx, *q.AssignmentID, learnerID, viewer.assigner())
		if err != nil {
			return Schedule{}, fmt.Errorf("load assignment: %w", err)
		}
		if !ok {
			return Schedule{}, ErrAssignmentNotFound
		}
	}
	cards := store.On(tx)
	if out.NewCardsPerDay, out.NewCardsToday, err = NewCardBudget(ctx, cards, learnerID, out.Now, loc); err != nil {
		return Schedule{}, err
	}
	out.NewCardsLeft = max(0, out.NewCardsPerDay-out.NewCardsToday)
	if out.Due, out.DueCount, out.NewCount, err = s.dueCards(ctx, cards, loc, store.DueCardsParams{LearnerID: learnerID,
		Now: out.Now, AssignmentID: q.AssignmentID, TeacherID: viewer.assigner(), NewState: int16(learning.New),
		NewLeft: int32(out.NewCardsLeft), MaxCards: int32(q.Limit),
		DefaultRetention: s.scheduler.Params().DesiredRetention}); err != nil {
		return Schedule{}, err
	}
	if out.Forecast, err = forecast(ctx, cards, learnerID, out.Now, loc, q, viewer); err != nil {
		return Schedule{}, err
	}
	return out, nil
}

// forecast counts the cards due on each of q.Days study days from now's.
// Forecast days are study days: today is the one holding now, and the
// forecast ends where the study day after the last one begins. A card
// counts on the study day of its due instant; overdue cards count on the
// first day (store.Forecast).
func forecast(ctx context.Context, cards *store.Queries, learnerID uuid.UUID, now time.Time, loc *time.Location,
	q ScheduleQuery, viewer Viewer) ([]ForecastDay, error) {
	today, err := time.Parse(time.DateOnly, learning.StudyDay(now, loc))
	if err != nil {
		return nil, fmt.Errorf("forecast: %w", err)
	}
	counts, err := cards.Forecast(ctx, store.ForecastParams{LearnerID: learnerID, Now: now, Zone: loc.String(),
		RolloverHours: learning.RolloverHour, EndAt: learning.StudyDayStart(today.AddDate(0, 0, q.Days), loc),
		AssignmentID: q.AssignmentID, TeacherID: viewer.assigner()})
	if err != nil {
		return nil, fmt.Errorf("forecast: %w", err)
	}
	byDay := map[string]int{}
	for _, c := range counts {
		byDay[c.Day.Format(time.DateOnly)] = int(c.Due)
	}
	out := make([]ForecastDay, 0, q.Days)
	for i := range q.Days {
		date := today.AddDate(0, 0, i).Format(time.DateOnly)
		out = append(out, ForecastDay{Date: date, Due: byDay[date]})
	}
	return out, nil
}

// visibleLearner is learnerID (the viewer when uuid.Nil) and their zone if
// the viewer may see them (store.VisibleLearnerTimezone); else
// ErrLearnerNotFound.
func visibleLearner(ctx context.Context, users *store.Queries, viewer Viewer, learnerID uuid.UUID) (uuid.UUID, *time.Location, error) {
	if learnerID == uuid.Nil {
		learnerID = viewer.ID
	}
	tz, err := users.VisibleLearnerTimezone(ctx, learnerID, account.Learner, viewer.ID)
	if errors.Is(err, store.ErrNotFound) {
		return uuid.Nil, nil, ErrLearnerNotFound
	}
	if err != nil {
		return uuid.Nil, nil, fmt.Errorf("load learner: %w", err)
	}
	return learnerID, learning.Zone(tz), nil
}

// NewCardBudget is the learner's daily limit of new cards (perDay) and
// how many cards they reviewed for the first time (reviewed: a review of a
// card in state New, not undone) on the study day holding now, in their
// zone loc (learning.StudyDayBounds, the day streaks count). The limit is
// the largest new_cards_per_day of the learner's classes, a class without
// one counting as learning.DefaultNewCardsPerDay, and that default for a
// learner in no class. It is one budget for all of the learner's cards:
// every class's decks and the library decks they started on their own.
func NewCardBudget(ctx context.Context, q *store.Queries, learnerID uuid.UUID, now time.Time, loc *time.Location) (perDay, reviewed int, err error) {
	start, end := learning.StudyDayBounds(now, loc)
	b, err := q.NewCardBudget(ctx, store.NewCardBudgetParams{LearnerID: learnerID, DefaultPerDay: learning.DefaultNewCardsPerDay,
		Start: start, EndAt: end, NewState: learning.New})
	if err != nil {
		return 0, 0, fmt.Errorf("read the new card budget: %w", err)
	}
	return int(b.PerDay), int(b.Reviewed), nil
}

// dueCards lists the cards p selects, each with its ratings' preview at
// p.Now in the learner's zone loc, and counts all of them and the new ones. The preview is
// scheduled as the review would be: with the learner's current parameters
// (learnerScheduler) at the card's desired retention (store.CardRetention's
// rule).
func (s Study) dueCards(ctx context.Context, cards *store.Queries, loc *time.Location, p store.DueCardsParams) ([]DueCard, int, int, error) {
	rows, err := cards.DueCards(ctx, p)
	if err != nil {
		return nil, 0, 0, fmt.Errorf("list due cards: %w", err)
	}
	learnerSched, _, err := s.learnerScheduler(ctx, cards, p.LearnerID)
	if err != nil {
		return nil, 0, 0, err
	}
	byRetention := map[float64]*learning.Scheduler{}
	due, total, fresh := make([]DueCard, 0, len(rows)), 0, 0
	for _, c := range rows {
		card := learning.Card{State: c.State, Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
			ElapsedDays: uint64(c.ElapsedDays), ScheduledDays: uint64(c.ScheduledDays), Reps: uint64(c.Reps),
			Lapses: uint64(c.Lapses), Step: int(c.Step)}
		if c.LastReview != nil {
			card.LastReview = *c.LastReview
		}
		sched, ok := byRetention[c.DesiredRetention]
		if !ok {
			if sched, err = learnerSched.WithRetention(c.DesiredRetention); err != nil {
				return nil, 0, 0, fmt.Errorf("card %s: desired retention %v: %w", c.ID, c.DesiredRetention, err)
			}
			byRetention[c.DesiredRetention] = sched
		}
		preview, err := ratingPreview(sched, card, loc, p.Now)
		if err != nil {
			return nil, 0, 0, fmt.Errorf("preview card %s: %w", c.ID, err)
		}
		due = append(due, DueCard{CardID: c.ID, Lemma: c.Lemma, PartOfSpeech: c.PartOfSpeech, Definition: c.Definition,
			Example: c.Example, TermLanguage: c.TermLanguage, DeckTitle: c.DeckTitle, State: c.State.String(), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
			Preview: preview})
		total, fresh = int(c.Total), int(c.NewTotal)
	}
	return due, total, fresh, nil
}

// ratingPreview is what each rating of c at now would give with sched
// (learning.Scheduler.Preview).
func ratingPreview(sched *learning.Scheduler, c learning.Card, loc *time.Location, now time.Time) ([]RatingPreview, error) {
	next, err := sched.Preview(c, loc, now)
	if err != nil {
		return nil, err
	}
	out := make([]RatingPreview, 0, len(next))
	for i, n := range next {
		out = append(out, RatingPreview{Rating: i + 1, State: n.State.String(), Due: n.Due,
			IntervalSeconds: int64(n.Due.Sub(now) / time.Second)})
	}
	return out, nil
}
