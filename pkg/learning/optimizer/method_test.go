package optimizer

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/learning"
)

// TestCosineLR is fsrs-rs's test_lr_scheduler (cosine_annealing.rs): 5
// steps down to 0 and, past them, back up.
func TestCosineLR(t *testing.T) {
	t.Parallel()
	lr := cosineLR{tMax: 5, initial: 4e-2, step: -1}
	want := []float64{0.04, 0.03618033988749895, 0.026180339887498946, 0.013819660112501051, 0.0038196601125010526,
		0, 0.003819660112501051, 0.013819660112501048, 0.026180339887498943, 0.03618033988749895, 0.039999999999999994}
	for i, w := range want {
		require.InDelta(t, w, lr.next(), 1e-12, "step %d", i)
	}
}

// TestSmoothAndFill is fsrs-rs's test_smooth_and_fill
// (parameter_initialization.rs), to its float32 precision, plus an
// out-of-order pair.
func TestSmoothAndFill(t *testing.T) {
	t.Parallel()
	got, ok := smoothAndFill([5]float64{0, 0.4, 0, 2.3, 10.9}, [5]bool{false, true, false, true, true}, [5]int{0, 1, 1, 1, 1})
	require.True(t, ok)
	require.InDeltaSlice(t, []float64{0.4, 1.1227008, 2.3, 10.9}, got[:], 1e-6)

	got, ok = smoothAndFill([5]float64{0, 0, 0.35}, [5]bool{false, false, true}, [5]int{0, 0, 1})
	require.True(t, ok)
	require.InDeltaSlice(t, []float64{0.05738148, 0.35, 0.6242943, 2.2453482}, got[:], 1e-6)

	// Good below Hard: the rating seen more often (Good) decides.
	got, ok = smoothAndFill([5]float64{0, 0.5, 3, 2, 9}, [5]bool{false, true, true, true, true}, [5]int{0, 5, 5, 50, 5})
	require.True(t, ok)
	require.Equal(t, [4]float64{0.5, 2, 2, 9}, got)

	_, ok = smoothAndFill([5]float64{0, 1}, [5]bool{false, true}, [5]int{})
	require.False(t, ok, "a rating never counted is not seen")
}

// firstInterval is an item of a card first rated r, reviewed again dt days
// later (rated Good), then after more days if longer.
func firstInterval(card int, r learning.Rating, dt uint32, more ...uint32) Item {
	rs := []Step{{r, 0}, {learning.Good, dt}}
	for _, d := range more {
		rs = append(rs, Step{learning.Good, d})
	}
	return Item{Card: card, Reviews: rs}
}

func TestFilterOutliers(t *testing.T) {
	t.Parallel()
	var items []Item
	add := func(n int, dt uint32) {
		for range n {
			items = append(items, firstInterval(len(items), learning.Good, dt))
		}
	}
	add(30, 1)
	add(25, 3)
	add(3, 7)    // rarest: dropped first
	add(10, 200) // then this one (13 dropped < 20), which is also over 100 days
	long7 := firstInterval(len(items), learning.Good, 7, 10)
	long3 := firstInterval(len(items)+1, learning.Good, 3, 10)
	items = append(items, long7, long3)

	init, train := filterOutliers(items)
	require.Len(t, init, 55)
	for _, it := range init {
		require.Contains(t, []uint32{1, 3}, it.label().DeltaT)
	}
	require.Len(t, train, 56)
	require.Contains(t, train, long3)
	require.NotContains(t, train, long7, "a card whose first interval was dropped is dropped whole")
}

// TestEvaluateOneItem checks Evaluate against the FSRS-6 formulas written
// out: after a first Good, stability w2; recall one day later is
// (1 + factor/w2)^-w20 with factor = 0.9^(-1/w20) - 1.
func TestEvaluateOneItem(t *testing.T) {
	t.Parallel()
	w := learning.DefaultParams().Weights
	r := math.Pow(1+(math.Pow(0.9, -1/w[20])-1)/w[2], -w[20])
	m, err := Evaluate(w, []Item{{Reviews: []Step{{learning.Good, 0}, {learning.Good, 1}}}})
	require.NoError(t, err)
	require.InDelta(t, -math.Log(r), m.LogLoss, 1e-12)
	require.InDelta(t, 1-r, m.RMSEBins, 1e-12)

	m, err = Evaluate(w, []Item{{Reviews: []Step{{learning.Good, 0}, {learning.Again, 1}}}})
	require.NoError(t, err)
	require.InDelta(t, -math.Log(1-r), m.LogLoss, 1e-12)
	require.InDelta(t, r, m.RMSEBins, 1e-12)
}

// TestMemoryFunctions checks the exported model against the formulas: the
// first Good gives stability w2, difficulty w4 - e^(2 w5) + 1; a Good one
// day later raises the stability by the success formula.
func TestMemoryFunctions(t *testing.T) {
	t.Parallel()
	w := learning.DefaultParams().Weights
	s0 := InitialState(w, learning.Good)
	require.InDelta(t, w[2], s0.Stability, 1e-12)
	require.InDelta(t, w[4]-math.Exp(2*w[5])+1, s0.Difficulty, 1e-12)
	r := Retrievability(w, 1, s0.Stability)
	s1 := NextState(w, s0, 1, learning.Good)
	inc := math.Exp(w[8]) * (11 - s0.Difficulty) * math.Pow(s0.Stability, -w[9]) * (math.Exp((1-r)*w[10]) - 1)
	require.InDelta(t, s0.Stability*(1+inc), s1.Stability, 1e-9)
	require.InDelta(t, 0.9, Retrievability(w, 5, 5), 1e-12, "R(S, S) = 0.9")
	// Same study day (short-term formula): Good never lowers stability (its
	// multiplier, below 1 here, is floored at 1); Again lowers it.
	require.InDelta(t, s0.Stability, NextState(w, s0, 0, learning.Good).Stability, 1e-12)
	again := math.Exp(w[17]*(-2+w[18])) * math.Pow(s0.Stability, -w[19])
	require.InDelta(t, s0.Stability*again, NextState(w, s0, 0, learning.Again).Stability, 1e-12)
}

// TestBatchTrieMatchesItems checks that a batch's trie gives the loss of
// its items predicted one by one.
func TestBatchTrieMatchesItems(t *testing.T) {
	t.Parallel()
	its := items(t, randomLog(13, 200, 7))
	ws := recencyWeights(its)
	w := learning.DefaultParams().Weights
	m := newModel(&w)
	want := 0.0
	for _, it := range ws {
		y := 0.0
		if it.item.label().Rating > learning.Again {
			y = 1
		}
		l, _ := bce(m.predict(it.item), y, it.weight)
		want += l
	}
	got, nodes, steps := 0.0, 0, 0
	var sc scratch
	for _, b := range buildBatches(ws, 64) {
		got += b.loss(&w, &sc, nil)
		nodes += len(b.nodes)
		steps += len(b.labels)
	}
	require.InDelta(t, want, got, 1e-9*want)
	require.Equal(t, len(its), steps)
	t.Logf("%d items, %d trie nodes", len(its), nodes)
}
