// Package testsignal lets a test wait for something a concurrent component
// did (a drain claimed, wrote its results, went idle; a listener
// connected) instead of sleeping or polling for it. It follows River's
// rivershared/testsignal: the component holds a Signal per event and calls
// Signal at that point; the zero Signal does nothing, so production code
// pays one nil check; a test calls Init before starting the component and
// then Wait.
package testsignal

import (
	"fmt"
	"time"
)

// TB is the part of testing.TB a Signal uses (so that production binaries
// do not link the testing package).
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Buffer is how many values a Signal holds before the test reads them.
const Buffer = 100

// WaitTimeout is how long Wait waits before it fails the test: far beyond
// what any awaited event takes, even on a loaded machine, and well under
// go test's default ten-minute timeout, so a missing event fails its own
// test with a message instead of the whole binary with a stack dump.
const WaitTimeout = 2 * time.Minute

// Signal carries values of type T from a component to a test. Initialise it
// (Init) before the component can signal: Init is not synchronised with
// Signal.
type Signal[T any] struct {
	ch chan T
	tb TB
}

// Init makes s deliver values to Wait, for tb.
func (s *Signal[T]) Init(tb TB) {
	s.ch = make(chan T, Buffer)
	s.tb = tb
}

// Signal sends v to the test; it never blocks. Without Init it does
// nothing. When Buffer values are waiting, v is dropped: a test reads the
// values it needs and may stop reading (a benchmark waits for the first
// idle run, then produces for a minute).
func (s *Signal[T]) Signal(v T) {
	if s.ch == nil {
		return
	}
	select {
	case s.ch <- v:
	default:
	}
}

// Wait returns the next value, failing the test after WaitTimeout. Call it
// from the test's goroutine.
func (s *Signal[T]) Wait() T {
	ch := s.C()
	s.tb.Helper()
	t := time.NewTimer(WaitTimeout)
	defer t.Stop()
	select {
	case v := <-ch:
		return v
	case <-t.C:
		var zero T
		s.tb.Fatalf("testsignal: no %T within %s", zero, WaitTimeout)
		return zero
	}
}

// C returns the channel the values arrive on, to select on with other
// events.
func (s *Signal[T]) C() <-chan T {
	if s.ch == nil {
		panic(fmt.Sprintf("testsignal: C on a Signal[%T] that was not initialised", *new(T)))
	}
	return s.ch
}
