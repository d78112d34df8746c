package clock_test

import (
	"testing"
	"time"

	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

func TestSystemClockHasDatabasePrecisionAndDefersToTheDatabase(t *testing.T) {
	t.Parallel()
	var c clock.Clock = clock.System{}
	now := c.Now()
	if now.Location() != time.UTC {
		t.Errorf("Now() location = %v, want UTC", now.Location())
	}
	if now.Nanosecond()%1000 != 0 {
		t.Errorf("Now() = %v has sub-microsecond digits", now)
	}
	if got := c.NowOrNil(); got != nil {
		t.Errorf("NowOrNil() = %v, want nil so SQL uses now()", got)
	}
}

func TestStubMovesOnlyWhenTold(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 30, 8, 30, 0, 123456789, time.FixedZone("JST", 9*3600))
	var s = clocktest.New(start)
	want := start.UTC().Truncate(time.Microsecond)
	if got := s.Now(); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Now() = %v, want %v in UTC", got, want)
	}
	if got := s.NowOrNil(); got == nil || !got.Equal(want) {
		t.Fatalf("NowOrNil() = %v, want %v", got, want)
	}
	s.Advance(90 * time.Minute)
	if got := s.Now(); !got.Equal(want.Add(90 * time.Minute)) {
		t.Errorf("after Advance, Now() = %v, want %v", got, want.Add(90*time.Minute))
	}
	s.Set(start)
	if got := s.Now(); !got.Equal(want) {
		t.Errorf("after Set, Now() = %v, want %v", got, want)
	}
}
