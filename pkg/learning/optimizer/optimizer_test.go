package optimizer

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// randomLog is a review log of cards reviewed at random intervals (same
// study day included) with random ratings, in UTC.
func randomLog(seed uint64, cards, reviewsPerCard int) []Review {
	rng := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	var log []Review
	for c := range cards {
		at := start.Add(time.Duration(rng.IntN(30*24)) * time.Hour)
		for range reviewsPerCard {
			r := learning.Rating(1 + rng.IntN(4))
			if rng.Float64() < 0.7 {
				r = learning.Good
			}
			log = append(log, Review{Card: fmt.Sprintf("card-%d", c), Rating: r, At: at})
			if rng.Float64() < 0.25 {
				at = at.Add(10 * time.Minute)
			} else {
				at = at.Add(time.Duration(1+rng.IntN(20)) * 24 * time.Hour)
			}
		}
	}
	return log
}

func items(t *testing.T, log []Review) []Item {
	t.Helper()
	its, err := BuildItems(log, time.UTC)
	require.NoError(t, err)
	return its
}

// objective is the summed weighted cross-entropy of all batches at w.
func objective(bs []batch, w Weights) float64 {
	var sc scratch
	sum := 0.0
	for i := range bs {
		sum += bs[i].loss(&w, &sc, nil)
	}
	return sum
}

// TestGradientMatchesFiniteDifferences checks every analytic partial
// derivative against a central difference, at weights away from the
// defaults and the clamps, on a log that exercises every branch (same-day,
// lapse, Hard, Good, Easy).
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	t.Parallel()
	its := items(t, randomLog(7, 60, 8))
	bs := buildBatches(recencyWeights(its), DefaultBatchSize)
	w := learning.DefaultParams().Weights
	rng := rand.New(rand.NewPCG(3, 3))
	for i := range w {
		w[i] *= 0.8 + 0.4*rng.Float64()
	}
	w[7] = 0.05 // mean reversion visible
	w[12] = 0.1
	w[19] = 0.2
	var g Weights
	var sc scratch
	for i := range bs {
		bs[i].loss(&w, &sc, &g)
	}
	for i := range w {
		h := 1e-6 * max(1, math.Abs(w[i]))
		up, down := w, w
		up[i] += h
		down[i] -= h
		num := (objective(bs, up) - objective(bs, down)) / (2 * h)
		require.InDelta(t, num, g[i], 1e-5*max(1, math.Abs(num)), "w%d: analytic %g, central difference %g", i, g[i], num)
		require.NotZero(t, g[i], "w%d: the log should exercise every weight", i)
	}
}

func TestBuildItemsStudyDays(t *testing.T) {
	t.Parallel()
	paris := learning.Zone("Europe/Paris")
	day := func(d, h, m int) time.Time { return time.Date(2026, 3, d, h, m, 0, 0, paris) }
	log := []Review{
		{Card: "b", Rating: learning.Good, At: day(2, 10, 0)},
		{Card: "a", Rating: learning.Again, At: day(1, 22, 0)},
		{Card: "a", Rating: learning.Good, At: day(1, 22, 10)}, // same day: history only
		{Card: "a", Rating: learning.Good, At: day(2, 3, 30)},  // before 04:00: still 1 March
		{Card: "a", Rating: learning.Hard, At: day(2, 4, 30)},  // 2 March: a label, 1 day
		{Card: "b", Rating: learning.Easy, At: day(5, 9, 0)},
	}
	got, err := BuildItems(log, paris)
	require.NoError(t, err)
	require.Equal(t, []Item{
		{Card: 0, Reviews: []Step{{learning.Again, 0}, {learning.Good, 0}, {learning.Good, 0}, {learning.Hard, 1}}},
		{Card: 1, Reviews: []Step{{learning.Good, 0}, {learning.Easy, 3}}},
	}, got)

	_, err = BuildItems([]Review{{Card: "a", Rating: 5, At: day(1, 9, 0)}}, paris)
	require.ErrorIs(t, err, ErrInvalidLog)
}

