package learning

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestStudyDayRollsOverAtFourLocalEvenOnDaylightSavingDays(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	for local, want := range map[string]string{
		"2026-03-29T04:30:00+02:00": "2026-03-29", // clocks went forward at 02:00
		"2026-03-29T03:30:00+02:00": "2026-03-28",
		"2026-10-25T03:30:00+01:00": "2026-10-24", // clocks went back at 03:00
		"2026-10-25T04:00:00+01:00": "2026-10-25",
		"2026-01-15T23:59:00+01:00": "2026-01-15",
		"2026-01-16T00:30:00+01:00": "2026-01-15",
	} {
		t.Run(local, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339, local)
			require.NoError(t, err)
			require.Equal(t, want, StudyDay(at, paris), local)
			start, end := StudyDayBounds(at, paris)
			require.False(t, at.Before(start), local)
			require.True(t, at.Before(end), local)
			require.Equal(t, want, StudyDay(start, paris), local)
			require.Equal(t, StudyDay(end.Add(-time.Nanosecond), paris), StudyDay(start, paris), local)
			require.Equal(t, uint64(1), StudyDaysBetween(start, end, paris), local)
		})
	}
	// The 25-hour study day of the change back to winter time.
	start, end := StudyDayBounds(time.Date(2026, 10, 24, 12, 0, 0, 0, paris), paris)
	require.Equal(t, 25*time.Hour, end.Sub(start))
}

// The input: a Review card of a learner in Asia/Tokyo rated Good at
// 08:30 and 09:30 local time (23:30 and 00:30 UTC) is reviewed twice on one
// study day, exactly like the pair an hour earlier; 05:00 the next morning is
// the next study day even though it is the same UTC date.
func TestElapsedDaysCountTheLearnersStudyDays(t *testing.T) {
	t.Parallel()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	at := func(day, hour, minute int) time.Time { return time.Date(2026, 3, day, hour, minute, 0, 0, tokyo) }
	review := func(last, now time.Time) (Card, ReviewLog) {
		t.Helper()
		s := newTestScheduler(t, noFuzz(), newFakeClock(now))
		c := Card{State: Review, Due: last.Add(62 * 24 * time.Hour), Stability: 61.9, Difficulty: 5,
			ScheduledDays: 62, Reps: 5, LastReview: last}
		next, log, err := s.Review(c, Good, tokyo)
		require.NoError(t, err)
		require.Equal(t, next.ElapsedDays, log.ElapsedDays)
		return next, log
	}

	across, log := review(at(10, 8, 30), at(10, 9, 30)) // crosses UTC midnight
	require.Zero(t, log.ElapsedDays, "08:30 and 09:30 in Tokyo are one study day")
	before, log := review(at(10, 7, 30), at(10, 8, 30))
	require.Zero(t, log.ElapsedDays)
	require.Equal(t, before.Stability, across.Stability, "the same-day (short-term) update both times")

	night, log := review(at(10, 9, 30), at(11, 3, 0)) // before the 04:00 rollover
	require.Zero(t, log.ElapsedDays, "03:00 the next night is still the same study day")
	require.Equal(t, before.Stability, night.Stability)

	next, log := review(at(10, 9, 30), at(11, 5, 0)) // same UTC date, 2026-03-10
	require.Equal(t, uint64(1), log.ElapsedDays, "05:00 the next morning is the next study day")
	require.NotEqual(t, before.Stability, next.Stability, "the long-term update")
	require.Equal(t, at(11, 5, 0).Add(time.Duration(next.ScheduledDays)*24*time.Hour), next.Due)
}

// Two function instances whose clocks differ by a second review one card in
// quick succession: the second's now is before the stored last review.
func TestReviewWhoseNowIsBeforeTheLastReviewHasNoElapsedTime(t *testing.T) {
	t.Parallel()
	last := t0.Add(500 * time.Microsecond)
	s := newTestScheduler(t, noFuzz(), newFakeClock(last.Add(-time.Second)))
	c := Card{State: Review, Due: last.Add(3 * 24 * time.Hour), Stability: 3, Difficulty: 5, ScheduledDays: 3,
		Reps: 2, LastReview: last}
	next, log, err := s.Review(c, Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, last, log.Reviewed)
	require.Equal(t, last, next.LastReview)
	require.Zero(t, log.ElapsedDays)
	require.Equal(t, last.Add(time.Duration(next.ScheduledDays)*24*time.Hour), next.Due)
}

// A last review further ahead than MaxClockAhead is not clock skew: the
// review is taken at now, so it cannot move a study day or a streak into
// the future (review F3: a row 3 days ahead put the review 3 days ahead).
func TestLastReviewFarInTheFutureDoesNotMoveTheReview(t *testing.T) {
	t.Parallel()
	s := newTestScheduler(t, noFuzz(), newFakeClock(t0))
	for ahead, want := range map[time.Duration]time.Time{
		3 * 24 * time.Hour:          t0,
		MaxClockAhead + time.Second: t0,
		MaxClockAhead:               t0.Add(MaxClockAhead),
		2 * time.Second:             t0.Add(2 * time.Second),
	} {
		t.Run(ahead.String(), func(t *testing.T) {
			c := Card{State: Review, Due: t0, Stability: 60, Difficulty: 5, ScheduledDays: 60, Reps: 5, LastReview: t0.Add(ahead)}
			next, log, err := s.Review(c, Good, time.UTC)
			require.NoError(t, err, ahead)
			require.Equal(t, want, log.Reviewed, ahead)
			require.Equal(t, want, next.LastReview, ahead)
			require.Zero(t, log.ElapsedDays, ahead)
			require.Equal(t, want.Add(time.Duration(next.ScheduledDays)*24*time.Hour), next.Due, ahead)
		})
	}
}

