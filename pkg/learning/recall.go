package learning

import "math"

// Desired retention a teacher may choose for a class deck: the
// probability of recall at which a card comes due ([Params.DesiredRetention]).
// Anki advises staying under 0.97; below 0.80 the lapses cost more reviews
// than the longer intervals save (the FSRS wiki's workload curve).
const (
	// MinDesiredRetention is the lowest retention a class deck may aim for.
	MinDesiredRetention = 0.80
	// MaxDesiredRetention is the highest.
	MaxDesiredRetention = 0.95
	// DefaultDesiredRetention is a class deck's retention until its
	// teacher chooses one, and a card's when no class deck holds it: FSRS's
	// default, 0.9.
	DefaultDesiredRetention = 0.90
)

// ValidDesiredRetention reports whether r is a retention a teacher may
// choose: in [MinDesiredRetention, MaxDesiredRetention] (NaN is not).
func ValidDesiredRetention(r float64) bool {
	return r >= MinDesiredRetention && r <= MaxDesiredRetention
}

// Retrievability is FSRS-6's predicted probability of recall t days after a
// review that left stability s days, for the forgetting-curve decay w20
// (weights[20]):
//
//	R(t, S) = (1 + factor·t/S)^(−w20),  factor = 0.9^(−1/w20) − 1,
//
// so that R(S, S) = 0.9. Source: the FSRS-6 formula in
// open-spaced-repetition's "The Algorithm" (fsrs4anki wiki) and fsrs-rs
// 6.5 src/simulation.rs power_forgetting_curve. A t <= 0 gives 1; s <= 0
// (a card never reviewed) gives 0.
func Retrievability(weights [21]float64, t, s float64) float64 {
	if s <= 0 {
		return 0
	}
	if t <= 0 {
		return 1
	}
	decay := -weights[20]
	factor := math.Pow(0.9, 1/decay) - 1
	return math.Pow(1+factor*t/s, decay)
}

// Interval is the number of days (unrounded) after which a card of
// stability s days falls to recall probability retention, the inverse of
// [Retrievability]: S/factor · (retention^(−1/w20) − 1) (fsrs-rs 6.5
// src/simulation.rs next_interval).
func Interval(weights [21]float64, s, retention float64) float64 {
	decay := -weights[20]
	factor := math.Pow(0.9, 1/decay) - 1
	return s / factor * (math.Pow(retention, 1/decay) - 1)
}
