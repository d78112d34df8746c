package outbox

import (
	"context"
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/platform/database"
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
			ctx, b := setup(t)
			ctx, cancel := context.WithCancel(ctx)
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

// vacuumCounts is pg_stat_user_tables.vacuum_count of each outbox table,
// and whether it has a last_vacuum.
func vacuumCounts(t *testing.T, pool *pgxpool.Pool) map[string]int64 {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT relname, vacuum_count, last_vacuum IS NOT NULL
		FROM pg_stat_user_tables WHERE relname = ANY ($1)`, VacuumedTables)
	require.NoError(t, err)
	counts := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		var last bool
		require.NoError(t, rows.Scan(&name, &n, &last))
		require.Equal(t, n > 0, last, "%s: last_vacuum is set once vacuumed", name)
		counts[name] = n
	}
	require.NoError(t, rows.Err())
	require.Len(t, counts, len(VacuumedTables))
	return counts
}

// Prune ends with a VACUUM of outbox_deliveries (the claim's table) and of
// each table it removed rows from, as pg_stat_user_tables shows; a negative
// VacuumTimeout vacuums nothing; a role that does not own the tables skips
// them and says so, and a member of the role the migrate job gives them to
// (database.OwnTables) vacuums them.
func TestPruneVacuumsWhatItPruned(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		timeout  time.Duration
		role     string // "": the test's superuser; "member": of the tables' owner; "stranger": DML only
		vacuumed []string
		skipped  []string
	}{
		{name: "vacuums", vacuumed: []string{"outbox_deliveries", "outbox_events"}},
		{name: "a negative timeout vacuums nothing", timeout: -1},
		{name: "a role that does not own the tables", role: "stranger", skipped: []string{"outbox_deliveries", "outbox_events"}},
		{name: "a member of the tables' owner", role: "member", vacuumed: []string{"outbox_deliveries", "outbox_events"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, b := setup(t)
			_, err := b.pool.Exec(ctx, oldHistorySQL, 3, "2 hours")
			require.NoError(t, err)
			pool := b.pool
			if tc.role != "" {
				pool = asRole(t, b.pool, tc.role == "member")
			}
			before := vacuumCounts(t, b.pool)

			rep, err := Prune(ctx, pool, PruneConfig{Retention: time.Hour, VacuumTimeout: tc.timeout})
			require.NoError(t, err)
			require.EqualValues(t, 3, rep.Events)
			require.Equal(t, tc.vacuumed, rep.Vacuumed)
			require.Equal(t, tc.skipped, rep.VacuumSkipped)

			after := vacuumCounts(t, b.pool)
			for _, table := range VacuumedTables {
				want := before[table]
				if slices.Contains(tc.vacuumed, table) {
					want++
				}
				require.Equal(t, want, after[table], "%s's vacuum_count", table)
			}
		})
	}
}

// asRole is a pool on b's database whose connections act as a new role
// with the workloads' rights (database.GrantTables) and, when owner, a
// member of a role given the outbox tables (database.OwnTables), as the
// migrate job leaves the prune job on Cloud SQL.
func asRole(t *testing.T, pool *pgxpool.Pool, owner bool) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	suffix := strings.ToLower(rand.Text()[:12])
	role, group := pgx.Identifier{"lexora_prune_" + suffix}, pgx.Identifier{"lexora_outbox_owner_" + suffix}
	_, err := pool.Exec(ctx, "CREATE ROLE "+role.Sanitize()+" NOLOGIN; CREATE ROLE "+group.Sanitize()+" NOLOGIN")
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := pool.Exec(ctx, "DROP OWNED BY "+role.Sanitize()+", "+group.Sanitize()+"; DROP ROLE "+role.Sanitize()+", "+group.Sanitize())
		require.NoError(t, err)
	})
	require.NoError(t, database.GrantTables(ctx, pool, role[0]))
	if owner {
		_, err := pool.Exec(ctx, "GRANT "+group.Sanitize()+" TO "+role.Sanitize())
		require.NoError(t, err)
		require.NoError(t, database.OwnTables(ctx, pool, group[0], VacuumedTables))
	}
	cfg, err := pgxpool.ParseConfig(pgtest.URL(pool))
	require.NoError(t, err)
	cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
		_, err := c.Exec(ctx, "SET ROLE "+role.Sanitize())
		return err
	}
	rolePool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(rolePool.Close)
	return rolePool
}
