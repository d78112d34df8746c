package outbox

import "github.com/lexora-app/lexora/pkg/outbox/internal/testsignal"

// drainSignals are the points of a run that this package's tests wait on
// instead of sleeping or polling the database. In production they are never
// initialised and do nothing.
type drainSignals struct {
	// claimed carries the size of each claim that took at least one
	// delivery.
	claimed testsignal.Signal[int]
	// heartbeat carries how many leases each heartbeat extended.
	heartbeat testsignal.Signal[int]
	// flushed carries what each write of results that changed something
	// wrote: Delivered, Skipped, Retried, Dead, Released and LostLeases.
	flushed testsignal.Signal[Report]
	// idle fires when the run has nothing in flight, every result written,
	// and its claim found nothing due: at its first claim when that finds
	// nothing, then once after each time it found work. A loop-mode run
	// then waits for a poll or a wake-up; cancelling its context ends it
	// at once.
	idle testsignal.Signal[struct{}]
}

// listenerSignals are the points of a Listener that this package's tests
// wait on. In production they do nothing.
type listenerSignals struct {
	// connected carries the number of connections so far (Connects) each
	// time the listener is LISTENing on a new connection.
	connected testsignal.Signal[int64]
	// disconnected fires each time the listener loses its connection.
	disconnected testsignal.Signal[struct{}]
}

// wakerSignals are the points of a Waker that this package's tests wait
// on. In production they do nothing.
type wakerSignals struct {
	// stopped fires when the Waker's goroutine ends, nothing left to send.
	stopped testsignal.Signal[struct{}]
}
