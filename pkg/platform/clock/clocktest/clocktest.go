// Package clocktest provides a stubbed clock.Clock for tests. It is imported
// by tests only.
package clocktest

import (
	"sync"
	"time"

	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Stub is a clock.Clock that returns a fixed instant until the test moves
// it. It is safe for concurrent use.
type Stub struct {
	mu  sync.Mutex
	now time.Time
}

// New returns a Stub at t (converted to UTC and truncated to
// clock.Precision).
func New(t time.Time) *Stub {
	return &Stub{now: t.UTC().Truncate(clock.Precision)}
}

// Now returns the stubbed instant.
func (s *Stub) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.now
}

// NowOrNil returns the stubbed instant, so SQL uses it instead of the
// database's now().
func (s *Stub) NowOrNil() *time.Time {
	now := s.Now()
	return &now
}

// Set moves the clock to t (converted to UTC and truncated to
// clock.Precision).
func (s *Stub) Set(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = t.UTC().Truncate(clock.Precision)
}

// Advance moves the clock forward by d (backward when d is negative).
func (s *Stub) Advance(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.now = s.now.Add(d).Truncate(clock.Precision)
}
