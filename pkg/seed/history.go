package seed

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
)

// The simulated history of one demo learner (HistoryLearner), long enough
// for the fit job (pkg/fitting) to fit and keep her own FSRS-6 parameters
// at the first `make run`: HistoryDecks library decks started HistoryDays
// days before the seed, studied daily at 19:00 local with HistoryNewPerDay
// new cards a day, recalled as her true memory model (HistoryWeights, away
// from the defaults) says.
const (
	HistoryDays      = 90
	HistoryNewPerDay = 10
)

// HistoryDecks are the library decks of the simulated history.
var HistoryDecks = []string{"Core English 03", "Core English 04", "Core English 05", "Core English 06",
	"Core English 07", "Core English 08", "Core English 09", "Core English 10"}

// HistoryLearner is the demo learner with a simulated history: Yui.
var HistoryLearner = Learners[2]

// HistoryWeights are HistoryLearner's true FSRS-6 weights: she forgets
// faster than the defaults say, new words (w0..w3) and reviewed ones
// (stability grows less after a success, w8), on a steeper curve (w20),
// within the optimizer's clamps.
func HistoryWeights() optimizer.Weights {
	w := learning.DefaultParams().Weights
	w[0], w[1], w[2], w[3] = 0.1, 0.6, 1.5, 5.0
	w[8], w[20] = w[8]*0.6, 0.3
	return optimizer.Clamp(w, 1)
}

// errHasHistory ends SimulateHistory's transaction when the history exists.
var errHasHistory = errors.New("history already seeded")

// SimulateHistory gives HistoryLearner the simulated history of the
// constants above, ending at now, through the learning domain's own
// review (study.Review at each simulated instant, so the review log, the
// cards and their study days are the product's), in one transaction on
// pool, deterministic. It enqueues no event: the history is the learner's
// log, not news (her streak and progress projections do not count it).
// A learner who has reviewed any card keeps her log: running it again
// changes nothing. Load must have run.
func SimulateHistory(ctx context.Context, pool *pgxpool.Pool, now time.Time) error {
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return simulateHistory(ctx, tx, now) })
	if errors.Is(err, errHasHistory) {
		return nil
	}
	return err
}

// simClock is the simulation's clock: the instant of the review under way.
type simClock struct{ t time.Time }

func (c *simClock) Now() time.Time       { return c.t }
func (c *simClock) NowOrNil() *time.Time { return &c.t }

// simCard is a card of the simulation: its id, schedule and true memory.
type simCard struct {
	id     uuid.UUID
	due    time.Time
	seen   bool
	leech  bool
	memory optimizer.MemoryState
	last   time.Time
}

func simulateHistory(ctx context.Context, tx pgx.Tx, now time.Time) error {
	q := store.On(tx)
	yui := study.Learner{ID: HistoryLearner.ID, Timezone: HistoryLearner.Timezone}
	reviewed, err := q.ReviewedBetween(ctx, yui.ID, nil, nil)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if reviewed {
		return errHasHistory
	}
	tz := learning.Zone(yui.Timezone)
	local := now.In(tz)
	first := time.Date(local.Year(), local.Month(), local.Day()-HistoryDays, 19, 0, 0, 0, tz)
	clk := &simClock{t: first}
	sched, err := learning.NewScheduler(learning.DefaultParams(), clk)
	if err != nil {
		return err
	}
	s := study.New(clk, sched)
	for _, title := range HistoryDecks {
		deck, err := q.LibraryDeckByTitle(ctx, title)
		if err != nil {
			return fmt.Errorf("find deck %s: %w", title, err)
		}
		if _, err := s.StartDeck(ctx, tx, yui, deck); err != nil {
			return fmt.Errorf("start %s for %s: %w", title, HistoryLearner.Email, err)
		}
	}
	// Every card: the simulated history is not held to a daily limit of new
	// cards (a session takes HistoryNewPerDay).
	due, err := q.DueCards(ctx, store.DueCardsParams{LearnerID: yui.ID, Now: first,
		NewState: int16(learning.New), NewLeft: math.MaxInt32, MaxCards: 10000})
	if err != nil {
		return fmt.Errorf("history cards: %w", err)
	}
	cards := make([]*simCard, len(due))
	for i, c := range due {
		cards[i] = &simCard{id: c.ID, due: c.Due}
	}
	rng := rand.New(rand.NewPCG(27, 2026))
	truth := HistoryWeights()
	for d := range HistoryDays {
		day := first.AddDate(0, 0, d)
		if err := session(ctx, tx, s, clk, yui, cards, day, truth, rng); err != nil {
			return err
		}
	}
	return nil
}

// session is one evening's study: the cards due, HistoryNewPerDay new ones,
// and the learning steps that fall due within the hour.
func session(ctx context.Context, tx pgx.Tx, s study.Study, clk *simClock, yui study.Learner, cards []*simCard,
	day time.Time, truth optimizer.Weights, rng *rand.Rand,
) error {
	at, end := day, day.Add(time.Hour)
	var queue []*simCard
	fresh := 0
	for _, c := range cards {
		switch {
		case c.leech:
		case c.seen && !c.due.After(at):
			queue = append(queue, c)
		case !c.seen && fresh < HistoryNewPerDay:
			queue, fresh = append(queue, c), fresh+1
		}
	}
	tz := learning.Zone(yui.Timezone)
	for len(queue) > 0 {
		slices.SortStableFunc(queue, func(a, b *simCard) int { return a.due.Compare(b.due) })
		c := queue[0]
		queue = queue[1:]
		if c.due.After(at) {
			at = c.due
		}
		var r learning.Rating
		if !c.seen {
			r = learning.Rating(1 + rng.IntN(3))
			c.memory = optimizer.InitialState(truth, r)
		} else {
			r = learning.Again
			if rng.Float64() < optimizer.Retrievability(truth, at.Sub(c.last).Hours()/24, c.memory.Stability) {
				r = learning.Good
				if rng.Float64() < 0.15 {
					r = learning.Hard
				}
			}
			c.memory = optimizer.NextState(truth, c.memory, uint32(learning.StudyDaysBetween(c.last, at, tz)), r)
		}
		clk.t = at
		res, _, err := s.Review(ctx, tx, yui, study.ReviewRequest{CardID: c.id, Rating: r})
		if err != nil {
			return fmt.Errorf("history review of %s on %s: %w", c.id, at.Format(time.DateOnly), err)
		}
		c.seen, c.last, c.due, c.leech = true, at, res.Card.Due, res.Card.Suspended
		at = at.Add(15 * time.Second)
		if c.due.Before(end) && !c.leech {
			queue = append(queue, c)
		}
	}
	return nil
}
