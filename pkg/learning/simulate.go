package learning

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Rating probabilities of the simulated learner, fsrs-rs 6.5's
// SimulatorConfig defaults (src/simulation.rs): the first rating of a new
// card (Again, Hard, Good, Easy), and the rating of a recalled card (Hard,
// Good, Easy); a card not recalled is rated Again.
var (
	simFirstRating  = [4]float64{0.24, 0.094, 0.495, 0.171}
	simRecallRating = [3]float64{0.224, 0.631, 0.145}
)

// SimCard is one card as a workload simulation starts from it, in whole
// study days counted from the simulation's first day (day 0, today).
type SimCard struct {
	// New is true for a card never reviewed: the simulated learner learns
	// it on the first day the new-card limit leaves room, and the other
	// fields are ignored.
	New bool
	// Stability (days) and Difficulty (1..10) after the card's last review.
	Stability, Difficulty float64
	// LastReviewDay is the day of that review (0 today, -3 three study
	// days ago); DueDay the day it falls due (an overdue card: 0 or less,
	// reviewed today).
	LastReviewDay, DueDay int
}

// LearnerCards is one learner of a workload: their FSRS-6 weights (their
// fitted parameters, or the defaults) and their cards.
type LearnerCards struct {
	Weights [21]float64
	Cards   []SimCard
}

// Workload configures [SimulateWorkload].
type Workload struct {
	// Retentions are the desired retentions to compare, each in (0, 1).
	Retentions []float64
	// Days is the horizon in study days (> 0), today first.
	Days int
	// NewPerDay is how many new cards a learner learns a day (> 0).
	NewPerDay int
	// MaximumInterval caps an interval, in days (>= 1).
	MaximumInterval float64
	// Seed makes the simulation deterministic: the same learners, cards
	// and seed give the same figures.
	Seed uint64
}

// SimulateWorkload simulates every learner's cards over w.Days study days
// at each of w.Retentions and returns, for each retention (in its order),
// the expected number of reviews per learner on each day (w.Days values,
// the mean over learners; 0 for no learners). A first review of a new card
// is not counted: it is learning, not a review.
//
// The method is fsrs-rs 6.5's simulator (src/simulation.rs, simulate),
// without its review limit: a card is reviewed on the day it falls due
// (an overdue one today); it is recalled with probability
// [Retrievability] of the days since its last review, is then rated Hard,
// Good or Easy with fsrs-rs's default probabilities, else Again; its
// stability and difficulty move by the FSRS-6 long-term update (the
// success and failure stabilities, difficulty's linear damping and mean
// reversion, S in [0.001, 36500], D in [1, 10]); its next interval is
// [Interval] at the retention, rounded, in [1, MaximumInterval] days. New
// cards are learned in their order, w.NewPerDay a day, with fsrs-rs's
// first-rating probabilities and the initial stability and difficulty of
// that rating. Cards already scheduled keep their due day: a new
// retention applies from a card's next review on, as in the product.
// Every retention draws the same random numbers (common random numbers),
// so their difference is the retention's, not the draw's.
//
// Errors: a retention outside (0, 1), Days or NewPerDay <= 0, a
// MaximumInterval < 1, or a learner's weights that are not finite or whose
// w20 is not > 0.
func SimulateWorkload(w Workload, learners []LearnerCards) ([][]float64, error) {
	if w.Days <= 0 || w.NewPerDay <= 0 || !(w.MaximumInterval >= 1) {
		return nil, fmt.Errorf("simulate workload: days %d, new per day %d, maximum interval %v must be positive",
			w.Days, w.NewPerDay, w.MaximumInterval)
	}
	for _, r := range w.Retentions {
		if !(r > 0 && r < 1) {
			return nil, fmt.Errorf("simulate workload: retention %v outside (0, 1)", r)
		}
	}
	for i, l := range learners {
		for _, x := range l.Weights {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("simulate workload: learner %d: a weight is not finite", i)
			}
		}
		if l.Weights[20] <= 0 {
			return nil, fmt.Errorf("simulate workload: learner %d: w20 = %v, must be > 0", i, l.Weights[20])
		}
	}
	out := make([][]float64, len(w.Retentions))
	for ri, retention := range w.Retentions {
		perDay := make([]float64, w.Days)
		for li := range learners {
			m := newSimModel(&learners[li].Weights)
			rng := rand.New(rand.NewPCG(w.Seed, uint64(li)))
			learned := 0
			for _, c := range learners[li].Cards {
				if c.New {
					day := learned / w.NewPerDay
					learned++
					if day >= w.Days {
						continue
					}
					rating := Rating(draw(rng, simFirstRating[:]) + 1)
					s, d := m.initial(rating)
					c = SimCard{Stability: s, Difficulty: d, LastReviewDay: day,
						DueDay: day + m.interval(s, retention, w.MaximumInterval)}
				}
				m.run(c, retention, w, rng, perDay)
			}
		}
		if n := float64(len(learners)); n > 0 {
			for i := range perDay {
				perDay[i] /= n
			}
		}
		out[ri] = perDay
	}
	return out, nil
}

