// Package classroom holds the rules of a teacher's classroom: enrolment (a
// teacher adds a learner by email, or invites one who already has an
// account elsewhere; a learner joins with a class's join code) and
// assignments (a teacher gives a learner a deck with a due date).
//
// Every operation runs in the caller's transaction (pgx.Tx), reads and
// writes through the sqlc store (pkg/store), and returns the events the
// change causes as an events.Batch, which the caller enqueues in the same
// transaction with its request's headers. Errors are the package's own
// (ErrClassNotFound, ErrAlreadyEnrolled, ErrAlreadyAssigned, ...), tested
// with errors.Is; what they mean to a client (a 404, a 409) is decided by
// the caller, never here. Instants come from the injected clock
// (pkg/platform/clock): Now for what the request decides itself (due dates,
// completion), NowOrNil for what the SQL records (invitations), so one
// request decides with one clock.
//
// Usage, in a request's transaction:
//
//	c := classroom.New(ob, clk, sched)
//	a, batch, err := c.Assign(ctx, tx, teacherID, classroom.AssignRequest{LearnerID: l, DeckID: d, DueAt: due})
//	if errors.Is(err, classroom.ErrAlreadyAssigned) { ... }
//	evs, err := batch.Events() // set headers, then outbox.Enqueue(ctx, tx, evs...)
package classroom
