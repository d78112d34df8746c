package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// statementTimer moves a stubbed clock on as each statement ends: the nth
// statement takes n × step on it.
type statementTimer struct {
	clk  *clocktest.Stub
	step time.Duration
	n    int
}

func (s *statementTimer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return ctx
}

func (s *statementTimer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {
	s.n++
	s.clk.Advance(time.Duration(s.n) * s.step)
}

// Prune paces itself by its batches' durations on its clock: before each
// batch but the first it asks to wait Yield times the previous batch's
// duration, a wait that ends at the deadline, and a wait whose ctx ends
// returns ctx's error. Batches 1, 2, 3... take 10, 20, 30... ms; the
// history is three events past retention, pruned one a batch (so six
// batches: four of events, the last finding none, one of dedup records, one
// of statistics).
func TestPruneYieldsInProportionToItsBatches(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	for _, tc := range []struct {
		name        string
		yield       float64
		maxDuration time.Duration
		cancel      bool
		waits       []time.Duration
		batches     int
		duration    time.Duration
		deadline    bool
	}{
		{name: "paced", yield: 2, maxDuration: time.Hour,
			waits: []time.Duration{20 * ms, 40 * ms, 60 * ms, 80 * ms, 100 * ms}, batches: 6, duration: 210*ms + 300*ms},
		{name: "the deadline cuts a wait", yield: 2, maxDuration: 65 * ms,
			waits: []time.Duration{20 * ms, 15 * ms}, batches: 2, duration: 65 * ms, deadline: true},
		{name: "negative runs back to back", yield: -1, maxDuration: time.Hour, batches: 6, duration: 210 * ms},
		{name: "a cancelled wait returns", yield: 2, maxDuration: time.Hour, cancel: true,
			waits: []time.Duration{20 * ms}, batches: 1, duration: 30 * ms},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			_, err := b.pool.Exec(ctx, oldHistorySQL, 3, "2 hours")
			require.NoError(t, err)

			clk := clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
			pcfg, err := pgxpool.ParseConfig(pgtest.URL(b.pool))
			require.NoError(t, err)
			pcfg.ConnConfig.Tracer = &statementTimer{clk: clk, step: 10 * ms}
			pcfg.MaxConns = 1
			pool, err := pgxpool.NewWithConfig(ctx, pcfg)
			require.NoError(t, err)
			defer pool.Close()

			var waits []time.Duration
			cfg := PruneConfig{Retention: time.Hour, BatchSize: 1, MaxDuration: tc.maxDuration, Yield: tc.yield, Clock: clk,
				sleep: func(_ context.Context, d time.Duration) bool {
					waits = append(waits, d)
					clk.Advance(d)
					if tc.cancel {
						cancel()
					}
					return !tc.cancel
				}}
			rep, err := Prune(ctx, pool, cfg)
			if tc.cancel {
				require.ErrorIs(t, err, context.Canceled)
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, tc.waits, waits)
			require.Equal(t, tc.batches, rep.Batches)
			require.Equal(t, tc.deadline, rep.ReachedDeadline)
			require.Equal(t, tc.duration, rep.Duration)
			var yielded time.Duration
			for _, w := range waits {
				yielded += w
			}
			require.Equal(t, yielded, rep.Yielded)
			require.EqualValues(t, min(tc.batches, 3), rep.Events)
		})
	}
}
