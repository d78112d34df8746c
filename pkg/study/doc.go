// Package study holds the learner's side of Lexora's learning domain: a
// review of a card (FSRS-6 scheduling through pkg/learning, leech
// suspension, completion of the learner's assignments, the review log) and
// the reads of a learner's schedule and progress.
//
// Each operation runs in the caller's transaction (a pgx.Tx) through the
// sqlc store, returns what changed and, for a write, the events the change
// causes as an events.Batch, which the caller enqueues in the same
// transaction with its request's headers. Errors are this package's own
// (ErrCardNotFound, ErrSuspended, ...; see errors.go), wrapped with context
// where they pass through; the HTTP functions map them to problem documents
// in one place (functions/errors.go). The package knows no HTTP.
//
// Usage, in a function's transaction:
//
//	st := study.New(clk, scheduler)
//	res, batch, err := st.Review(ctx, tx, study.Learner{ID: id, Timezone: tz}, study.ReviewRequest{CardID: card, Rating: learning.Good})
//	// on success: set each event's headers, outbox.Enqueue(ctx, tx, batch events...)
package study
