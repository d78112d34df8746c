package optimizer

import (
	"errors"
	"fmt"
	"math"

	"github.com/lexora-app/lexora/pkg/learning"
)

// Metrics are how well weights predict a set of items (fsrs-rs
// ModelEvaluation).
type Metrics struct {
	// LogLoss is the recency-weighted mean binary cross-entropy of recall
	// against the predicted retrievability (lower is better).
	LogLoss float64
	// RMSEBins is the calibration error: the root of the weighted mean
	// squared difference between mean predicted and observed recall, over
	// bins of (interval, number of reviews, number of lapses), each bin
	// weighted by its items' recency weights.
	RMSEBins float64
}

// ErrNoItems is returned by [Evaluate] for an empty item set.
var ErrNoItems = errors.New("optimizer: no items to evaluate")

// Evaluate measures weights w on items (fsrs-rs FSRS::evaluate): each
// item's label is predicted from its earlier reviews with w clamped as
// fsrs-rs clamps them, weighted 0.25 + 0.75 (i/(n-1))^3 by its position i
// of n. Errors: no items, [ErrNoItems]; invalid items wrap
// [ErrInvalidLog]; a non-finite metric (weights that predict certainty
// wrongly) wraps [ErrInvalidLog] too.
func Evaluate(w Weights, items []Item) (Metrics, error) {
	if len(items) == 0 {
		return Metrics{}, ErrNoItems
	}
	if err := validate(items); err != nil {
		return Metrics{}, err
	}
	clip(&w, 1, false)
	m := newModel(&w)
	type cell struct{ predicted, actual, count, weight float64 }
	bins := map[[3]int]*cell{}
	var loss, weights float64
	for _, it := range recencyWeights(items) {
		p := m.predict(it.item)
		y := 0.0
		if it.item.label().Rating > learning.Again {
			y = 1
		}
		loss += -(y*math.Log(p) + (1-y)*math.Log(1-p)) * it.weight
		weights += it.weight
		k := binOf(it.item)
		c := bins[k]
		if c == nil {
			c = &cell{}
			bins[k] = c
		}
		c.predicted += p
		c.actual += y
		c.count++
		c.weight += it.weight
	}
	var sq, sw float64
	for _, c := range bins {
		d := c.predicted/c.count - c.actual/c.count
		sq += d * d * c.weight
		sw += c.weight
	}
	out := Metrics{LogLoss: loss / weights, RMSEBins: math.Sqrt(sq / sw)}
	if math.IsNaN(out.LogLoss) || math.IsInf(out.LogLoss, 0) || math.IsNaN(out.RMSEBins) {
		return Metrics{}, fmt.Errorf("%w: the weights give a non-finite log loss", ErrInvalidLog)
	}
	return out, nil
}

// predict is the retrievability of it's label from its earlier reviews.
func (m model) predict(it Item) float64 {
	st, _, _ := m.initial(it.Reviews[0].Rating)
	n := len(it.Reviews)
	for _, s := range it.Reviews[1 : n-1] {
		st, _ = m.next(st, float64(s.DeltaT), s.Rating)
	}
	r, _ := m.c.r(float64(it.label().DeltaT), st.s)
	return r
}

// binOf is fsrs-rs's r_matrix_index: the label's interval, the number of
// long-term reviews and of lapses before it, each on a log scale.
func binOf(it Item) [3]int {
	logBin := func(x, a, base float64) int {
		return int(math.Round(a * math.Pow(base, math.Floor(math.Log(x)/math.Log(base)))))
	}
	dt := int(math.Round(2.48 * math.Pow(3.62, math.Floor(math.Log(float64(it.label().DeltaT))/math.Log(3.62))) * 100))
	length := logBin(float64(it.longTermCount())+1, 1.99, 1.89)
	lapses := 0
	for _, s := range it.Reviews[:len(it.Reviews)-1] {
		if s.Rating == learning.Again && s.DeltaT > 0 {
			lapses++
		}
	}
	if lapses == 0 {
		return [3]int{dt, length, 0}
	}
	return [3]int{dt, length, logBin(float64(lapses), 1.65, 1.73)}
}

// Fold is one split of a time-ordered item set: Train are the items before
// Test.
type Fold struct {
	Train, Test []Item
}

// TimeSeriesSplit cuts items (in time order, as [BuildItems] gives them)
// into n+1 segments of len(items)/(n+1) and returns n folds: fold i trains
// on segments 0..i and tests on segment i+1, the last fold's test running
// to the end (fsrs-rs TimeSeriesSplit::split). It returns nil when n < 1 or
// there are fewer than n+1 items. The folds share items' backing array.
func TimeSeriesSplit(items []Item, n int) []Fold {
	if n < 1 || len(items)/(n+1) == 0 {
		return nil
	}
	size := len(items) / (n + 1)
	folds := make([]Fold, n)
	for i := range folds {
		end := (i + 2) * size
		if i == n-1 {
			end = len(items)
		}
		folds[i] = Fold{Train: items[:(i+1)*size], Test: items[(i+1)*size : end]}
	}
	return folds
}