// simModel is the FSRS-6 long-term memory model of one set of weights,
// with its forgetting curve's constants.
type simModel struct {
	w             *[21]float64
	decay, factor float64
}

func newSimModel(w *[21]float64) simModel {
	decay := -w[20]
	return simModel{w: w, decay: decay, factor: math.Pow(0.9, 1/decay) - 1}
}

// run reviews c on each day it falls due before w.Days, adding one to
// perDay for each review.
func (m simModel) run(c SimCard, retention float64, w Workload, rng *rand.Rand, perDay []float64) {
	s, d, last, due := c.Stability, c.Difficulty, c.LastReviewDay, max(c.DueDay, 0)
	if s <= 0 {
		return
	}
	for due < w.Days {
		perDay[due]++
		r := math.Pow(1+m.factor*float64(max(due-last, 0))/s, m.decay)
		rating := Again
		if rng.Float64() < r {
			rating = Rating(draw(rng, simRecallRating[:]) + 2)
		}
		s, d = m.next(s, d, r, rating)
		last, due = due, due+m.interval(s, retention, w.MaximumInterval)
	}
}

// initial is the stability and difficulty after a new card's first rating.
func (m simModel) initial(rating Rating) (s, d float64) {
	return clamp(m.w[rating-1], 0.001, 36500), clamp(m.initDifficulty(rating), 1, 10)
}

// initDifficulty is w4 − e^(w5·(rating−1)) + 1, unclamped.
func (m simModel) initDifficulty(rating Rating) float64 {
	return m.w[4] - math.Exp(m.w[5]*float64(rating-1)) + 1
}

// next is the FSRS-6 long-term update of (s, d) by rating at recall
// probability r (fsrs-rs 6.5 src/simulation.rs stability_after_success,
// stability_after_failure, next_d).
func (m simModel) next(s, d, r float64, rating Rating) (float64, float64) {
	w := m.w
	var ns float64
	if rating == Again {
		ns = min(w[11]*math.Pow(d, -w[12])*(math.Pow(s+1, w[13])-1)*math.Exp((1-r)*w[14]), s/math.Exp(w[17]*w[18]))
	} else {
		bonus := 1.0
		switch rating {
		case Hard:
			bonus = w[15]
		case Easy:
			bonus = w[16]
		}
		ns = s * (1 + math.Exp(w[8])*(11-d)*math.Pow(s, -w[9])*(math.Exp((1-r)*w[10])-1)*bonus)
	}
	delta := -w[6] * float64(rating-3)
	nd := d + (10-d)/9*delta
	nd = w[7]*m.initDifficulty(Easy) + (1-w[7])*nd
	return clamp(ns, 0.001, 36500), clamp(nd, 1, 10)
}

// interval is the whole days to the next review at retention: [Interval]
// rounded, in [1, maximum].
func (m simModel) interval(s, retention, maximum float64) int {
	days := math.Round(s / m.factor * (math.Pow(retention, 1/m.decay) - 1))
	return int(clamp(days, 1, maximum))
}

// draw picks an index of p (probabilities summing to 1) with rng.
func draw(rng *rand.Rand, p []float64) int {
	u := rng.Float64()
	for i, x := range p[:len(p)-1] {
		if u < x {
			return i
		}
		u -= x
	}
	return len(p) - 1
}

func clamp(x, lo, hi float64) float64 {
	return min(max(x, lo), hi)
}
