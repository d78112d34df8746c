package learning

import (
	"fmt"
	"math"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v4"
)

// Clock returns the current instant. The [Scheduler] calls it once per
// operation; production passes time.Now, tests pass a controllable fake.
type Clock func() time.Time

// Scheduler applies FSRS-6 (via go-fsrs v4's fsrs.FSRS) to [Card] values at
// the instant given by its [Clock]. It is immutable after construction and
// safe for concurrent use.
type Scheduler struct {
	params Params
	lib    *fsrs.FSRS
	now    Clock
}

// NewScheduler validates p and returns a Scheduler that reads the review time
// from now.
//
// Errors (all wrapping [ErrInvalidParams]): now is nil; a weight is NaN or
// infinite; Weights[20] <= 0; DesiredRetention outside (0, 1);
// MaximumInterval outside [1, 36500] days; a step <= 0; or a weight outside
// the range go-fsrs v4 accepts for it (go-fsrs would silently clamp it — we
// refuse instead). The one clamp we allow is the FSRS-6 ceiling on
// Weights[17] and Weights[18] that go-fsrs derives from the number of
// relearning steps when there are two or more of them; that adjustment is
// part of the reference algorithm (it mirrors fsrs-rs) and is applied
// silently.
func NewScheduler(p Params, now Clock) (*Scheduler, error) {
	if now == nil {
		return nil, fmt.Errorf("%w: clock must not be nil", ErrInvalidParams)
	}
	p = p.clone()
	if err := p.validate(); err != nil {
		return nil, err
	}
	lib := fsrs.NewFSRS(p.toLib())
	// fsrs.NewFSRS clamps weights to its per-weight ranges without telling
	// anyone; detect that and report it.
	for i, w := range p.Weights {
		got := lib.W[i]
		if got == w {
			continue
		}
		if (i == 17 || i == 18) && len(p.RelearningSteps) > 1 {
			continue // relearning-step-dependent FSRS-6 ceiling, see doc
		}
		return nil, fmt.Errorf("%w: Weights[%d] = %v is outside the range go-fsrs v4 accepts (it would be clamped to %v)",
			ErrInvalidParams, i, w, got)
	}
	if lib.RequestRetention != p.DesiredRetention || lib.MaximumInterval != p.MaximumInterval {
		// Cannot happen after validate, but never run with go-fsrs' silent
		// fallback to defaults.
		return nil, fmt.Errorf("%w: rejected by go-fsrs validation", ErrInvalidParams)
	}
	return &Scheduler{params: p, lib: lib, now: now}, nil
}

// Params returns a copy of the scheduler's parameters.
func (s *Scheduler) Params() Params {
	return s.params.clone()
}

// NewCard returns a never-reviewed card (State New, Step 0, zero stability and
// difficulty) that is due at the clock's current instant.
func (s *Scheduler) NewCard() Card {
	return Card{State: New, Due: s.now()}
}

// Review records rating r for card c at the clock's current instant and
// returns the updated card together with the log of this review. c is not
// modified. The new stability (days), difficulty (1..10), state, step and due
// instant are computed by go-fsrs v4 (FSRS-6): minute-scale (re)learning
// steps for New/Learning/Relearning cards when short-term scheduling is on,
// otherwise an interval in whole days where predicted recall equals
// [Params.DesiredRetention], capped at [Params.MaximumInterval] and fuzzed if
// [Params.EnableFuzz]. Rating Again on a Review card increments Lapses and
// sends the card to Relearning (or straight back to Review when there are no
// relearning steps). A card may be reviewed before it is due.
//
// Errors: r not in Again..Easy wraps [ErrInvalidRating]; an unknown state, a
// negative Step, a reviewed card with stability or difficulty below the FSRS
// minimum, or LastReview after the clock's now wraps [ErrInvalidCard].
func (s *Scheduler) Review(c Card, r Rating) (Card, ReviewLog, error) {
	if !r.Valid() {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: %d (must be 1-4: again, hard, good, easy)", ErrInvalidRating, int(r))
	}
	if !c.State.Valid() {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: unknown state %d", ErrInvalidCard, int(c.State))
	}
	if c.Step < 0 {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: negative step %d", ErrInvalidCard, c.Step)
	}
	now := s.now()
	info, err := s.lib.Next(s.toLib(c), now, fsrs.Rating(r))
	if err != nil {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: %w", ErrInvalidCard, err)
	}
	var elapsed uint64
	if c.State != New && !c.LastReview.IsZero() {
		elapsed = calendarDaysBetween(c.LastReview, now)
	}
	next := s.fromLib(info.Card, elapsed)
	log := ReviewLog{
		Rating:        r,
		State:         c.State,
		Due:           c.Due,
		Stability:     next.Stability,
		Difficulty:    next.Difficulty,
		ElapsedDays:   elapsed,
		ScheduledDays: next.ScheduledDays,
		Reviewed:      now,
	}
	return next, log, nil
}

// steps returns the (re)learning steps that apply in state st.
func (s *Scheduler) steps(st State) []time.Duration {
	switch st {
	case Learning:
		return s.params.LearningSteps
	case Relearning:
		return s.params.RelearningSteps
	}
	return nil
}

// toLib converts c to a go-fsrs card. go-fsrs counts remaining steps where
// Card counts the current step index: remaining = len(steps) - Step. A step
// index past the end of the configured steps (steps shortened since the card
// was stored) gives 0 remaining, and go-fsrs graduates the card.
func (s *Scheduler) toLib(c Card) fsrs.Card {
	remaining := 0
	if c.State == Learning || c.State == Relearning {
		remaining = max(len(s.steps(c.State))-c.Step, 0)
	}
	return fsrs.Card{
		Due:            c.Due,
		Stability:      c.Stability,
		Difficulty:     c.Difficulty,
		ScheduledDays:  c.ScheduledDays,
		Reps:           c.Reps,
		Lapses:         c.Lapses,
		State:          fsrs.State(c.State),
		LastReview:     c.LastReview,
		RemainingSteps: remaining,
	}
}

// fromLib converts a go-fsrs card back, see toLib for the step mapping.
func (s *Scheduler) fromLib(lc fsrs.Card, elapsedDays uint64) Card {
	st := State(lc.State)
	step := 0
	if st == Learning || st == Relearning {
		step = max(len(s.steps(st))-lc.RemainingSteps, 0)
	}
	return Card{
		State:         st,
		Due:           lc.Due,
		Stability:     lc.Stability,
		Difficulty:    lc.Difficulty,
		ElapsedDays:   elapsedDays,
		ScheduledDays: lc.ScheduledDays,
		Reps:          lc.Reps,
		Lapses:        lc.Lapses,
		Step:          step,
		LastReview:    lc.LastReview,
	}
}

// calendarDaysBetween counts UTC calendar-day boundaries from last to cur, the
// way go-fsrs v4 computes elapsed days for scheduling (0 if cur is earlier).
func calendarDaysBetween(last, cur time.Time) uint64 {
	l, c := last.UTC(), cur.UTC()
	d1 := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, time.UTC)
	d2 := time.Date(c.Year(), c.Month(), c.Day(), 0, 0, 0, 0, time.UTC)
	h := d2.Sub(d1).Hours()
	if h < 0 {
		return 0
	}
	return uint64(math.Floor(h / 24))
}
