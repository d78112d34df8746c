package oracle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
)

// Scores are the oracle's measures of three weight sets on one item set.
type Scores struct {
	Lexora, FSRS, Defaults optimizer.Metrics
}

// Comparison is the result of [Compare] for one simulated learner.
type Comparison struct {
	Learner Learner
	Reviews int
	Items   int
	Outcome optimizer.Outcome
	// All: both fitted on all items, measured on all items.
	All Scores
	// HeldOut: both fitted on the earlier three quarters of the items
	// (optimizer.TimeSeriesSplit with 3 splits, its last fold), measured
	// on the later quarter.
	HeldOut                    Scores
	TrainItems, TestItems      int
	LexoraFit, FSRSFit         time.Duration // fits on all items
	EvaluateGap                float64       // max |Lexora's Evaluate - fsrs-rs's| on multi-review items
	LexoraWeights, FSRSWeights optimizer.Weights
	// AllErr and HeldOutErr are fsrs-rs's refusals to evaluate (the
	// binding's evaluate drops outliers first and may be left with
	// nothing: "NotEnoughData", wrapping ErrOracle) or, for HeldOutErr,
	// ErrTooFewItems; the Scores are then zero.
	AllErr, HeldOutErr error
}

// ErrTooFewItems is Comparison.HeldOutErr for a log of fewer than 4 items.
var ErrTooFewItems = errors.New("oracle: too few items for a held-out split")

// Compare simulates learner l, fits Lexora's optimizer and fsrs-rs to the
// log and has the oracle measure both (and the defaults), on all items and
// on held-out later ones.
func Compare(ctx context.Context, o *Oracle, l Learner) (Comparison, error) {
	_, log, err := Simulate(l)
	if err != nil {
		return Comparison{}, err
	}
	items, err := optimizer.BuildItems(log, learning.Zone(l.Zone))
	if err != nil {
		return Comparison{}, fmt.Errorf("compare %s: %w", l.Name(), err)
	}
	c := Comparison{Learner: l, Reviews: len(log), Items: len(items)}
	start := time.Now()
	res, err := optimizer.Fit(ctx, items, optimizer.Options{})
	c.LexoraFit = time.Since(start)
	if err != nil {
		return c, fmt.Errorf("compare %s: %w", l.Name(), err)
	}
	c.Outcome, c.LexoraWeights = res.Outcome, res.Weights
	var rs FitTime
	if c.FSRSWeights, rs, err = o.FitPolling(items, 1); err != nil {
		return c, fmt.Errorf("compare %s: %w", l.Name(), err)
	}
	c.FSRSFit = rs.Wall
	c.All, c.AllErr = score(o, res.Weights, c.FSRSWeights, items)
	if c.AllErr != nil && !errors.Is(c.AllErr, ErrOracle) {
		return c, fmt.Errorf("compare %s, all items: %w", l.Name(), c.AllErr)
	}
	if c.EvaluateGap, err = evaluateGap(o, res.Weights, items); err != nil {
		return c, fmt.Errorf("compare %s: %w", l.Name(), err)
	}
	folds := optimizer.TimeSeriesSplit(items, 3)
	if folds == nil {
		c.HeldOutErr = fmt.Errorf("%w: %d items cannot be split", ErrTooFewItems, len(items))
		return c, nil
	}
	f := folds[len(folds)-1]
	c.TrainItems, c.TestItems = len(f.Train), len(f.Test)
	held, err := optimizer.Fit(ctx, f.Train, optimizer.Options{})
	if err != nil {
		return c, fmt.Errorf("compare %s: %w", l.Name(), err)
	}
	heldFSRS, _, err := o.FitPolling(f.Train, 1)
	if err != nil {
		return c, fmt.Errorf("compare %s: %w", l.Name(), err)
	}
	c.HeldOut, c.HeldOutErr = score(o, held.Weights, heldFSRS, f.Test)
	if c.HeldOutErr != nil && !errors.Is(c.HeldOutErr, ErrOracle) {
		return c, fmt.Errorf("compare %s, held out: %w", l.Name(), c.HeldOutErr)
	}
	return c, nil
}

// score has the oracle measure Lexora's, fsrs-rs's and the default weights
// on items.
func score(o *Oracle, lexora, fsrs optimizer.Weights, items []optimizer.Item) (Scores, error) {
	var s Scores
	var err error
	if s.Lexora, err = o.Evaluate(lexora, items); err != nil {
		return s, err
	}
	if s.FSRS, err = o.Evaluate(fsrs, items); err != nil {
		return s, err
	}
	s.Defaults, err = o.Evaluate(learning.DefaultParams().Weights, items)
	return s, err
}

// evaluateGap compares optimizer.Evaluate with the oracle's evaluate on
// the items with more than one review on a later day (which the binding's
// outlier filter leaves as they are and in order).
func evaluateGap(o *Oracle, w optimizer.Weights, items []optimizer.Item) (float64, error) {
	var multi []optimizer.Item
	for _, it := range items {
		n := 0
		for _, s := range it.Reviews {
			if s.DeltaT > 0 {
				n++
			}
		}
		if n > 1 {
			multi = append(multi, it)
		}
	}
	if len(multi) == 0 {
		return 0, nil
	}
	mine, err := optimizer.Evaluate(w, multi)
	if err != nil {
		return 0, err
	}
	theirs, err := o.Evaluate(w, multi)
	if err != nil {
		return 0, err
	}
	return max(abs(mine.LogLoss-theirs.LogLoss), abs(mine.RMSEBins-theirs.RMSEBins)), nil
}

func abs(x float64) float64 { return max(x, -x) }
