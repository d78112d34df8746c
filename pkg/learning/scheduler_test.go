package learning

import (
	"math"
	"testing"
	"time"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v4"
	"github.com/stretchr/testify/require"
)

// fakeClock is a manually set clock.Clock for tests, each used by one
// goroutine. Unlike clocktest.Stub it answers its instant as it was set,
// neither truncated to clock.Precision nor moved to UTC, so that the tests
// see the scheduler's own truncation and zone handling.
type fakeClock struct{ t time.Time }

func newFakeClock(t time.Time) *fakeClock { return &fakeClock{t: t} }

func (c *fakeClock) Now() time.Time { return c.t }

func (c *fakeClock) NowOrNil() *time.Time { t := c.t; return &t }

func (c *fakeClock) Set(t time.Time) { c.t = t }

// fsrs6DefaultWeights are the published FSRS-6 default weights w0..w20,
// written out so that a change in go-fsrs' DefaultWeights is noticed.
var fsrs6DefaultWeights = [21]float64{
	0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666,
	0.796, 1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658,
	0.1542,
}

var t0 = time.Date(2022, 11, 29, 12, 30, 0, 0, time.UTC)

func newTestScheduler(t *testing.T, p Params, clk *fakeClock) *Scheduler {
	t.Helper()
	s, err := NewScheduler(p, clk)
	require.NoError(t, err)
	return s
}

// noFuzz returns DefaultParams with fuzz off, for deterministic intervals.
func noFuzz() Params {
	p := DefaultParams()
	p.EnableFuzz = false
	return p
}

func TestDefaultWeightsMatchGoFSRS(t *testing.T) {
	t.Parallel()
	require.Equal(t, fsrs6DefaultWeights, [21]float64(fsrs.DefaultWeights()))
	p := DefaultParams()
	require.Equal(t, fsrs6DefaultWeights, p.Weights)
	require.Equal(t, 0.9, p.DesiredRetention)
	require.Equal(t, 36500.0, p.MaximumInterval)
	require.True(t, p.EnableFuzz, "production default must fuzz")
	require.True(t, p.EnableShortTerm)
	require.Equal(t, []time.Duration{time.Minute, 10 * time.Minute}, p.LearningSteps)
	require.Equal(t, []time.Duration{10 * time.Minute}, p.RelearningSteps)
}

// TestKnownAnswerVector reproduces the published FSRS-6 scheduling example
// used by the reference implementations (go-fsrs v4 fsrs_test.go
// TestBasicSchedulerExample; the same ratings/intervals appear in ts-fsrs and
// py-fsrs).
//
// Configuration that reproduces it is go-fsrs' DefaultParam() with fuzz off:
//   - FSRS-6 default weights (below), desired retention 0.9, maximum
//     interval 36500 days, fuzz OFF;
//   - short-term scheduling ON (go-fsrs "basic" scheduler, not the
//     long-term one);
//   - learning steps [1m, 10m] and relearning steps [10m].
//
// Why: the 0s in the vector are minute-scale steps. The first Good on a New
// card moves it to the 10m learning step (0 days); the next Good graduates
// it using the short-term (same-day) stability (2 days). The first Again on
// a Review card enters the single 10m relearning step (0), the second Again
// restarts that step (0), and the following Good graduates (2 days). With
// short-term off (go-fsrs long-term scheduler) the same ratings give
// 3,14,57,196,586,1559,10,1,3,5,9,15,25 instead, and with fuzz on the
// intervals >= 3 days would be randomised.
func TestKnownAnswerVector(t *testing.T) {
	t.Parallel()
	p := Params{
		Weights:          fsrs6DefaultWeights,
		DesiredRetention: 0.9,
		MaximumInterval:  36500,
		EnableFuzz:       false,
		EnableShortTerm:  true,
		LearningSteps:    []time.Duration{time.Minute, 10 * time.Minute},
		RelearningSteps:  []time.Duration{10 * time.Minute},
	}
	clk := newFakeClock(t0)
	s := newTestScheduler(t, p, clk)

	card := s.NewCard()
	require.Equal(t, t0, card.Due)

	ratings := []Rating{Good, Good, Good, Good, Good, Good, Again, Again, Good, Good, Good, Good, Good}
	wantIntervals := []uint64{0, 2, 11, 46, 163, 498, 0, 0, 2, 4, 7, 12, 21}
	wantStatesBefore := []State{New, Learning, Review, Review, Review, Review, Review, Relearning, Relearning, Review, Review, Review, Review}

	var intervals []uint64
	var statesBefore []State
	for _, r := range ratings {
		clk.Set(card.Due) // review exactly when due
		next, log, err := s.Review(card, r, time.UTC)
		require.NoError(t, err)
		require.Equal(t, card.Due, log.Reviewed)
		require.Equal(t, next.ScheduledDays, log.ScheduledDays)
		intervals = append(intervals, next.ScheduledDays)
		statesBefore = append(statesBefore, log.State)
		card = next
	}
	require.Equal(t, wantIntervals, intervals)
	require.Equal(t, wantStatesBefore, statesBefore)
	require.Equal(t, uint64(len(ratings)), card.Reps)
	require.Equal(t, uint64(1), card.Lapses)
}

