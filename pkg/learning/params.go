package learning

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v4"
)

// Errors returned by this package. Returned errors wrap one of these; test
// with errors.Is.
var (
	// ErrInvalidParams is wrapped by [NewScheduler] errors caused by
	// invalid [Params] or a nil clock.Clock.
	ErrInvalidParams = errors.New("learning: invalid scheduler params")
	// ErrInvalidRating is wrapped by [Scheduler.Review] errors caused by a
	// rating outside Again..Easy (1..4).
	ErrInvalidRating = errors.New("learning: invalid rating")
	// ErrInvalidCard is wrapped by [Scheduler.Review] errors caused by an
	// inconsistent [Card] (unknown state, negative step, non-positive
	// stability/difficulty on a reviewed card, last review after now) or by
	// go-fsrs rejecting the computed result.
	ErrInvalidCard = errors.New("learning: invalid card")
)

// Params configures an FSRS-6 [Scheduler]. It mirrors go-fsrs v4's
// fsrs.Parameters, with steps expressed as time.Duration instead of float
// minutes. Start from [DefaultParams] and override fields; the zero value is
// invalid.
type Params struct {
	// Weights are the 21 FSRS-6 model weights w0..w20 (go-fsrs fsrs.Weights).
	// w0..w3 are the initial stabilities in days for Again..Easy; w20 is the
	// forgetting-curve decay and must be > 0. Use the defaults until weights
	// have been optimised from the learner's review history.
	Weights [21]float64
	// DesiredRetention is the target probability of recall at the moment a
	// card comes due, in (0, 1). Higher means shorter intervals. FSRS default
	// 0.9.
	DesiredRetention float64
	// MaximumInterval caps scheduled intervals, in days, in [1, 36500].
	MaximumInterval float64
	// EnableFuzz randomises review intervals of 2.5 days or more (go-fsrs'
	// and fsrs-rs' fuzz ranges: ±1 day at 3 days (±33 %), ±2 at 10 (±20 %),
	// ±3 at 20 (±15 %), ±7 at 100 (±7 %), ±20 at 365 (±5.5 %), tending to
	// ±5 %) so cards learnt together do not stay bunched. The randomness is
	// seeded from the card as it stands before the review (its due and last
	// review instants, review count, stability and difficulty), not from the
	// review's instant, so the rating buttons' preview equals the review at
	// any instant of the same study day (fuzz.go). Should be on in
	// production, off in known-answer tests.
	EnableFuzz bool
	// EnableShortTerm selects go-fsrs' "basic" scheduler (true): new and
	// lapsed cards go through LearningSteps/RelearningSteps and same-day
	// reviews use FSRS-6's short-term stability formula (w17..w19). When
	// false, go-fsrs' "long-term" scheduler is used: steps are ignored and
	// every review, even the first, is scheduled in whole days (>= 1).
	// The go-fsrs default, and ours, is true.
	EnableShortTerm bool
	// LearningSteps are the delays (minute-scale, each > 0) between the
	// reviews of a New/Learning card before it graduates to Review; used only
	// when EnableShortTerm is true. A step of 24h or more schedules the card
	// directly in Review state. Empty means a new card graduates at its first
	// review. go-fsrs default: 1m, 10m.
	LearningSteps []time.Duration
	// RelearningSteps are the delays (each > 0) for a lapsed card before it
	// returns to Review; used only when EnableShortTerm is true. Empty means
	// a lapsed card is rescheduled in days immediately. go-fsrs default: 10m.
	RelearningSteps []time.Duration
}

// DefaultParams returns the production configuration: the FSRS-6 default
// weights (go-fsrs v4 fsrs.DefaultWeights), desired retention 0.9, maximum
// interval 36500 days, short-term scheduling on, go-fsrs' default steps
// (learning 1m, 10m; relearning 10m) and fuzz ON. go-fsrs' own
// DefaultParam leaves fuzz off; production wants it on.
func DefaultParams() Params {
	lib := fsrs.DefaultParam()
	return Params{
		Weights:          lib.W,
		DesiredRetention: lib.RequestRetention,
		MaximumInterval:  lib.MaximumInterval,
		EnableFuzz:       true,
		EnableShortTerm:  lib.EnableShortTerm,
		LearningSteps:    minutesToDurations(lib.LearningSteps),
		RelearningSteps:  minutesToDurations(lib.RelearningSteps),
	}
}

// clone returns a deep copy of p, so a Scheduler is unaffected by later
// changes to the caller's step slices.
func (p Params) clone() Params {
	p.LearningSteps = slices.Clone(p.LearningSteps)
	p.RelearningSteps = slices.Clone(p.RelearningSteps)
	return p
}

// validate reports the first problem with p, wrapping ErrInvalidParams.
func (p Params) validate() error {
	for i, w := range p.Weights {
		if math.IsNaN(w) || math.IsInf(w, 0) {
			return fmt.Errorf("%w: Weights[%d] must be finite, got %v", ErrInvalidParams, i, w)
		}
	}
	if p.Weights[20] <= 0 {
		return fmt.Errorf("%w: Weights[20] (forgetting-curve decay) must be > 0, got %v", ErrInvalidParams, p.Weights[20])
	}
	if !(p.DesiredRetention > 0 && p.DesiredRetention < 1) {
		return fmt.Errorf("%w: DesiredRetention must be in (0, 1), got %v", ErrInvalidParams, p.DesiredRetention)
	}
	if !(p.MaximumInterval >= 1 && p.MaximumInterval <= 36500) {
		return fmt.Errorf("%w: MaximumInterval must be in [1, 36500] days, got %v", ErrInvalidParams, p.MaximumInterval)
	}
	for i, d := range p.LearningSteps {
		if d <= 0 {
			return fmt.Errorf("%w: LearningSteps[%d] must be > 0, got %v", ErrInvalidParams, i, d)
		}
	}
	for i, d := range p.RelearningSteps {
		if d <= 0 {
			return fmt.Errorf("%w: RelearningSteps[%d] must be > 0, got %v", ErrInvalidParams, i, d)
		}
	}
	return nil
}

// toLib converts p to go-fsrs parameters (steps in float minutes).
func (p Params) toLib() fsrs.Parameters {
	return fsrs.Parameters{
		RequestRetention: p.DesiredRetention,
		MaximumInterval:  p.MaximumInterval,
		W:                fsrs.Weights(p.Weights),
		EnableShortTerm:  p.EnableShortTerm,
		EnableFuzz:       false, // the Scheduler fuzzes, seeded by the card (fuzz.go)
		LearningSteps:    durationsToMinutes(p.LearningSteps),
		RelearningSteps:  durationsToMinutes(p.RelearningSteps),
	}
}

func durationsToMinutes(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = d.Minutes()
	}
	return out
}

func minutesToDurations(ms []float64) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = time.Duration(m * float64(time.Minute))
	}
	return out
}

// MaxClockAhead is the most a card's stored last review may be ahead of the
// scheduler's clock and still be taken as the review instant (clock skew
// between instances); see [Scheduler.Review]. Five minutes, the clock skew
// allowed for token times (auth.ClockSkew, after the Firebase Admin SDKs).
const MaxClockAhead = 5 * time.Minute
