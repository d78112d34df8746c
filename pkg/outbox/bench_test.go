package outbox

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"

	"github.com/lexora-app/lexora/pkg/outbox/internal/benchfill"
)

// The outbox benchmarks. `make bench` runs them once each (-benchtime 1x)
// against the local PostgreSQL; docs/benchmarks.md records the results and
// the command. Every figure is reported with b.ReportMetric.

// benchBacklogs is the list of backlog sizes BenchmarkDrainNoop drains:
// LEXORA_BENCH_BACKLOG as a comma-separated list (e.g. "100000"), by default
// 100,000 and 1,000,000.
func benchBacklogs(b *testing.B) []int {
	v := os.Getenv("LEXORA_BENCH_BACKLOG")
	if v == "" {
		return []int{100_000, 1_000_000}
	}
	var out []int
	for f := range strings.SplitSeq(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		require.NoError(b, err, "LEXORA_BENCH_BACKLOG")
		out = append(out, n)
	}
	return out
}

var noopHandler = HandlerFunc(func(context.Context, Delivery) error { return nil })

// drainOnce runs one StopWhenIdle drain over the whole backlog with a no-op
// subscriber and returns the deliveries per second of that run.
func drainOnce(b *testing.B, pool *pgxpool.Pool, cfg Config, backlog int) (int, time.Duration) {
	n, took, err := tryDrainOnce(pool, cfg, backlog)
	require.NoError(b, err)
	return n, took
}

// tryDrainOnce is drainOnce for another goroutine than the benchmark's: it
// returns its error.
func tryDrainOnce(pool *pgxpool.Pool, cfg Config, backlog int) (int, time.Duration, error) {
	cfg.StopWhenIdle, cfg.MaxDeliveries, cfg.MaxDuration = true, backlog, time.Hour
	d, err := NewDrainer(pool, map[string]Handler{"noop": noopHandler}, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, 0, err
	}
	start := time.Now()
	rep, err := d.Run(context.Background())
	return rep.Delivered, time.Since(start), err
}

// BenchmarkDrainNoop measures deliveries per second of ONE drain run
// (Drainer.Run with StopWhenIdle) with a no-op subscriber over a backlog of
// 100,000 and 1,000,000 deliveries (see benchBacklogs), at the default batch
// size. The machine is shared and single runs of the same size vary by up to
// a third, so every backlog after the first is bracketed: the first size is
// drained again right before and right after it, on the same database, and
// "x_first" is its rate over the mean of those two (goal for 1M vs 100k:
// >= 0.8); "bracket_deliveries/s" is that mean.
func BenchmarkDrainNoop(b *testing.B) {
	sizes := benchBacklogs(b)
	for i, backlog := range sizes {
		b.Run(fmt.Sprintf("backlog=%d", backlog), func(b *testing.B) {
			pool := pgtest.New(b)
			rate := func(n int) float64 {
				fill(b, pool, n)
				got, took := drainOnce(b, pool, Config{}, n)
				require.Equal(b, n, got)
				return float64(got) / took.Seconds()
			}
			var r, before, after float64
			for b.Loop() {
				if i > 0 {
					before = rate(sizes[0])
				}
				r = rate(backlog)
				if i > 0 {
					after = rate(sizes[0])
				}
			}
			b.ReportMetric(r, "deliveries/s")
			if i > 0 {
				bracket := (before + after) / 2
				b.ReportMetric(bracket, "bracket_deliveries/s")
				b.ReportMetric(r/bracket, "x_first")
			}
		})
	}
}

