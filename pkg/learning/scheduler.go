package learning

import (
	"fmt"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v4"

	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Scheduler applies FSRS-6 (via go-fsrs v4's fsrs.FSRS) to [Card] values at
// the instant given by its clock (the product's one clock.Clock). It is
// immutable after construction and safe for concurrent use.
type Scheduler struct {
	params Params
	lib    *fsrs.FSRS
	clock  clock.Clock
}

// NewScheduler validates p and returns a Scheduler that reads the review time
// from clk's Now, once per operation (clock.System in production, a
// clocktest.Stub in tests).
//
// Errors (all wrapping [ErrInvalidParams]): clk is nil; a weight is NaN or
// infinite; Weights[20] <= 0; DesiredRetention outside (0, 1);
// MaximumInterval outside [1, 36500] days; a step <= 0; or a weight outside
// the range go-fsrs v4 accepts for it (go-fsrs would silently clamp it — we
// refuse instead). The one clamp we allow is the FSRS-6 ceiling on
// Weights[17] and Weights[18] that go-fsrs derives from the number of
// relearning steps when there are two or more of them; that adjustment is
// part of the reference algorithm (it mirrors fsrs-rs) and is applied
// silently.
func NewScheduler(p Params, clk clock.Clock) (*Scheduler, error) {
	if clk == nil {
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
	return &Scheduler{params: p, lib: lib, clock: clk}, nil
}

// WithWeights returns a Scheduler like s (same clock, retention, steps,
// fuzz) whose model weights are w: a learner's own fitted FSRS-6 weights
// (w0..w20, as [Params.Weights]). s is unchanged. Errors: as
// [NewScheduler], wrapping [ErrInvalidParams] (a non-finite weight, or one
// outside the range go-fsrs v4 accepts).
func (s *Scheduler) WithWeights(w [21]float64) (*Scheduler, error) {
	p := s.params.clone()
	p.Weights = w
	return NewScheduler(p, s.clock)
}

// WithRetention returns a Scheduler like s whose desired retention is r:
// the probability of recall at which a Review card comes due (a class
// deck's, [DefaultDesiredRetention] when no class deck holds the card). s
// is unchanged. Errors: r outside (0, 1), wrapping [ErrInvalidParams].
func (s *Scheduler) WithRetention(r float64) (*Scheduler, error) {
	if r == s.params.DesiredRetention {
		return s, nil
	}
	p := s.params.clone()
	p.DesiredRetention = r
	return NewScheduler(p, s.clock)
}

// Params returns a copy of the scheduler's parameters.
func (s *Scheduler) Params() Params {
	return s.params.clone()
}

// NewCard returns a never-reviewed card (State New, Step 0, zero stability and
// difficulty) that is due at the clock's current instant.
func (s *Scheduler) NewCard() Card {
	return Card{State: New, Due: s.clock.Now()}
}

// Review records rating r for card c, given by a learner whose zone is tz,
// at the clock's current instant, and returns the updated card together with
// the log of this review. c is not modified. The new stability (days),
// difficulty (1..10), state, step and due instant are computed by go-fsrs v4
// (FSRS-6): minute-scale (re)learning steps for New/Learning/Relearning cards
// when short-term scheduling is on, otherwise an interval in whole days where
// predicted recall equals [Params.DesiredRetention], fuzzed if
// [Params.EnableFuzz] (seeded by the card before the review, not by the
// instant: fuzz.go). Rating Again on a Review card increments Lapses and
// sends the card to Relearning (or straight back to Review when there are no
// relearning steps). A card may be reviewed before it is due.
//
// The time model (Anki's, with its day cutoff):
//   - Days are study days in tz ([StudyDay], 04:00 rollover): ElapsedDays,
//     and FSRS's choice between its same-day (short-term) and its long-term
//     stability update, count study days, so the memory model does not
//     depend on where UTC midnight falls in the learner's day.
//   - The review instant is the clock's now truncated to [Precision]; a now
//     before c.LastReview (another instance's clock was ahead, two devices)
//     is taken as c.LastReview: the review is recorded with no elapsed time
//     instead of failing, and instants never go backwards on a card. That
//     absorbs at most [MaxClockAhead]: a c.LastReview further ahead is a bad
//     row or a badly wrong clock, not skew, and is read as now (the review
//     is taken at now with no elapsed time, and the card's last review moves
//     back to now), so one bad row cannot move a review, its study day and
//     the learner's streak into the future.
//   - A card in the Review state is due exactly ScheduledDays days after the
//     review, and ScheduledDays never exceeds [Params.MaximumInterval], after
//     every adjustment (the Hard < Good < Easy spacing, fuzz, rounding).
//   - A stored Step beyond today's (re)learning steps (steps shortened since
//     the card was stored) is read as the last step: Again returns to the
//     first step, Hard repeats the last, Good graduates. A negative Step
//     (only corrupted data: the cards table refuses it) is read as the
//     first step.
//
// Errors: r not in Again..Easy wraps [ErrInvalidRating]; an unknown state or
// a reviewed card with stability or difficulty below the
// FSRS minimum wraps [ErrInvalidCard].
func (s *Scheduler) Review(c Card, r Rating, tz *time.Location) (Card, ReviewLog, error) {
	return s.ReviewAt(c, r, tz, s.clock.Now())
}

// ReviewAt is [Scheduler.Review] at the instant at instead of the clock's
// now: a review the learner made earlier (offline) is scheduled at the
// instant it was made, with the elapsed time and study day of that
// instant. The time model's rules apply to at as they do to now (an at
// before c.LastReview is taken as c.LastReview); deciding which instants a
// caller may pass (not in the future, not too old) is the caller's rule.
// Errors: as Review.
func (s *Scheduler) ReviewAt(c Card, r Rating, tz *time.Location, at time.Time) (Card, ReviewLog, error) {
	if !r.Valid() {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: %d (must be 1-4: again, hard, good, easy)", ErrInvalidRating, int(r))
	}
	if !c.State.Valid() {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: unknown state %d", ErrInvalidCard, int(c.State))
	}
	now := at.Truncate(Precision)
	if c.LastReview.After(now.Add(MaxClockAhead)) {
		c.LastReview = now
	}
	if now.Before(c.LastReview) {
		now = c.LastReview
	}
	libNow := libInstant(now, tz)
	lc := s.toLib(c, tz)
	info, err := s.lib.Next(lc, libNow, fsrs.Rating(r))
	if err != nil {
		return Card{}, ReviewLog{}, fmt.Errorf("%w: %w", ErrInvalidCard, err)
	}
	var elapsed uint64
	if c.State != New && !c.LastReview.IsZero() {
		elapsed = StudyDaysBetween(c.LastReview, now, tz)
	}
	next := s.fromLib(info.Card, elapsed)
	next.LastReview = now
	next.Due = now.Add(info.Card.Due.Sub(libNow)).Truncate(Precision)
	if next.State == Review && s.params.EnableFuzz {
		outcomes, err := s.lib.Repeat(lc, libNow)
		if err != nil {
			return Card{}, ReviewLog{}, fmt.Errorf("%w: %w", ErrInvalidCard, err)
		}
		next.ScheduledDays = s.fuzzed(c, outcomes, elapsed)[r-1]
	}
	if next.State == Review {
		next.ScheduledDays = min(next.ScheduledDays, uint64(s.params.MaximumInterval))
		next.Due = now.Add(time.Duration(next.ScheduledDays) * 24 * time.Hour)
	}
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

// Preview returns what a review of c at the instant at would give for each
// rating: element i is the card after rating Rating(i+1) (Again, Hard,
// Good, Easy), computed by [Scheduler.ReviewAt], so with the same FSRS-6
// arithmetic, steps, fuzz and maximum interval as the review itself. The
// fuzz is seeded by the card, not the instant ([Params.EnableFuzz]), so a
// review of the same card at any instant of the same study day gives the
// previewed interval in days. Errors: as Review (an invalid card).
func (s *Scheduler) Preview(c Card, tz *time.Location, at time.Time) ([4]Card, error) {
	var out [4]Card
	for i, r := range []Rating{Again, Hard, Good, Easy} {
		next, _, err := s.ReviewAt(c, r, tz, at)
		if err != nil {
			return [4]Card{}, err
		}
		out[i] = next
	}
	return out, nil
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

// toLib converts c to a go-fsrs card whose last review is mapped by
// libInstant. go-fsrs counts remaining steps where Card counts the current
// step index: remaining = len(steps) - Step. A step index past the end of
// the configured steps (steps shortened since the card was stored) would give
// 0 remaining, and go-fsrs would graduate the card even on Again: it is read
// as the last step (1 remaining) instead; a negative index is read as the
// first step (all steps remaining).
func (s *Scheduler) toLib(c Card, tz *time.Location) fsrs.Card {
	remaining := 0
	if steps := s.steps(c.State); len(steps) > 0 {
		remaining = max(len(steps)-max(c.Step, 0), 1)
	}
	lastReview := c.LastReview
	if !lastReview.IsZero() {
		lastReview = libInstant(lastReview, tz)
	}
	return fsrs.Card{
		Due:            c.Due,
		Stability:      c.Stability,
		Difficulty:     c.Difficulty,
		ScheduledDays:  c.ScheduledDays,
		Reps:           c.Reps,
		Lapses:         c.Lapses,
		State:          fsrs.State(c.State),
		LastReview:     lastReview,
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
