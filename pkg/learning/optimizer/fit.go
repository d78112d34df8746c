package optimizer

import (
	"cmp"
	"context"
	"fmt"
	"math"

	"github.com/lexora-app/lexora/pkg/learning"
)

// Version identifies the fitting method: it changes when a change to this
// package can change the weights a fit gives for the same items and
// options. It says which fsrs-rs it follows.
const Version = "fsrs-rs-6.5/1"

// fsrs-rs 6.5's TrainingConfig defaults.
const (
	DefaultSeed         = 2023
	DefaultEpochs       = 5
	DefaultBatchSize    = 512
	DefaultLearningRate = 4e-2
	DefaultMaxSeqLen    = 256
	DefaultGamma        = 1.0
)

// Minimum item counts (fsrs-rs compute_parameters): below minItems the
// defaults are kept, below minTrainItems only w0..w3 are fitted.
const (
	minItems      = 8
	minTrainItems = 64
)

// Options tunes [Fit]. The zero value is fsrs-rs's defaults; a zero field
// takes its default.
type Options struct {
	// Seed orders the batches in each epoch, as fsrs-rs's StdRng with the
	// same seed does (default DefaultSeed, fsrs-rs's).
	Seed uint64
	// Epochs is the number of passes over the items (default 5).
	Epochs int
	// BatchSize is the number of items per batch (default 512).
	BatchSize int
	// LearningRate is Adam's initial learning rate, annealed to 0 along a
	// cosine over the epochs' steps (default 0.04).
	LearningRate float64
	// MaxSeqLen drops items of more reviews than this (default 256).
	MaxSeqLen int
	// Gamma scales the L2 pull toward the starting weights (default 1).
	Gamma float64
	// RelearningSteps is the number of relearning steps the scheduler uses
	// (learning.Params.RelearningSteps, default 1); with two or more,
	// w17*w18 is capped so that the steps cannot raise a lapsed card's
	// stability above its stability before the lapse.
	RelearningSteps int
}

func (o Options) withDefaults() Options {
	o.Seed = cmp.Or(o.Seed, DefaultSeed)
	o.Epochs = cmp.Or(o.Epochs, DefaultEpochs)
	o.BatchSize = cmp.Or(o.BatchSize, DefaultBatchSize)
	o.LearningRate = cmp.Or(o.LearningRate, DefaultLearningRate)
	o.MaxSeqLen = cmp.Or(o.MaxSeqLen, DefaultMaxSeqLen)
	o.Gamma = cmp.Or(o.Gamma, DefaultGamma)
	o.RelearningSteps = cmp.Or(o.RelearningSteps, 1)
	return o
}

// Outcome says how far a fit went.
type Outcome int

const (
	// Defaults: too few items (fewer than 8 after the outlier filter, or
	// no first interval seen on 6 items); the weights are the defaults.
	Defaults Outcome = iota
	// InitialStability: fewer than 64 items, or none beyond a card's
	// first interval; only w0..w3 are fitted, the rest are the defaults.
	InitialStability
	// Trained: all 21 weights are fitted.
	Trained
)

// String returns "defaults", "initial-stability" or "trained".
func (o Outcome) String() string {
	switch o {
	case Defaults:
		return "defaults"
	case InitialStability:
		return "initial-stability"
	case Trained:
		return "trained"
	}
	return fmt.Sprintf("outcome(%d)", int(o))
}

// Result is the answer of [Fit].
type Result struct {
	// Weights are the fitted FSRS-6 weights, within the ranges
	// learning.NewScheduler accepts.
	Weights Weights
	Outcome Outcome
	// Items is the number of items fitted after the outlier filter.
	Items int
}

// Fit fits the FSRS-6 weights to items (from [BuildItems], in time order:
// the recency weights follow it) as fsrs-rs 6.5 compute_parameters does
// with short-term scheduling on; see the package doc for the method. It is
// deterministic for given items and options. ctx is checked between
// batches. Errors: invalid items wrap [ErrInvalidLog]; a cancelled ctx
// returns its error, wrapped.
func Fit(ctx context.Context, items []Item, opts Options) (Result, error) {
	o := opts.withDefaults()
	if err := validate(items); err != nil {
		return Result{}, err
	}
	defaults := learning.DefaultParams().Weights
	init, train := filterOutliers(items)
	if len(train) < minItems {
		return Result{defaults, Defaults, len(train)}, nil
	}
	s0, counts, ok := initialStability(init, averageRecall(train))
	if !ok {
		return Result{defaults, Defaults, len(train)}, nil
	}
	start := defaults
	copy(start[:4], s0[:])
	if len(train) == len(init) || len(train) < minTrainItems {
		return Result{start, InitialStability, len(train)}, nil
	}
	var kept []weighted
	for _, it := range recencyWeights(train) {
		if len(it.item.Reviews) <= o.MaxSeqLen {
			kept = append(kept, it)
		}
	}
	if len(kept) == 0 {
		return Result{start, InitialStability, len(train)}, nil
	}
	w, err := run(ctx, kept, start, o)
	if err != nil {
		return Result{}, err
	}
	var stab [5]float64
	var have [5]bool
	for r := 1; r <= 4; r++ {
		stab[r], have[r] = w[r-1], true
	}
	s0, _ = smoothAndFill(stab, have, counts)
	copy(w[:4], s0[:])
	return Result{w, Trained, len(train)}, nil
}

