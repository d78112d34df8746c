// Package learning holds Lexora's spaced-repetition scheduling: it decides
// when a learner should next see a vocabulary card and how the card's memory
// model changes after each review.
//
// # Algorithm
//
// Scheduling is FSRS-6 (Free Spaced Repetition Scheduler, version 6) as
// specified by the open-spaced-repetition project
// (https://github.com/open-spaced-repetition/free-spaced-repetition-scheduler)
// and implemented by its Go reference implementation,
// github.com/open-spaced-repetition/go-fsrs/v4 (v4.0.0). This package does no
// memory-model arithmetic of its own: every stability, difficulty and interval
// is computed by go-fsrs. What this package adds is:
//
//   - plain value types ([Card], [ReviewLog]) that the database layer stores
//     column by column, independent of go-fsrs' own structs;
//   - an injected clock (the product's one clock.Clock, pkg/platform/clock),
//     so reviews are reproducible in tests and the review time is never read
//     from the wall clock behind the caller's back;
//   - strict parameter validation in [NewScheduler]. go-fsrs' own constructor
//     silently clamps out-of-range weights and silently falls back to its
//     defaults on invalid input; [NewScheduler] reports an error instead.
//
// # Model in one paragraph
//
// Each card carries a stability S (days until the probability of recall
// falls to 90%) and a difficulty D (1 = easiest, 10 = hardest). After a
// review the learner gives a [Rating] (Again, Hard, Good, Easy); FSRS-6
// updates S and D from the 21 weights in [Params] and schedules the next
// review at the interval where predicted recall equals
// [Params.DesiredRetention]. New and forgotten cards first pass through short
// learning/relearning steps measured in minutes ([Params.LearningSteps],
// [Params.RelearningSteps]) before they graduate to day-scale review
// intervals.
//
// # Usage
//
//	s, err := learning.NewScheduler(learning.DefaultParams(), clock.System{})
//	if err != nil { ... }
//	card := s.NewCard()                          // due immediately
//	card, log, err := s.Review(card, learning.Good, learnerZone)
//	// persist card (and log) column by column
//
// The package's Example runs this with a fixed clock (a clocktest.Stub in
// place of clock.System).
//
// A [Scheduler] is immutable after construction and safe for concurrent use.
package learning
