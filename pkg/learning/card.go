package learning

import "time"

// Card is the FSRS-6 scheduling state of one vocabulary item for one learner.
// It is a plain value type with no hidden fields so the database layer can
// store it column by column and rebuild it exactly. The zero value is not a
// usable card; create cards with [Scheduler.NewCard].
//
// Field semantics follow go-fsrs v4 (fsrs.Card), except that Step is a step
// index (go-fsrs stores the number of remaining steps) and ElapsedDays is
// kept here because go-fsrs v4 no longer stores it.
type Card struct {
	// State is the lifecycle state.
	State State
	// Due is the instant the card should next be reviewed.
	Due time.Time
	// Stability is the FSRS memory stability in days: the interval after
	// which predicted recall probability drops to 90%. 0 for a New card.
	Stability float64
	// Difficulty is the FSRS difficulty, in [1, 10] (1 easiest). 0 for a New
	// card.
	Difficulty float64
	// ElapsedDays is the number of the learner's study days ([StudyDay])
	// between the previous review and the most recent one. 0 for a
	// card reviewed at most once.
	ElapsedDays uint64
	// ScheduledDays is the interval in whole days chosen at the most recent
	// review, at most [Params.MaximumInterval]; a Review card is Due exactly
	// that many days after LastReview. 0 while the card is in a
	// minute-scale (re)learning step.
	ScheduledDays uint64
	// Reps is the number of reviews performed.
	Reps uint64
	// Lapses is the number of times the card was rated Again while in the
	// Review state.
	Lapses uint64
	// Step is the index of the current (re)learning step in
	// [Params.LearningSteps] (State Learning) or [Params.RelearningSteps]
	// (State Relearning); the card is Due after that step's delay. It is 0
	// for New and Review cards.
	Step int
	// LastReview is the instant of the most recent review; zero if the card
	// has never been reviewed.
	LastReview time.Time
}

// ReviewLog records one review for history, analytics and future FSRS weight
// optimisation (go-fsrs v4 fsrs.ReviewLog, with "before" and "after" fields
// made explicit).
type ReviewLog struct {
	// Rating is the grade given.
	Rating Rating
	// State is the card's state before the review.
	State State
	// Due is the card's due instant before the review.
	Due time.Time
	// Stability (days) is the card's stability after the review.
	Stability float64
	// Difficulty (1..10) is the card's difficulty after the review.
	Difficulty float64
	// ElapsedDays is the number of the learner's study days ([StudyDay])
	// since the previous review; 0 for the first review.
	ElapsedDays uint64
	// ScheduledDays is the interval in whole days scheduled by this review;
	// 0 when the card went into a minute-scale (re)learning step.
	ScheduledDays uint64
	// Reviewed is the instant of the review (the scheduler clock's now).
	Reviewed time.Time
}
