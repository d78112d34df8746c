package optimizer

import (
	"cmp"
	"math"
	"slices"

	"github.com/lexora-app/lexora/pkg/learning"
)

// initSMax bounds the initial stabilities w0..w3 (fsrs-rs INIT_S_MAX).
const initSMax = 100.0

// firstIntervals groups items with exactly one review on a later study day
// than the one before (their label) by first rating, then by that
// interval: groups[rating][deltaT] are the items' indices.
func firstIntervals(items []Item) [5]map[uint32][]int {
	var groups [5]map[uint32][]int
	for i, it := range items {
		if it.longTermCount() != 1 {
			continue
		}
		r := it.Reviews[0].Rating
		if groups[r] == nil {
			groups[r] = map[uint32][]int{}
		}
		dt := it.label().DeltaT
		groups[r][dt] = append(groups[r][dt], i)
	}
	return groups
}

// filterOutliers splits items as fsrs-rs prepare_training_data does. Per
// first rating, the first intervals seen on fewest items are dropped until
// max(20, n/20) items are dropped; of the rest, an interval with fewer than
// 6 items, or longer than 100 days (365 after Easy), is dropped too. The
// items whose first interval was not dropped initialise the stabilities
// (init); train is every item whose card's first interval was not dropped.
func filterOutliers(items []Item) (init, train []Item) {
	groups := firstIntervals(items)
	var removed [5]map[uint32]bool
	for r := learning.Again; r <= learning.Easy; r++ {
		removed[r] = map[uint32]bool{}
		total := 0
		dts := make([]uint32, 0, len(groups[r]))
		for dt, idx := range groups[r] {
			dts = append(dts, dt)
			total += len(idx)
		}
		// Fewest items first; ties by shorter interval first (the reverse
		// of fsrs-rs's most items first, longer interval first).
		slices.SortFunc(dts, func(a, b uint32) int {
			return cmp.Or(cmp.Compare(len(groups[r][a]), len(groups[r][b])), cmp.Compare(a, b))
		})
		limit := max(20, total/20)
		maxDT := uint32(100)
		if r == learning.Easy {
			maxDT = 365
		}
		dropped := 0
		for _, dt := range dts {
			idx := groups[r][dt]
			switch {
			case dropped+len(idx) < limit:
				dropped += len(idx)
				removed[r][dt] = true
			case len(idx) >= 6 && dt <= maxDT:
				for _, i := range idx {
					init = append(init, items[i])
				}
			default:
				removed[r][dt] = true
			}
		}
	}
	for _, it := range items {
		if !removed[it.Reviews[0].Rating][it.firstLongTerm().DeltaT] {
			train = append(train, it)
		}
	}
	return init, train
}

// averageRecall is the share of items whose label is a recall.
func averageRecall(items []Item) float64 {
	if len(items) == 0 {
		return 0
	}
	n := 0
	for _, it := range items {
		if it.label().Rating > learning.Again {
			n++
		}
	}
	return float64(n) / float64(len(items))
}

// recallPoint is the recall observed count times after one first interval.
type recallPoint struct{ deltaT, recall, count float64 }

// initialStability fits w0..w3 to the first-interval recall curves (fsrs-rs
// initialize_stability_parameters): per first rating, the stability whose
// forgetting curve (default decay) minimises the count-weighted
// cross-entropy against the observed recall (smoothed toward avgRecall by
// one pseudo-review) plus |S - default|/16, by ternary search on
// [0.001, 100]; then smoothAndFill. It returns the stabilities, the number
// of items per first rating and false when init is empty.
func initialStability(init []Item, avgRecall float64) ([4]float64, [5]int, bool) {
	var points [5][]recallPoint
	var counts [5]int
	var have [5]bool
	var stab [5]float64
	for r, byDT := range firstIntervals(init) {
		for dt, idx := range byDT {
			recalled := 0
			for _, i := range idx {
				if init[i].label().Rating > learning.Again {
					recalled++
				}
			}
			c := float64(len(idx))
			points[r] = append(points[r], recallPoint{float64(dt), (float64(recalled) + avgRecall) / (c + 1), c})
			counts[r] += len(idx)
		}
		if len(points[r]) > 0 {
			slices.SortFunc(points[r], func(a, b recallPoint) int { return cmp.Compare(a.deltaT, b.deltaT) })
			have[r] = true
			stab[r] = searchStability(points[r], learning.DefaultParams().Weights[r-1])
		}
	}
	s0, ok := smoothAndFill(stab, have, counts)
	return s0, counts, ok
}

// searchStability is the ternary search of initialStability for one first
// rating whose default stability is def.
func searchStability(points []recallPoint, def float64) float64 {
	c := newCurve(learning.DefaultParams().Weights[20])
	loss := func(s float64) float64 {
		sum := 0.0
		for _, p := range points {
			y, _ := c.r(p.deltaT, s)
			sum += -(p.recall*math.Log(y) + (1-p.recall)*math.Log(1-y)) * p.count
		}
		return sum + math.Abs(s-def)/16
	}
	lo, hi, best := sMin, initSMax, def
	for iter := 0; hi-lo > 2.220446049250313e-16 && iter < 1000; iter++ {
		m1, m2 := lo+(hi-lo)/3, hi-(hi-lo)/3
		if loss(m1) < loss(m2) {
			hi = m2
		} else {
			lo = m1
		}
		best = (hi + lo) / 2
	}
	return best
}