// TestLongTermVector pins the go-fsrs long-term scheduler (short-term off)
// against go-fsrs' TestLongTermScheduler, to show EnableShortTerm is wired.
func TestLongTermVector(t *testing.T) {
	t.Parallel()
	p := noFuzz()
	p.EnableShortTerm = false
	clk := newFakeClock(t0)
	s := newTestScheduler(t, p, clk)
	card := s.NewCard()
	ratings := []Rating{Good, Good, Good, Good, Good, Good, Again, Again, Good, Good, Good, Good, Good}
	var intervals []uint64
	for _, r := range ratings {
		clk.Set(card.Due)
		next, _, err := s.Review(card, r, time.UTC)
		require.NoError(t, err)
		intervals = append(intervals, next.ScheduledDays)
		card = next
	}
	require.Equal(t, []uint64{3, 14, 57, 196, 586, 1559, 10, 1, 3, 5, 9, 15, 25}, intervals)
}

func TestNewCardDueNow(t *testing.T) {
	t.Parallel()
	now := time.Date(2031, 4, 5, 6, 7, 8, 0, time.UTC)
	s := newTestScheduler(t, noFuzz(), newFakeClock(now))
	c := s.NewCard()
	require.Equal(t, Card{State: New, Due: now}, c)
}

func TestInvalidRatingRejected(t *testing.T) {
	t.Parallel()
	s := newTestScheduler(t, noFuzz(), newFakeClock(t0))
	c := s.NewCard()
	for _, r := range []Rating{0, -1, 5, 100} {
		_, _, err := s.Review(c, r, time.UTC)
		require.ErrorIs(t, err, ErrInvalidRating, "rating %d", r)
	}
}

func TestClockInjectionHonoured(t *testing.T) {
	t.Parallel()
	start := time.Date(2030, 1, 1, 8, 0, 0, 0, time.UTC)
	clk := newFakeClock(start)
	s := newTestScheduler(t, noFuzz(), clk)

	c := s.NewCard()
	require.Equal(t, start, c.Due)

	// New + Good -> second learning step (10 minutes) from the injected now.
	later := start.Add(3 * time.Hour)
	clk.Set(later)
	c, log, err := s.Review(c, Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Learning, c.State)
	require.Equal(t, 1, c.Step)
	require.Equal(t, later.Add(10*time.Minute), c.Due)
	require.Equal(t, later, c.LastReview)
	require.Equal(t, later, log.Reviewed)
	require.Equal(t, start, log.Due)
	require.Equal(t, New, log.State)

	// Good again graduates: due a whole number of days after the injected now.
	later2 := later.Add(10 * time.Minute)
	clk.Set(later2)
	c, _, err = s.Review(c, Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Review, c.State)
	require.Equal(t, 0, c.Step)
	require.Positive(t, c.ScheduledDays)
	require.Equal(t, later2.Add(time.Duration(c.ScheduledDays)*24*time.Hour), c.Due)
}

func TestAgainOnReviewCardIncrementsLapses(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	s := newTestScheduler(t, noFuzz(), clk)
	c := s.NewCard()
	c, _, err := s.Review(c, Easy, time.UTC) // graduates straight to Review
	require.NoError(t, err)
	require.Equal(t, Review, c.State)
	require.Zero(t, c.Lapses)

	clk.Set(c.Due)
	before := c
	c, log, err := s.Review(c, Again, time.UTC)
	require.NoError(t, err)
	require.Equal(t, uint64(1), c.Lapses)
	require.Equal(t, Relearning, c.State)
	require.Equal(t, 0, c.Step)
	require.Equal(t, before.Due.Add(10*time.Minute), c.Due)
	require.Equal(t, before.ScheduledDays, log.ElapsedDays)
	require.Equal(t, log.ElapsedDays, c.ElapsedDays)
	require.Equal(t, c.Stability, log.Stability)
	require.Equal(t, c.Difficulty, log.Difficulty)
	require.Less(t, c.Stability, before.Stability)

	// Again while relearning is not another lapse.
	clk.Set(c.Due)
	c, _, err = s.Review(c, Again, time.UTC)
	require.NoError(t, err)
	require.Equal(t, uint64(1), c.Lapses)
}

