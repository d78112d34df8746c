package learning

import (
	"fmt"
	"math"

	fsrs "github.com/open-spaced-repetition/go-fsrs/v4"
)

// fuzzSeed is the seed of a review's interval fuzz: the card as it stands
// before the review (its due and last review instants in milliseconds, its
// review count, stability and difficulty). Anki seeds its fuzz from the
// card id and its review count for the same reason: what a rating button
// shows is what the review then gives, whenever in the day it is pressed.
// go-fsrs v4 seeds it from the review's instant (Scheduler.initSeed, to the
// millisecond), which no preview can know, so the Scheduler turns go-fsrs'
// fuzz off and applies this one. The due instant tells apart new cards,
// which have no last review yet; a review changes every part of the seed,
// so each review of a card draws anew.
func fuzzSeed(c Card) string {
	return fmt.Sprintf("%d_%d_%d_%.6f_%.6f", c.Due.UnixMilli(), c.LastReview.UnixMilli(), c.Reps, c.Stability, c.Difficulty)
}

// fuzzInterval returns interval (days, as go-fsrs schedules it without
// fuzz) moved to a day drawn uniformly, with fraction u in [0, 1), from
// fsrs-rs' and go-fsrs v4's fuzz range: ±(1 + 15 % of the part between 2.5
// and 7 days + 10 % of the part between 7 and 20 + 5 % of the part above
// 20), rounded, at least 2 days and more than elapsed (days since the
// last review) when the interval is, at most maximum. An interval below 2.5
// days is not fuzzed.
func fuzzInterval(interval, elapsed, maximum, u float64) float64 {
	if interval < 2.5 {
		return interval
	}
	delta := 1.0
	for _, r := range fsrs.FuzzRanges() {
		delta += r.Factor * max(min(interval, r.End)-r.Start, 0)
	}
	interval = min(interval, maximum)
	lo := max(2, math.Round(interval-delta))
	hi := min(math.Round(interval+delta), maximum)
	if interval > elapsed {
		lo = max(lo, elapsed+1)
	}
	lo = min(lo, hi)
	return math.Floor(u*(hi-lo+1)) + lo
}

// fuzzed returns the intervals (days) of the four ratings' outcomes of one
// review, fuzzed with one draw seeded by [fuzzSeed] of the reviewed card c:
// only outcomes in the Review state have an interval; they stay strictly
// increasing from Again to Easy, as go-fsrs keeps them before fuzz.
func (s *Scheduler) fuzzed(c Card, outcomes fsrs.RecordLog, elapsed uint64) [4]uint64 {
	u := fsrs.Alea(fuzzSeed(c)).Double()
	var days [4]uint64
	prev := 0.0
	for i, r := range []fsrs.Rating{fsrs.Again, fsrs.Hard, fsrs.Good, fsrs.Easy} {
		o := outcomes[r].Card
		if o.State != fsrs.Review {
			continue
		}
		iv := fuzzInterval(float64(o.ScheduledDays), float64(elapsed), s.params.MaximumInterval, u)
		if prev > 0 {
			iv = max(iv, prev+1)
		}
		days[i] = uint64(iv)
		prev = iv
	}
	return days
}
