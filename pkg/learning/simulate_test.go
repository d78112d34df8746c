package learning

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRetrievabilityIsTheFSRS6ForgettingCurve(t *testing.T) {
	t.Parallel()
	w := DefaultParams().Weights
	require.InDelta(t, 0.9, Retrievability(w, 7.5, 7.5), 1e-12, "R(S, S) = 0.9 by construction")
	// By hand: w20 = 0.1542, factor = 0.9^(-1/0.1542) - 1.
	factor := math.Pow(0.9, -1/w[20]) - 1
	require.InDelta(t, math.Pow(1+factor*30/4, -w[20]), Retrievability(w, 30, 4), 1e-12)
	require.Equal(t, 1.0, Retrievability(w, 0, 4))
	require.Equal(t, 0.0, Retrievability(w, 3, 0), "a card never reviewed")
	require.Less(t, Retrievability(w, 31, 4), Retrievability(w, 30, 4))
	for _, r := range []float64{0.8, 0.85, 0.9, 0.95} {
		require.InDelta(t, r, Retrievability(w, Interval(w, 12, r), 12), 1e-12, "Interval is R's inverse at %v", r)
	}
}

func TestValidDesiredRetention(t *testing.T) {
	t.Parallel()
	for r, ok := range map[float64]bool{0.79: false, 0.8: true, 0.9: true, 0.95: true, 0.96: false, math.NaN(): false} {
		require.Equal(t, ok, ValidDesiredRetention(r), "%v", r)
	}
}

// simLearners are n learners of cards cards each: a third new, the others
// reviewed before with various stabilities, some overdue.
func simLearners(n, cards int) []LearnerCards {
	out := make([]LearnerCards, n)
	for i := range out {
		w := DefaultParams().Weights
		w[20] = 0.1 + 0.02*float64(i%10) // each learner's own decay
		l := LearnerCards{Weights: w, Cards: make([]SimCard, cards)}
		for j := range l.Cards {
			if j%3 == 0 {
				l.Cards[j] = SimCard{New: true}
				continue
			}
			s := 0.5 + float64(j%17)
			l.Cards[j] = SimCard{Stability: s, Difficulty: 1 + float64(j%9), LastReviewDay: -(j % 5), DueDay: j%7 - 2}
		}
		out[i] = l
	}
	return out
}

var simWorkload = Workload{Retentions: []float64{0.80, 0.85, 0.90, 0.95}, Days: 30, NewPerDay: 20, MaximumInterval: 36500, Seed: 27}

func TestAHigherRetentionCostsMoreReviews(t *testing.T) {
	t.Parallel()
	curves, err := SimulateWorkload(simWorkload, simLearners(35, 60))
	require.NoError(t, err)
	require.Len(t, curves, 4)
	means := make([]float64, len(curves))
	for i, c := range curves {
		require.Len(t, c, 30)
		for _, n := range c {
			means[i] += n / 30
		}
	}
	for i := 1; i < len(means); i++ {
		require.Greater(t, means[i], means[i-1], "retention %v against %v: %v", simWorkload.Retentions[i],
			simWorkload.Retentions[i-1], means)
	}
	// Every card reviewed at most once a day: a learner's day has at most
	// their 60 cards' reviews.
	for _, c := range curves {
		for _, n := range c {
			require.LessOrEqual(t, n, 60.0)
		}
	}
}

func TestTheWorkloadIsDeterministic(t *testing.T) {
	t.Parallel()
	a, err := SimulateWorkload(simWorkload, simLearners(5, 40))
	require.NoError(t, err)
	b, err := SimulateWorkload(simWorkload, simLearners(5, 40))
	require.NoError(t, err)
	require.Equal(t, a, b)
	other := simWorkload
	other.Seed = 28
	c, err := SimulateWorkload(other, simLearners(5, 40))
	require.NoError(t, err)
	require.NotEqual(t, a, c, "the seed draws the recalls")
}

func TestAWorkloadOfNoLearnersIsZero(t *testing.T) {
	t.Parallel()
	curves, err := SimulateWorkload(simWorkload, nil)
	require.NoError(t, err)
	require.Equal(t, make([]float64, 30), curves[0])
}

func TestSimulateWorkloadRefusesNonsense(t *testing.T) {
	t.Parallel()
	bad := simWorkload
	bad.Retentions = []float64{1}
	_, err := SimulateWorkload(bad, nil)
	require.Error(t, err)
	bad = simWorkload
	bad.Days = 0
	_, err = SimulateWorkload(bad, nil)
	require.Error(t, err)
	l := simLearners(1, 3)
	l[0].Weights[20] = 0
	_, err = SimulateWorkload(simWorkload, l)
	require.Error(t, err)
	l[0].Weights[20], l[0].Weights[3] = 0.2, math.NaN()
	_, err = SimulateWorkload(simWorkload, l)
	require.Error(t, err)
}

// BenchmarkSimulateWorkload is GetDeckWorkload's simulation for a class of
// 35 learners with 60 cards each of the deck, at the four retentions over
// 30 days (docs/benchmarks.md, "The workload of a class deck").
func BenchmarkSimulateWorkload(b *testing.B) {
	learners := simLearners(35, 60)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SimulateWorkload(simWorkload, learners); err != nil {
			b.Fatal(err)
		}
	}
}
