package oracle

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"syscall"
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
		return "n/a (fsrs-rs: NotEnoughData) | n/a"
	}
	return fmt.Sprintf("%.4f / %.4f | %.4f / %.4f", c.All.Lexora.LogLoss, c.All.FSRS.LogLoss, c.All.Lexora.RMSEBins, c.All.FSRS.RMSEBins)
}

func heldCells(c Comparison) string {
	if errors.Is(c.HeldOutErr, ErrTooFewItems) {
		return "n/a (too few items) | n/a | n/a"
	}
	if c.HeldOutErr != nil {
		return "n/a (fsrs-rs: NotEnoughData) | n/a | n/a"
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

// BenchmarkFit10k times fitting one 10,000-review log, the median of 5
// runs each, wall and CPU time: Lexora's Fit in Go, and fsrs-rs's
// computeParameters in the oracle with the binding's default 500 ms
// progress poll and with a 1 ms one (the binding waits for its poller, so
// the default adds up to 500 ms of wall time, not of CPU). It also gives
// Lexora's bytes allocated per fit, an upper bound of the memory a fit
// adds.
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
		var lexora, rs, rsFast []FitTime
		var alloc uint64
		for range runs {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			cpu0, start := cpuTime(b), time.Now()
			_, err := optimizer.Fit(ctx, items, optimizer.Options{})
			lexora = append(lexora, FitTime{Wall: time.Since(start), CPU: cpuTime(b) - cpu0})
			runtime.ReadMemStats(&after)
			require.NoError(b, err)
			alloc = max(alloc, after.TotalAlloc-before.TotalAlloc)
			_, t, err := o.FitPolling(items, 0)
			require.NoError(b, err)
			rs = append(rs, t)
			_, t, err = o.FitPolling(items, 1)
			require.NoError(b, err)
			rsFast = append(rsFast, t)
		}
		mib := float64(alloc) / (1 << 20)
		for _, m := range []struct {
			name string
			t    []FitTime
		}{{"lexora", lexora}, {"fsrs-rs", rs}, {"fsrs-rs-poll-1ms", rsFast}} {
			wall, cpu := medians(m.t)
			b.ReportMetric(ms(wall), m.name+"-wall-ms/fit")
			b.ReportMetric(ms(cpu), m.name+"-cpu-ms/fit")
			fmt.Printf("%s: wall %v, CPU %v (median of %v)\n", m.name, wall, cpu, m.t)
		}
		b.ReportMetric(mib, "lexora-MiB-allocated/fit")
		fmt.Printf("fit of %d reviews (%d items): Lexora allocated %.1f MiB per fit; load %s", len(log), len(items), mib, loadAverage())
	}
}

// cpuTime is the process's CPU time so far (user and system).
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown\n"
	}
	return string(raw)
}

func medians(ts []FitTime) (wall, cpu time.Duration) {
	var ws, cs []time.Duration
	for _, t := range ts {
		ws, cs = append(ws, t.Wall), append(cs, t.CPU)
	}
	return median(ws), median(cs)
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
