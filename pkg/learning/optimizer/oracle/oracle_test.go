package oracle

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tolerances of issue 27: Lexora's log loss within 0.001 of fsrs-rs's and
// RMSE(bins) within 0.002, or better.
const (
	logLossTolerance = 0.001
	rmseTolerance    = 0.002
)

// shortLearners are the logs of the short check (a few seconds), three of
// BenchmarkOracle's, on which fitting pays on held-out reviews (on some
// logs it does not: docs/benchmarks.md).
var shortLearners = []Learner{
	{Seed: 111, Habit: HardForForgot, Reviews: 1000, Zone: "Asia/Tokyo"},
	{Seed: 122, Habit: Crammer, Reviews: 5000, Zone: "America/New_York"},
	{Seed: 130, Habit: Regular, Reviews: 10000, Zone: "Europe/Paris"},
}

// TestOracle compares Lexora's optimizer with fsrs-rs on a few simulated
// logs: the oracle's log loss and RMSE(bins) of Lexora's weights are within
// the tolerances of fsrs-rs's, on all items and on held-out later ones,
// and the fitted weights beat the defaults on the held-out ones.
func TestOracle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	o, err := Start(ctx, ".")
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, o.Close()) })
	for _, l := range shortLearners {
		c, err := Compare(ctx, o, l)
		require.NoError(t, err)
		require.NoError(t, c.AllErr)
		require.NoError(t, c.HeldOutErr)
		t.Logf("%s: %d reviews, %d items, %s; all: lexora %+v fsrs %+v; held out (%d/%d): lexora %+v fsrs %+v defaults %+v; fit lexora %v fsrs-rs %v; evaluate gap %.2g",
			l.Name(), c.Reviews, c.Items, c.Outcome, c.All.Lexora, c.All.FSRS, c.TrainItems, c.TestItems,
			c.HeldOut.Lexora, c.HeldOut.FSRS, c.HeldOut.Defaults, c.LexoraFit, c.FSRSFit, c.EvaluateGap)
		checkClose(t, l.Name()+" all", c.All)
		checkClose(t, l.Name()+" held out", c.HeldOut)
		require.Less(t, c.HeldOut.Lexora.LogLoss, c.HeldOut.Defaults.LogLoss, "%s: fitted beats defaults", l.Name())
		require.Less(t, c.EvaluateGap, 1e-4, "%s: optimizer.Evaluate agrees with fsrs-rs", l.Name())
		// Same method, same batch order (fsrs-rs's StdRng): the weights
		// differ only by fsrs-rs's float32 rounding.
		for i := range c.LexoraWeights {
			require.InDelta(t, c.FSRSWeights[i], c.LexoraWeights[i], 1e-3*max(1, c.FSRSWeights[i]), "%s: w%d", l.Name(), i)
		}
	}
}

func checkClose(t *testing.T, name string, s Scores) {
	t.Helper()
	require.LessOrEqual(t, s.Lexora.LogLoss, s.FSRS.LogLoss+logLossTolerance, "%s: log loss", name)
	require.LessOrEqual(t, s.Lexora.RMSEBins, s.FSRS.RMSEBins+rmseTolerance, "%s: RMSE(bins)", name)
}
