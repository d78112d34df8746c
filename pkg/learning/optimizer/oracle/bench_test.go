package oracle

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
)

// benchLearners are the logs of the long comparison: every habit at
// 200 to 50,000 reviews.
func benchLearners() []Learner {
	zones := []string{"Europe/Paris", "America/New_York", "Asia/Tokyo"}
	var out []Learner
	for i, n := range []int{200, 1000, 5000, 10000, 50000} {
		for h := Regular; h <= MixedDecks; h++ {
			out = append(out, Learner{Seed: uint64(100 + 10*i + int(h)), Habit: h, Reviews: n, Zone: zones[(i+int(h))%3]})
		}
	}
	return out
}

// BenchmarkOracle compares Lexora's optimizer with fsrs-rs on every bench
// log and prints one table row per log (make bench; docs/benchmarks.md).
func BenchmarkOracle(b *testing.B) {
	ctx := context.Background()
	o, err := Start(ctx, ".")
	require.NoError(b, err)
	defer func() { require.NoError(b, o.Close()) }()
	for b.Loop() {
		fmt.Println("| log | reviews | items | fit | all: log loss Lexora / fsrs-rs | all: RMSE(bins) Lexora / fsrs-rs | held out: log loss Lexora / fsrs-rs / defaults | held out: RMSE(bins) Lexora / fsrs-rs / defaults | held out, fitted vs defaults: log loss / RMSE(bins) | within 0.001 / 0.002 | fit ms Lexora / fsrs-rs |")
		fmt.Println("|---|---:|---:|---|---|---|---|---|---|---|---|")
		for _, l := range benchLearners() {
			c, err := Compare(ctx, o, l)
			if err != nil {
				fmt.Printf("| %s | %d | | error: %v |\n", l.Name(), l.Reviews, err)
				continue
			}
			fmt.Printf("| %s | %d | %d | %s | %s | %s | %s | %s |\n", l.Name(), c.Reviews, c.Items, c.Outcome,
				allCells(c), heldCells(c), verdict(c), fmt.Sprintf("%.0f / %.0f", ms(c.LexoraFit), ms(c.FSRSFit)))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func allCells(c Comparison) string {
	if c.AllErr != nil {
		return "n/a (fsrs-rs evaluate: NotEnoughData) | n/a"
	}
	return fmt.Sprintf("%.4f / %.4f | %.4f / %.4f", c.All.Lexora.LogLoss, c.All.FSRS.LogLoss, c.All.Lexora.RMSEBins, c.All.FSRS.RMSEBins)
}

func heldCells(c Comparison) string {
	if c.HeldOutErr != nil {
		return "n/a (fsrs-rs evaluate: NotEnoughData) | n/a | n/a"
	}
	h := c.HeldOut
	return fmt.Sprintf("%.4f / %.4f / %.4f | %.4f / %.4f / %.4f | %+.1f %% / %+.1f %%",
		h.Lexora.LogLoss, h.FSRS.LogLoss, h.Defaults.LogLoss, h.Lexora.RMSEBins, h.FSRS.RMSEBins, h.Defaults.RMSEBins,
		100*(h.Lexora.LogLoss/h.Defaults.LogLoss-1), 100*(h.Lexora.RMSEBins/h.Defaults.RMSEBins-1))
}

func verdict(c Comparison) string {
	switch {
	case c.AllErr != nil && c.HeldOutErr != nil:
		return "n/a"
	case (c.AllErr == nil && !within(c.All)) || (c.HeldOutErr == nil && !within(c.HeldOut)):
		return "**no**"
	}
	return "yes"
}

func within(s Scores) bool {
	return s.Lexora.LogLoss <= s.FSRS.LogLoss+logLossTolerance && s.Lexora.RMSEBins <= s.FSRS.RMSEBins+rmseTolerance
}

// BenchmarkFit10k times fitting one 10,000-review log: Lexora's Fit in Go
// and fsrs-rs's computeParameters in the oracle (with the binding's
// default 500 ms progress poll and with a 1 ms one), the median of 5 runs
// each, and Lexora's bytes allocated per fit (an upper bound of the heap a
// fit adds).
func BenchmarkFit10k(b *testing.B) {
	ctx := context.Background()
	l := Learner{Seed: 7, Habit: Regular, Reviews: 10000, Zone: "Europe/Paris"}
	_, log, err := Simulate(l)
	require.NoError(b, err)
	items, err := optimizer.BuildItems(log, learning.Zone(l.Zone))
	require.NoError(b, err)
	o, err := Start(ctx, ".")
	require.NoError(b, err)
	defer func() { require.NoError(b, o.Close()) }()
	const runs = 5
	for b.Loop() {
		var goTimes, rsTimes, rsFast []time.Duration
		var alloc, peak uint64
		for range runs {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := optimizer.Fit(ctx, items, optimizer.Options{})
			goTimes = append(goTimes, time.Since(start))
			runtime.ReadMemStats(&after)
			require.NoError(b, err)
			alloc = max(alloc, after.TotalAlloc-before.TotalAlloc)
			peak = max(peak, after.HeapAlloc-min(after.HeapAlloc, before.HeapAlloc))
			_, d, err := o.Fit(items)
			require.NoError(b, err)
			rsTimes = append(rsTimes, d)
			_, d, err = o.FitPolling(items, 1)
			require.NoError(b, err)
			rsFast = append(rsFast, d)
		}
		mib := float64(alloc) / (1 << 20)
		b.ReportMetric(float64(median(goTimes).Microseconds())/1000, "lexora-ms/fit")
		b.ReportMetric(float64(median(rsTimes).Microseconds())/1000, "fsrs-rs-ms/fit")
		b.ReportMetric(float64(median(rsFast).Microseconds())/1000, "fsrs-rs-poll1ms-ms/fit")
		b.ReportMetric(mib, "lexora-MiB-allocated/fit")
		fmt.Fprintf(os.Stdout, "fit of %d reviews (%d items): lexora %v (runs %v), fsrs-rs %v (runs %v), fsrs-rs with a 1 ms poll %v (runs %v); lexora allocated %.1f MiB per fit, heap after a fit +%.1f MiB\n",
			len(log), len(items), median(goTimes), goTimes, median(rsTimes), rsTimes, median(rsFast), rsFast, mib, float64(peak)/(1<<20))
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