func TestFitFewReviews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	def := learning.DefaultParams().Weights

	res, err := Fit(ctx, nil, Options{})
	require.NoError(t, err)
	require.Equal(t, Result{Weights: def, Outcome: Defaults}, res)

	// One review per card, or only same-day ones: no items at all.
	same := []Review{}
	for c := range 50 {
		at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
		for k := range 3 {
			same = append(same, Review{Card: fmt.Sprint(c), Rating: learning.Good, At: at.Add(time.Duration(k) * time.Minute)})
		}
	}
	require.Empty(t, items(t, same))

	// 40 cards reviewed twice, a day apart: InitialStability (too few to
	// train), w0..w3 moved, the rest the defaults.
	var two []Review
	for c := range 40 {
		at := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
		r := learning.Again
		if c%2 == 0 {
			r = learning.Good
		}
		two = append(two, Review{Card: fmt.Sprint(c), Rating: r, At: at},
			Review{Card: fmt.Sprint(c), Rating: learning.Good, At: at.Add(24 * time.Hour)})
	}
	res, err = Fit(ctx, items(t, two), Options{})
	require.NoError(t, err)
	require.Equal(t, InitialStability, res.Outcome)
	require.Equal(t, def[4:], res.Weights[4:])
	require.NotEqual(t, def[:4], res.Weights[:4])
	for i := 1; i < 4; i++ {
		require.GreaterOrEqual(t, res.Weights[i], res.Weights[i-1]*(1-1e-12), "initial stabilities increase")
	}
}

func TestFitDeterministicAndValid(t *testing.T) {
	t.Parallel()
	its := items(t, randomLog(11, 300, 8))
	a, err := Fit(context.Background(), its, Options{})
	require.NoError(t, err)
	require.Equal(t, Trained, a.Outcome)
	b, err := Fit(context.Background(), its, Options{})
	require.NoError(t, err)
	require.Equal(t, a, b)
	c, err := Fit(context.Background(), its, Options{Seed: 99})
	require.NoError(t, err)
	require.NotEqual(t, a.Weights, c.Weights, "the seed orders the batches")

	p := learning.DefaultParams()
	p.Weights = a.Weights
	_, err = learning.NewScheduler(p, clock.System{})
	require.NoError(t, err, "the scheduler accepts fitted weights")
	clipped := a.Weights
	clip(&clipped, 1, true)
	require.Equal(t, a.Weights, clipped, "fitted weights are within the clamps")

	fitted, err := Evaluate(a.Weights, its)
	require.NoError(t, err)
	def, err := Evaluate(learning.DefaultParams().Weights, its)
	require.NoError(t, err)
	require.Less(t, fitted.LogLoss, def.LogLoss)
}

func TestFitCancelledAndInvalid(t *testing.T) {
	t.Parallel()
	its := items(t, randomLog(5, 200, 6))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Fit(ctx, its, Options{})
	require.ErrorIs(t, err, context.Canceled)

	bad := []Item{{Card: 0, Reviews: []Step{{learning.Good, 0}, {learning.Good, 0}}}}
	_, err = Fit(context.Background(), bad, Options{})
	require.ErrorIs(t, err, ErrInvalidLog)
	_, err = Evaluate(learning.DefaultParams().Weights, nil)
	require.ErrorIs(t, err, ErrNoItems)
}

func TestTimeSeriesSplit(t *testing.T) {
	t.Parallel()
	its := make([]Item, 10)
	for i := range its {
		its[i] = Item{Card: i}
	}
	folds := TimeSeriesSplit(its, 3)
	require.Len(t, folds, 3)
	require.Len(t, folds[0].Train, 2)
	require.Len(t, folds[0].Test, 2)
	require.Len(t, folds[2].Train, 6)
	require.Len(t, folds[2].Test, 4)
	require.Equal(t, 6, folds[2].Test[0].Card)
	require.Nil(t, TimeSeriesSplit(its[:3], 3))
}
