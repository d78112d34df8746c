package learning

import (
	"strconv"
)

// Rating is the learner's self-assessed recall quality for one review, using
// the four FSRS grades (FSRS-6, go-fsrs v4 fsrs.Rating). The numeric values
// are the ones FSRS uses and may be stored as-is.
type Rating int

// The four FSRS grades. Numbering matches go-fsrs v4 (fsrs.Again .. fsrs.Easy).
const (
	// Again: the learner failed to recall the card. On a review card this
	// is a lapse.
	Again Rating = 1
	// Hard: recalled with serious difficulty.
	Hard Rating = 2
	// Good: recalled after some hesitation; the default "correct" answer.
	Good Rating = 3
	// Easy: recalled effortlessly.
	Easy Rating = 4
)

// Valid reports whether r is one of Again, Hard, Good or Easy (1..4).
func (r Rating) Valid() bool {
	return r >= Again && r <= Easy
}

// ratingNames are the grades' names, by Rating.
var ratingNames = [...]string{Again: "again", Hard: "hard", Good: "good", Easy: "easy"}

// String returns the lowercase grade name ("again", "hard", "good", "easy"),
// or "rating(N)" for an invalid value.
func (r Rating) String() string {
	if r.Valid() {
		return ratingNames[r]
	}
	return "rating(" + strconv.Itoa(int(r)) + ")"
}

// State is a card's position in the FSRS learning lifecycle
// (New -> Learning -> Review <-> Relearning). Numbering matches go-fsrs v4
// (fsrs.State) and may be stored as-is.
type State int

// Card lifecycle states, numbered as in go-fsrs v4.
const (
	// New: never reviewed.
	New State = 0
	// Learning: reviewed at least once, still in the minute-scale
	// learning steps ([Params.LearningSteps]).
	Learning State = 1
	// Review: graduated; scheduled in whole days.
	Review State = 2
	// Relearning: lapsed (rated Again while in Review) and going through
	// the minute-scale relearning steps ([Params.RelearningSteps]).
	Relearning State = 3
)

// Valid reports whether s is one of New, Learning, Review or Relearning.
func (s State) Valid() bool {
	return s >= New && s <= Relearning
}

// stateNames are the states' names, by State.
var stateNames = [...]string{New: "new", Learning: "learning", Review: "review", Relearning: "relearning"}

// String returns the lowercase state name ("new", "learning", "review",
// "relearning"), or "state(N)" for an invalid value.
func (s State) String() string {
	if s.Valid() {
		return stateNames[s]
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}
