package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/pgtest"
)

// BenchmarkDrainNoop measures deliveries per second of one drain run with a
// no-op subscriber over a backlog (default 100,000; set
// LEXORA_BENCH_BACKLOG to change it). Run it with `make bench`; it reports
// deliveries/s and the claim batch size used.
func BenchmarkDrainNoop(b *testing.B) {
	backlog := 100_000
	if v := os.Getenv("LEXORA_BENCH_BACKLOG"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(b, err)
		backlog = n
	}
	for _, batch := range []int{500, 1000} {
		b.Run(fmt.Sprintf("backlog=%d/batch=%d", backlog, batch), func(b *testing.B) {
			ctx := context.Background()
			bb := bundle{pool: pgtest.New(b)}
			var err error
			bb.outbox, err = New(Subscription{Topic: "bench", Subscriber: "noop"})
			require.NoError(b, err)
			noop := HandlerFunc(func(context.Context, Delivery) error { return nil })
			d, err := NewDrainer(bb.pool, map[string]Handler{"noop": noop},
				Config{StopWhenIdle: true, BatchSize: batch, MaxDeliveries: backlog, MaxDuration: 1 << 40},
				slog.New(slog.DiscardHandler))
			require.NoError(b, err)
			var total, delivered int
			for b.Loop() {
				b.StopTimer()
				fill(b, bb, backlog)
				b.StartTimer()
				rep, err := d.Run(ctx)
				require.NoError(b, err)
				total += backlog
				delivered += rep.Delivered
			}
			require.Equal(b, total, delivered)
			b.ReportMetric(float64(delivered)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}

// fill enqueues n events for the single subscriber, 10,000 per transaction,
// and vacuums so that every run starts from the same table state.
func fill(b *testing.B, bb bundle, n int) {
	ctx := context.Background()
	events := make([]Event, 0, 10_000)
	for i := 0; i < n; i += cap(events) {
		events = events[:0]
		for j := i; j < min(n, i+cap(events)); j++ {
			e, err := NewEvent("bench", strconv.Itoa(j%1000), map[string]int{"n": j})
			require.NoError(b, err)
			events = append(events, e)
		}
		require.NoError(b, pgx.BeginFunc(ctx, bb.pool, func(tx pgx.Tx) error { return bb.outbox.Enqueue(ctx, tx, events...) }))
	}
	_, err := bb.pool.Exec(ctx, "VACUUM ANALYZE outbox_deliveries")
	require.NoError(b, err)
	_, err = bb.pool.Exec(ctx, "VACUUM ANALYZE outbox_events")
	require.NoError(b, err)
}