// BenchmarkDrainBatch compares claim batch sizes over the 100,000 backlog.
func BenchmarkDrainBatch(b *testing.B) {
	const backlog = 100_000
	for _, batch := range []int{500, 1000, 2000} {
		b.Run(fmt.Sprintf("backlog=%d/batch=%d", backlog, batch), func(b *testing.B) {
			pool := pgtest.New(b)
			var delivered int
			for b.Loop() {
				b.StopTimer()
				fill(b, pool, backlog)
				b.StartTimer()
				n, _ := drainOnce(b, pool, Config{BatchSize: batch}, backlog)
				require.Equal(b, backlog, n)
				delivered += n
			}
			b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkDrainTasks measures the throughput of 1, 2 and 4 concurrent drain
// runs over one 100,000 backlog, each a separate Drainer with its own
// connection pool, as separate Cloud Run tasks would be. The figure is all
// deliveries over the wall time until the last run ends; "x_1task" is the
// speed-up over the single task measured in the same process.
func BenchmarkDrainTasks(b *testing.B) {
	const backlog = 100_000
	var single float64
	for _, tasks := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("backlog=%d/tasks=%d", backlog, tasks), func(b *testing.B) {
			admin := pgtest.New(b)
			pools := make([]*pgxpool.Pool, tasks)
			for i := range pools {
				p, err := pgxpool.New(context.Background(), pgtest.URL(admin))
				require.NoError(b, err)
				b.Cleanup(p.Close)
				pools[i] = p
			}
			var delivered int
			var minShare float64 = 1
			for b.Loop() {
				b.StopTimer()
				fill(b, admin, backlog)
				b.StartTimer()
				counts := make([]int, tasks)
				var g errgroup.Group
				for i, p := range pools {
					g.Go(func() (err error) {
						counts[i], _, err = tryDrainOnce(p, Config{}, backlog)
						return err
					})
				}
				require.NoError(b, g.Wait())
				total := 0
				for _, c := range counts {
					total += c
				}
				require.Equal(b, backlog, total)
				delivered += total
				minShare = float64(slices.Min(counts)) / float64(total)
			}
			rate := float64(delivered) / b.Elapsed().Seconds()
			b.ReportMetric(rate, "deliveries/s")
			b.ReportMetric(minShare, "min_task_share")
			if tasks == 1 {
				single = rate
			} else if single > 0 {
				b.ReportMetric(rate/single, "x_1task")
			}
		})
	}
}

// BenchmarkLatency measures commit-to-delivery latency of one loop-mode drain
// (StopWhenIdle false, PollInterval 1 s) while a producer commits
// latencyRate events per second, one per transaction, evenly spread, for
// latencyDuration: first with the LISTEN/NOTIFY wake-up hint (a Waker asked
// after each commit), then without.
// Latency is the handler's receive time minus the time the producer's Commit
// returned (so it can be slightly negative when the drain wins the race with
// the commit acknowledgement). It reports the median and p99 in ms.
func BenchmarkLatency(b *testing.B) {
	for _, hint := range []bool{true, false} {
		b.Run(fmt.Sprintf("rate=%d/hint=%t", latencyRate, hint), func(b *testing.B) {
			var lat []time.Duration
			for b.Loop() {
				lat = measureLatency(b, hint)
			}
			slices.Sort(lat)
			pct := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / float64(time.Millisecond)
			}
			b.ReportMetric(pct(0.5), "median_ms")
			b.ReportMetric(pct(0.99), "p99_ms")
			b.ReportMetric(float64(lat[len(lat)-1])/float64(time.Millisecond), "max_ms")
			b.ReportMetric(float64(len(lat)), "events")
		})
	}
}

const (
	latencyRate     = 500
	latencyDuration = 10 * time.Second
	latencyChannel  = "lexora_outbox_bench"
)

func measureLatency(b *testing.B, hint bool) []time.Duration {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := pgtest.New(b)
	ob, err := New(Subscription{Topic: "bench", Subscriber: "noop"})
	require.NoError(b, err)
	n := int(latencyDuration.Seconds() * latencyRate)
	committed := make([]atomic.Int64, n)
	received := make([]atomic.Int64, n)
	var got atomic.Int64
	all := make(chan struct{})
	handler := HandlerFunc(func(_ context.Context, d Delivery) error {
		now := time.Now().UnixNano()
		var p struct{ N int }
		if err := json.Unmarshal(d.Event.Payload, &p); err != nil {
			return err
		}
		if received[p.N].CompareAndSwap(0, now) && got.Add(1) == int64(n) {
			close(all)
		}
		return nil
	})
	d, err := NewDrainer(pool, map[string]Handler{"noop": handler},
		Config{PollInterval: time.Second, MaxDuration: time.Hour, MaxDeliveries: 1 << 30},
		slog.New(slog.DiscardHandler))
	require.NoError(b, err)
	var bg sync.WaitGroup
	defer bg.Wait()
	defer cancel()
	if hint {
		l := NewListener(pool.Config().ConnConfig, latencyChannel, slog.New(slog.DiscardHandler))
		l.signals.connected.Init(b)
		bg.Go(func() { l.Run(ctx) })
		d.WakeOn(l.Wake())
		l.signals.connected.Wait()
	}
	d.signals.idle.Init(b)
	var runErr error
	bg.Go(func() { _, runErr = d.Run(ctx) })
	// Produce once the drain waits idle.
	d.signals.idle.Wait()

	// The producer: a scheduler hands event i out at start + i/rate to a few
	// committing goroutines on their own pool, so one slow commit does not
	// delay the next event's slot.
	pcfg, err := pgxpool.ParseConfig(pgtest.URL(pool))
	require.NoError(b, err)
	pcfg.MaxConns = 8
	prod, err := pgxpool.NewWithConfig(ctx, pcfg)
	require.NoError(b, err)
	defer prod.Close()
	require.NoError(b, prod.Ping(ctx))
	var waker *Waker
	if hint {
		waker = NewWaker(prod, latencyChannel, slog.New(slog.DiscardHandler))
	}
	slots := make(chan int)
	var producers sync.WaitGroup
	var prodErr atomic.Value
	for range 8 {
		producers.Go(func() {
			for i := range slots {
				e, err := NewEvent("bench", strconv.Itoa(i%1000), map[string]int{"n": i})
				if err == nil {
					err = pgx.BeginFunc(ctx, prod, func(tx pgx.Tx) error { return ob.Enqueue(ctx, tx, e) })
				}
				if err != nil {
					prodErr.Store(err)
					continue
				}
				committed[i].Store(time.Now().UnixNano())
				if waker != nil {
					waker.Wake()
				}
			}
		})
	}
	start := time.Now()
	interval := time.Second / latencyRate
	for i := range n {
		time.Sleep(time.Until(start.Add(time.Duration(i) * interval)))
		slots <- i
	}
	close(slots)
	producers.Wait()
	if err, _ := prodErr.Load().(error); err != nil {
		b.Fatalf("producer: %v", err)
	}
	select {
	case <-all:
	case <-time.After(10 * time.Second):
		b.Fatalf("only %d of %d events delivered", got.Load(), n)
	}
	cancel()
	bg.Wait()
	require.NoError(b, runErr)
	lat := make([]time.Duration, n)
	for i := range lat {
		lat[i] = time.Duration(received[i].Load() - committed[i].Load())
	}
	return lat
}

// fill stores a backlog of n deliveries (see benchfill.Fill).
func fill(b *testing.B, pool *pgxpool.Pool, n int) {
	require.NoError(b, benchfill.Fill(context.Background(), pool, n))
}
