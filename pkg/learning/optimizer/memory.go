package optimizer

import "github.com/lexora-app/lexora/pkg/learning"

// MemoryState is a card's FSRS-6 memory state under some weights:
// Stability in days (0.001..36500), Difficulty 1..10.
type MemoryState struct {
	Stability, Difficulty float64
}

// InitialState is the memory state after a card's first review, rated r
// (Again..Easy), under weights w (the model [Fit] fits, fsrs-rs model.rs).
func InitialState(w Weights, r learning.Rating) MemoryState {
	st, _, _ := newModel(&w).initial(r)
	return MemoryState{st.s, st.d}
}

// NextState is the memory state after a review rated r (Again..Easy)
// deltaT study days after the review that left prev (0: the same study day,
// FSRS-6's short-term update), under weights w.
func NextState(w Weights, prev MemoryState, deltaT uint32, r learning.Rating) MemoryState {
	st, _ := newModel(&w).next(state{prev.Stability, prev.Difficulty}, float64(deltaT), r)
	return MemoryState{st.s, st.d}
}

// Retrievability is the probability of recall t days (fractions allowed)
// after a review that left stability s, under the forgetting curve of
// weights w: (1 + factor t/s)^-w20, R(s, s) = 0.9.
func Retrievability(w Weights, t, s float64) float64 {
	r, _ := newCurve(w[20]).r(t, s)
	return r
}

// Clamp returns w with every weight within the range fsrs-rs allows it
// (and learning.NewScheduler accepts), for a scheduler with
// relearningSteps relearning steps and short-term scheduling on; [Fit]
// applies it after every step.
func Clamp(w Weights, relearningSteps int) Weights {
	clip(&w, relearningSteps, true)
	return w
}