// run is fsrs-rs's train: Adam on the batches in a seeded random order per
// epoch, the L2 pull toward start, the clamps after every step; it returns
// the weights of the epoch with the lowest loss over all batches.
func run(ctx context.Context, items []weighted, start Weights, o Options) (Weights, error) {
	batches := buildBatches(items, o.BatchSize)
	total := len(items)
	lr := cosineLR{tMax: float64((total/o.BatchSize + 1) * o.Epochs), initial: o.LearningRate, step: -1}
	rng := newStdRng(o.Seed)
	w, best, bestLoss := start, start, math.Inf(1)
	var opt adam
	var sc scratch
	order := make([]int, len(batches))
	for range o.Epochs {
		for i := range order {
			order[i] = i
		}
		rng.shuffle(order)
		for _, bi := range order {
			if err := ctx.Err(); err != nil {
				return Weights{}, fmt.Errorf("optimizer: fit: %w", err)
			}
			b := &batches[bi]
			var g Weights
			b.loss(&w, &sc, &g)
			scale := o.Gamma * float64(len(b.labels)) / float64(total)
			for i := range g {
				g[i] += 2 * (w[i] - start[i]) / (paramsStddev[i] * paramsStddev[i]) * scale
			}
			opt.step(&w, &g, lr.next())
			clip(&w, o.RelearningSteps, true)
		}
		loss := 0.0
		for i := range batches {
			loss += batches[i].loss(&w, &sc, nil)
		}
		loss = (loss + o.Gamma*l2(&w, &start)) / float64(total)
		if loss < bestLoss {
			best, bestLoss = w, loss
		}
	}
	return best, nil
}

// paramsStddev are the weights' standard deviations across users that
// scale the L2 pull (fsrs-rs PARAMS_STDDEV).
var paramsStddev = Weights{
	6.43, 9.66, 17.58, 27.85, 0.57, 0.28, 0.6, 0.12, 0.39, 0.18, 0.33, 0.3, 0.09, 0.16, 0.57, 0.25,
	1.03, 0.31, 0.32, 0.14, 0.27,
}

// l2 is sum ((w - start)/stddev)^2.
func l2(w, start *Weights) float64 {
	sum := 0.0
	for i := range w {
		d := (w[i] - start[i]) / paramsStddev[i]
		sum += d * d
	}
	return sum
}

// adam is the Adam optimiser (beta1 0.9, beta2 0.999, epsilon 1e-8, bias
// corrected), as fsrs-rs HostAdam.
type adam struct {
	m, v Weights
	t    int
}

func (a *adam) step(w, g *Weights, lr float64) {
	const beta1, beta2, eps = 0.9, 0.999, 1e-8
	a.t++
	b1 := 1 - math.Pow(beta1, float64(a.t))
	b2 := 1 - math.Pow(beta2, float64(a.t))
	for i := range w {
		a.m[i] = beta1*a.m[i] + (1-beta1)*g[i]
		a.v[i] = beta2*a.v[i] + (1-beta2)*g[i]*g[i]
		w[i] -= lr * (a.m[i] / b1) / (math.Sqrt(a.v[i]/b2) + eps)
	}
}

// cosineLR is PyTorch's CosineAnnealingLR (eta_min 0) in its recursive
// form, as fsrs-rs cosine_annealing.rs.
type cosineLR struct {
	tMax, initial, lr, step float64
}

func (c *cosineLR) next() float64 {
	c.step++
	switch {
	case c.step == 0:
		c.lr = c.initial
	case math.Mod(c.step-1-c.tMax, 2*c.tMax) == 0:
		c.lr = c.initial * (1 - math.Cos(math.Pi/c.tMax)) / 2
	default:
		c.lr = (1 + math.Cos(math.Pi*c.step/c.tMax)) / (1 + math.Cos(math.Pi*(c.step-1)/c.tMax)) * c.lr
	}
	return c.lr
}

// clip clamps every weight to its range (fsrs-rs parameter_clipper.rs,
// which go-fsrs v4 and so learning.NewScheduler accept). With two or more
// relearning steps w17 and w18 are capped at
// sqrt(-(ln w11 + ln(2^w13 - 1) + 0.3 w14) / steps); w19 is at least 0.01
// with short-term scheduling on.
func clip(w *Weights, relearningSteps int, shortTerm bool) {
	ceiling := 2.0
	if relearningSteps > 1 {
		v := -(math.Log(w[11]) + math.Log(math.Pow(2, w[13])-1) + w[14]*0.3) / float64(relearningSteps)
		ceiling = min(math.Sqrt(max(v, 0.01)), 2)
	}
	w19 := 0.0
	if shortTerm {
		w19 = 0.01
	}
	bounds := [21][2]float64{
		{sMin, initSMax}, {sMin, initSMax}, {sMin, initSMax}, {sMin, initSMax},
		{dMin, dMax}, {0.001, 4}, {0.001, 4}, {0.001, 0.75}, {0, 4.5}, {0, 0.8}, {0.001, 3.5},
		{0.001, 5}, {0.001, 0.25}, {0.001, 0.9}, {0, 4}, {0, 1}, {1, 6},
		{0, ceiling}, {0, ceiling}, {w19, 0.8}, {0.1, 0.8},
	}
	for i, b := range bounds {
		w[i] = clamp(w[i], b[0], b[1])
	}
}