// The input: "48.693124308Z" answered, "48.693124Z" stored.
func TestReviewInstantsHaveTheDatabasePrecision(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 9, 0, 48, 693124308, time.UTC)
	want := time.Date(2026, 3, 2, 9, 0, 48, 693124000, time.UTC)
	p := noFuzz()
	p.LearningSteps = []time.Duration{time.Minute + 1, 10 * time.Minute}
	s := newTestScheduler(t, p, newFakeClock(now))
	for _, r := range []Rating{Again, Hard, Good, Easy} {
		c, log, err := s.Review(s.NewCard(), r, time.UTC)
		require.NoError(t, err)
		require.Equal(t, want, log.Reviewed, r)
		require.Equal(t, want, c.LastReview, r)
		require.Equal(t, c.Due, c.Due.Truncate(Precision), r)
	}
}

// The input: MaximumInterval 30, fuzz off, a Review card of
// stability 200 rated Hard, Good, Easy gave 30, 31, 32 days with every due
// date 30 days away.
func TestMaximumIntervalHoldsAfterEveryAdjustment(t *testing.T) {
	t.Parallel()
	for _, fuzz := range []bool{false, true} {
		p := noFuzz()
		p.MaximumInterval = 30
		p.EnableFuzz = fuzz
		now := t0
		clk := newFakeClock(now)
		s := newTestScheduler(t, p, clk)
		for i := range 50 {
			now = now.Add(time.Duration(i) * 7 * time.Hour)
			clk.Set(now)
			c := Card{State: Review, Due: now, Stability: 200 + float64(i), Difficulty: 5, ScheduledDays: 30,
				Reps: 9, LastReview: now.Add(-30 * 24 * time.Hour)}
			for _, r := range []Rating{Hard, Good, Easy} {
				next, log, err := s.Review(c, r, time.UTC)
				require.NoError(t, err)
				require.LessOrEqual(t, next.ScheduledDays, uint64(30), "fuzz %v, %v", fuzz, r)
				require.Equal(t, next.ScheduledDays, log.ScheduledDays)
				require.Equal(t, now.Add(time.Duration(next.ScheduledDays)*24*time.Hour), next.Due, "fuzz %v, %v", fuzz, r)
			}
		}
	}
}

// The input: a card left on learning step 2 by a scheduler with three
// learning steps, rated Again by the default two-step scheduler, graduated
// to Review (+1 day).
func TestStepBeyondTheConfiguredStepsIsTheLastStep(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	three := noFuzz()
	three.LearningSteps = []time.Duration{time.Minute, 10 * time.Minute, time.Hour}
	old := newTestScheduler(t, three, clk)
	c, _, err := old.Review(old.NewCard(), Good, time.UTC)
	require.NoError(t, err)
	clk.Set(c.Due)
	c, _, err = old.Review(c, Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Learning, c.State)
	require.Equal(t, 2, c.Step)

	now := c.Due
	clk.Set(now)
	s := newTestScheduler(t, noFuzz(), clk) // learning 1m, 10m; relearning 10m
	again, _, err := s.Review(c, Again, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Learning, again.State)
	require.Equal(t, 0, again.Step)
	require.Equal(t, now.Add(time.Minute), again.Due)

	hard, _, err := s.Review(c, Hard, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Learning, hard.State)
	require.Equal(t, 1, hard.Step, "the last configured step")

	good, _, err := s.Review(c, Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Review, good.State)

	relearning := Card{State: Relearning, Due: now, Stability: 2, Difficulty: 6, Reps: 8, Lapses: 1, Step: 3,
		LastReview: now.Add(-10 * time.Minute)}
	again, _, err = s.Review(relearning, Again, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Relearning, again.State)
	require.Equal(t, 0, again.Step)
	require.Equal(t, now.Add(10*time.Minute), again.Due)
}

// TestNegativeStepIsTheFirstStep: a stored step below zero (corrupted data)
// is read as the first (re)learning step instead of failing the review.
func TestNegativeStepIsTheFirstStep(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	s := newTestScheduler(t, noFuzz(), clk) // learning 1m, 10m; relearning 10m
	for _, state := range []State{Learning, Relearning} {
		card := Card{State: state, Due: t0, Stability: 2, Difficulty: 5, Reps: 2, LastReview: t0.Add(-10 * time.Minute)}
		for _, r := range []Rating{Again, Hard, Good, Easy} {
			want, wantLog, err := s.Review(card, r, time.UTC)
			require.NoError(t, err)
			corrupt := card
			corrupt.Step = -1
			got, gotLog, err := s.Review(corrupt, r, time.UTC)
			require.NoError(t, err, "%v %v", state, r)
			require.Equal(t, want, got, "%v %v", state, r)
			require.Equal(t, wantLog, gotLog, "%v %v", state, r)
		}
	}
}

func TestZoneFallsBackToUTCForAnUnknownName(t *testing.T) {
	t.Parallel()
	require.Equal(t, "Asia/Tokyo", Zone("Asia/Tokyo").String())
	require.Equal(t, time.UTC, Zone("Mars/Olympus_Mons"))
	require.Equal(t, time.UTC, Zone(""))
}
