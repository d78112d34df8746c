package oracle

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
)

// Habit is a way of studying that real classes show.
type Habit int

const (
	// Regular studies most days (9 in 10) and rates honestly.
	Regular Habit = iota
	// HardForForgot presses Hard, not Again, for 60 % of the cards they
	// forgot.
	HardForForgot
	// Crammer studies only the day before each weekly test, then reviews
	// every card due by the end of the test day, early or overdue.
	Crammer
	// Holiday studies daily but takes two weeks off from the 15th day.
	Holiday
	// MixedDecks studies two decks at once, one whose words are forgotten
	// half as fast as the learner's model says, one twice as fast.
	MixedDecks
)

// String returns the habit's name.
func (h Habit) String() string {
	return [...]string{"regular", "hard-for-forgot", "crammer", "holiday", "mixed-decks"}[h]
}

// Learner describes one simulated learner.
type Learner struct {
	Seed    uint64
	Habit   Habit
	Reviews int    // the log's length
	Zone    string // IANA zone of the study days
}

// Name is a short label for reports: habit, reviews, seed.
func (l Learner) Name() string { return fmt.Sprintf("%s-%d-s%d", l.Habit, l.Reviews, l.Seed) }

// TrueWeights draws the learner's true FSRS-6 weights: each default weight
// multiplied or divided by a factor between 1.2 and 1.6 (w7, the mean
// reversion, between 2 and 10 times its tiny default), then clamped.
func TrueWeights(rng *rand.Rand) optimizer.Weights {
	w := learning.DefaultParams().Weights
	for i := range w {
		f := 1.2 + 0.4*rng.Float64()
		if i == 7 {
			f = 2 + 8*rng.Float64()
		}
		if rng.IntN(2) == 0 {
			f = 1 / f
		}
		w[i] *= f
	}
	return optimizer.Clamp(w, 1)
}

// card is a simulated card: the product's scheduling state and the
// learner's true memory of it.
type card struct {
	id     string
	deck   int
	sched  learning.Card
	memory optimizer.MemoryState
	last   time.Time
}

// sim is one learner's simulation.
type sim struct {
	l         Learner
	rng       *rand.Rand
	tz        *time.Location
	truth     optimizer.Weights
	scheduler *learning.Scheduler
	cards     []*card
	log       []optimizer.Review
	newPerDay int
	firstP    [4]float64 // first rating Again..Easy
	passP     [3]float64 // Hard, Good, Easy when recalled
}

// Simulate runs learner l until their log holds l.Reviews reviews and
// returns their true weights and the log, deterministic for l.
func Simulate(l Learner) (optimizer.Weights, []optimizer.Review, error) {
	rng := rand.New(rand.NewPCG(l.Seed, uint64(l.Habit)))
	sch, err := learning.NewScheduler(learning.DefaultParams(), noClock{})
	if err != nil {
		return optimizer.Weights{}, nil, fmt.Errorf("simulate: %w", err)
	}
	s := &sim{l: l, rng: rng, tz: learning.Zone(l.Zone), truth: TrueWeights(rng), scheduler: sch}
	s.newPerDay = 5 + rng.IntN(16)
	a := 0.1 + 0.25*rng.Float64()
	s.firstP = [4]float64{a, 0.1, 0.8 - a, 0.1}
	h := 0.05 + 0.15*rng.Float64()
	e := 0.05 + 0.15*rng.Float64()
	s.passP = [3]float64{h, 1 - h - e, e}
	day := time.Date(2026, 1, 5, 0, 0, 0, 0, s.tz)
	for d := 0; len(s.log) < l.Reviews; d++ {
		if d > 20000 {
			return optimizer.Weights{}, nil, fmt.Errorf("simulate %s: no end after %d days", l.Name(), d)
		}
		if s.studies(d) {
			if err := s.session(day.AddDate(0, 0, d), d); err != nil {
				return optimizer.Weights{}, nil, err
			}
		}
	}
	return s.truth, s.log[:l.Reviews], nil
}