func TestReviewDoesNotMutateInputAndIsRepeatable(t *testing.T) {
	t.Parallel()
	p := DefaultParams() // fuzz on: still deterministic for the same input
	clk := newFakeClock(t0)
	s := newTestScheduler(t, p, clk)
	c, _, err := s.Review(s.NewCard(), Easy, time.UTC)
	require.NoError(t, err)
	clk.Set(c.Due.Add(48 * time.Hour))
	orig := c
	a, _, err := s.Review(c, Good, time.UTC)
	require.NoError(t, err)
	b, _, err := s.Review(c, Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, orig, c)
	require.Equal(t, a, b)
}

func TestReviewRejectsInvalidCard(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	s := newTestScheduler(t, noFuzz(), clk)

	_, _, err := s.Review(Card{State: 9, Due: t0}, Good, time.UTC)
	require.ErrorIs(t, err, ErrInvalidCard)

	_, _, err = s.Review(Card{State: Review, Due: t0, Stability: 0, Difficulty: 5, LastReview: t0}, Good, time.UTC)
	require.ErrorIs(t, err, ErrInvalidCard)
}

func TestNewSchedulerValidation(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	cases := map[string]func(p *Params){
		"nan weight":          func(p *Params) { p.Weights[3] = math.NaN() },
		"zero decay":          func(p *Params) { p.Weights[20] = 0 },
		"weight out of range": func(p *Params) { p.Weights[4] = 42 },
		"retention zero":      func(p *Params) { p.DesiredRetention = 0 },
		"retention one":       func(p *Params) { p.DesiredRetention = 1 },
		"max interval zero":   func(p *Params) { p.MaximumInterval = 0 },
		"max interval huge":   func(p *Params) { p.MaximumInterval = 40000 },
		"zero learning step":  func(p *Params) { p.LearningSteps = []time.Duration{0} },
		"negative relearning": func(p *Params) { p.RelearningSteps = []time.Duration{-time.Minute} },
		"zero value params":   func(p *Params) { *p = Params{} },
	}
	for name, mutate := range cases {
		t.Run(name, func(t *testing.T) {
			p := DefaultParams()
			mutate(&p)
			_, err := NewScheduler(p, clk)
			require.ErrorIs(t, err, ErrInvalidParams, name)
		})
	}

	_, err := NewScheduler(DefaultParams(), nil)
	require.ErrorIs(t, err, ErrInvalidParams)

	// Several relearning steps: go-fsrs' FSRS-6 ceiling on w17/w18 is allowed.
	p := DefaultParams()
	p.RelearningSteps = []time.Duration{time.Minute, 10 * time.Minute, time.Hour}
	_, err = NewScheduler(p, clk)
	require.NoError(t, err)

	// Empty steps are valid: cards graduate at their first review.
	p = noFuzz()
	p.LearningSteps = nil
	s, err := NewScheduler(p, clk)
	require.NoError(t, err)
	c, _, err := s.Review(s.NewCard(), Good, time.UTC)
	require.NoError(t, err)
	require.Equal(t, Review, c.State)
}

func TestSchedulerCopiesParams(t *testing.T) {
	t.Parallel()
	p := noFuzz()
	s := newTestScheduler(t, p, newFakeClock(t0))
	p.LearningSteps[0] = time.Hour
	require.Equal(t, time.Minute, s.Params().LearningSteps[0])
	got := s.Params()
	got.LearningSteps[0] = time.Hour
	require.Equal(t, time.Minute, s.Params().LearningSteps[0])
}

func TestRatingString(t *testing.T) {
	t.Parallel()
	for r, want := range map[Rating]string{Again: "again", Hard: "hard", Good: "good", Easy: "easy"} {
		require.True(t, r.Valid(), want)
		require.Equal(t, want, r.String())
	}
	require.False(t, Rating(0).Valid())
	require.Equal(t, "rating(7)", Rating(7).String())
}

func TestStateNumberingAndString(t *testing.T) {
	t.Parallel()
	require.Equal(t, int(fsrs.New), int(New))
	require.Equal(t, int(fsrs.Learning), int(Learning))
	require.Equal(t, int(fsrs.Review), int(Review))
	require.Equal(t, int(fsrs.Relearning), int(Relearning))
	require.Equal(t, int(fsrs.Again), int(Again))
	require.Equal(t, int(fsrs.Easy), int(Easy))
	require.Equal(t, []string{"new", "learning", "review", "relearning", "state(4)"},
		[]string{New.String(), Learning.String(), Review.String(), Relearning.String(), State(4).String()})
}

func TestReviewAtSchedulesAtTheGivenInstant(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0.Add(72 * time.Hour))
	s := newTestScheduler(t, DefaultParams(), clk)
	c, _, err := s.ReviewAt(s.NewCard(), Easy, time.UTC, t0)
	require.NoError(t, err)
	require.Equal(t, t0, c.LastReview, "the review's instant, not the clock's")
	require.Equal(t, t0.Add(time.Duration(c.ScheduledDays)*24*time.Hour), c.Due)

	clk.Set(t0)
	atNow, _, err := s.Review(s.NewCard(), Easy, time.UTC)
	require.NoError(t, err)
	require.Equal(t, atNow, c, "ReviewAt(at) is Review with the clock at at")
}