// studies reports whether the learner studies on day d.
func (s *sim) studies(d int) bool {
	switch s.l.Habit {
	case Crammer:
		return d%7 == 6
	case Holiday:
		if d >= 14 && d < 28 {
			return false
		}
	}
	return s.rng.Float64() < 0.9
}

// session is one study session on day d (date at local midnight): it
// starts between 08:00 and 01:00 the next night (the same study day),
// takes the cards due (for a crammer, due by the end of the test day), new
// cards, and the learning steps that fall due while it lasts.
func (s *sim) session(date time.Time, d int) error {
	now := date.Add(8*time.Hour + time.Duration(s.rng.IntN(17*60))*time.Minute)
	_, dayEnd := learning.StudyDayBounds(now, s.tz)
	horizon, fresh := dayEnd, s.newPerDay
	if s.l.Habit == Crammer {
		horizon, fresh = dayEnd.Add(24*time.Hour), 7*s.newPerDay
	}
	var queue []*card
	for _, c := range s.cards {
		if !c.sched.Due.After(horizon) {
			queue = append(queue, c)
		}
	}
	for range fresh {
		c := &card{id: fmt.Sprintf("c%d", len(s.cards)), deck: len(s.cards) % 2, sched: learning.Card{State: learning.New, Due: now}}
		s.cards = append(s.cards, c)
		queue = append(queue, c)
	}
	end := now.Add(time.Hour)
	for len(queue) > 0 && len(s.log) < s.l.Reviews {
		slices.SortStableFunc(queue, func(a, b *card) int { return a.sched.Due.Compare(b.sched.Due) })
		c := queue[0]
		queue = queue[1:]
		if c.sched.Due.After(now) && c.sched.State != learning.Review && c.sched.Due.Before(end) {
			now = c.sched.Due // wait for a learning step
		}
		if err := s.review(c, now); err != nil {
			return fmt.Errorf("simulate %s day %d: %w", s.l.Name(), d, err)
		}
		now = now.Add(time.Duration(8+s.rng.IntN(13)) * time.Second)
		if c.sched.State != learning.Review && c.sched.Due.Before(end) {
			queue = append(queue, c)
		}
	}
	return nil
}

// review has the learner rate card c at instant at: recall is drawn from
// the true model, the rating from the learner's habits, and the product's
// scheduler schedules the card.
func (s *sim) review(c *card, at time.Time) error {
	var r learning.Rating
	if c.sched.State == learning.New {
		r = learning.Rating(1 + pick(s.rng, s.firstP[:]))
		c.memory = optimizer.InitialState(s.truth, r)
	} else {
		elapsed := at.Sub(c.last).Hours() / 24
		switch {
		case s.l.Habit == MixedDecks && c.deck == 0:
			elapsed *= 0.5
		case s.l.Habit == MixedDecks:
			elapsed *= 2
		}
		recall := s.rng.Float64() < optimizer.Retrievability(s.truth, elapsed, c.memory.Stability)
		switch {
		case recall:
			r = learning.Rating(2 + pick(s.rng, s.passP[:]))
		case s.l.Habit == HardForForgot && s.rng.Float64() < 0.6:
			r = learning.Hard
		default:
			r = learning.Again
		}
		days := uint32(learning.StudyDaysBetween(c.last, at, s.tz))
		c.memory = optimizer.NextState(s.truth, c.memory, days, r)
	}
	next, _, err := s.scheduler.ReviewAt(c.sched, r, s.tz, at)
	if err != nil {
		return fmt.Errorf("review %s: %w", c.id, err)
	}
	c.sched, c.last = next, at
	s.log = append(s.log, optimizer.Review{Card: c.id, Rating: r, At: at})
	return nil
}

// pick draws an index with the given probabilities.
func pick(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for i, q := range p {
		if u < q {
			return i
		}
		u -= q
	}
	return len(p) - 1
}

// noClock is the scheduler's clock in the simulation, which gives every
// review its instant (learning.Scheduler.ReviewAt) and never asks the
// time.
type noClock struct{}

func (noClock) Now() time.Time       { return time.Time{} }
func (noClock) NowOrNil() *time.Time { return nil }