func TestPreviewIsWhatEachRatingGives(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	s := newTestScheduler(t, DefaultParams(), clk) // fuzz on: the same instant gives the same fuzz
	c, _, err := s.Review(s.NewCard(), Easy, time.UTC)
	require.NoError(t, err)
	at := c.Due.Add(30 * time.Hour)
	preview, err := s.Preview(c, time.UTC, at)
	require.NoError(t, err)
	clk.Set(at)
	for i, r := range []Rating{Again, Hard, Good, Easy} {
		next, _, err := s.Review(c, r, time.UTC)
		require.NoError(t, err)
		require.Equal(t, next, preview[i], "rating %s", r)
	}
	require.Equal(t, Relearning, preview[0].State)
	require.Less(t, preview[1].Due, preview[2].Due, "Hard before Good")
	require.Less(t, preview[2].Due, preview[3].Due, "Good before Easy")

	_, err = s.Preview(Card{State: 9, Due: t0}, time.UTC, at)
	require.ErrorIs(t, err, ErrInvalidCard)
}

// The fuzz is seeded by the card, not the instant: a review a second or
// five minutes after the preview, in the same study day, gives each
// rating the previewed interval in days. On go-fsrs' own fuzz (seeded by
// the review's millisecond) the intervals differed (Easy 10 d previewed,
// 14 d given).
func TestThePreviewHoldsAtAnyInstantOfTheDay(t *testing.T) {
	t.Parallel()
	clk := newFakeClock(t0)
	s := newTestScheduler(t, DefaultParams(), clk)
	c, _, err := s.Review(s.NewCard(), Easy, time.UTC)
	require.NoError(t, err)
	fuzzed := 0
	for range 20 {
		start, _ := StudyDayBounds(c.Due, time.UTC)
		at := start.Add(5 * time.Hour) // 09:00, three hours later still the same study day
		preview, err := s.Preview(c, time.UTC, at)
		require.NoError(t, err)
		for _, later := range []time.Duration{time.Second, 5 * time.Minute, 3 * time.Hour} {
			for i, r := range []Rating{Again, Hard, Good, Easy} {
				next, _, err := s.ReviewAt(c, r, time.UTC, at.Add(later))
				require.NoError(t, err)
				require.Equal(t, preview[i].State, next.State)
				require.Equal(t, preview[i].ScheduledDays, next.ScheduledDays, "rating %s, %s after the preview", r, later)
			}
		}
		for _, p := range preview[1:] {
			if p.ScheduledDays >= 3 {
				fuzzed++
			}
		}
		if preview[3].ScheduledDays < 36500 {
			require.Less(t, preview[1].ScheduledDays, preview[2].ScheduledDays, "Hard before Good")
			require.Less(t, preview[2].ScheduledDays, preview[3].ScheduledDays, "Good before Easy")
		}
		c, _, err = s.ReviewAt(c, Good, time.UTC, at)
		require.NoError(t, err)
	}
	require.Positive(t, fuzzed, "intervals long enough to be fuzzed were checked")
}

// The fuzz range is fsrs-rs' (and go-fsrs v4's): ±1 day at 3 days, ±2 at
// 10, ±3 at 20, ±7 at 100, ±20 at 365 (the README's figures); u spans it.
func TestTheFuzzRangeIsFSRSs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ interval, lo, hi float64 }{
		{2, 2, 2}, {3, 2, 4}, {10, 8, 12}, {20, 17, 23}, {100, 93, 107}, {365, 345, 385},
	} {
		require.Equal(t, c.lo, fuzzInterval(c.interval, 0, 36500, 0), "interval %v", c.interval)
		require.Equal(t, c.hi, fuzzInterval(c.interval, 0, 36500, 0.999999), "interval %v", c.interval)
	}
	require.Equal(t, 10.0, fuzzInterval(10, 9, 36500, 0), "more than the days elapsed")
	require.Equal(t, 10.0, fuzzInterval(10, 0, 10, 0.999999), "at most the maximum interval")
}

// Two cards reviewed alike but created at different instants draw
// different fuzz: the seed tells cards apart.
func TestTheFuzzSeedTellsCardsApart(t *testing.T) {
	t.Parallel()
	a := Card{State: Review, Due: t0, LastReview: t0.Add(-72 * time.Hour), Reps: 3, Stability: 20, Difficulty: 5}
	b := a
	b.Due = t0.Add(time.Millisecond)
	require.NotEqual(t, fuzzSeed(a), fuzzSeed(b))
	b = a
	b.Reps++
	require.NotEqual(t, fuzzSeed(a), fuzzSeed(b))
}
