package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// pgbenchScript commits what Enqueue commits for one event of topic
// "bench" with one subscriber: the event row and its delivery, in one
// statement, one transaction per event (the rows of benchfill, one at a time).
// pgbench runs it with -M prepared, the extended protocol with prepared
// statements, as pgx sends Lexora's (the casts give its parameters a type).
const pgbenchScript = `\set n random(1, 1000000000)
BEGIN;
WITH ev AS (
    INSERT INTO outbox_events (event_id, topic, ordering_key, payload, headers, not_before)
    VALUES (gen_random_uuid(), 'bench', (CAST(:n AS bigint) % 1000)::text, jsonb_build_object('n', CAST(:n AS bigint)), '{}', NULL)
    RETURNING id, ordering_key, not_before
)
INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key, ordered, available_at)
SELECT id, 'noop', ordering_key, false, greatest(coalesce(not_before, now()), now()) FROM ev;
COMMIT;
`

// BenchmarkEnqueue measures raw enqueue: events committed per second by 8
// clients, each committing one Outbox.Enqueue of one event (one subscriber)
// per transaction, against pgbench committing the same rows with the same
// statement from 8 clients on the same database (pgbench -M prepared: the
// extended protocol, as pgx), alternating two rounds of
// 5 s each. x_pgbench is Lexora over pgbench (goal: at least 0.8).
func BenchmarkEnqueue(b *testing.B) {
	pgbench := pgBinary(b, "pgbench")
	for range b.N {
		// One connection per client, as pgbench has.
		cfg, err := pgxpool.ParseConfig(pgtest.URL(pgtest.New(b)))
		require.NoError(b, err)
		cfg.MaxConns = 8
		pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
		require.NoError(b, err)
		defer pool.Close()
		ob, err := New(Subscription{Topic: "bench", Subscriber: "noop"})
		require.NoError(b, err)
		script := filepath.Join(b.TempDir(), "enqueue.sql")
		require.NoError(b, os.WriteFile(script, []byte(pgbenchScript), 0o644))
		u, err := url.Parse(pgtest.URL(pool))
		require.NoError(b, err)
		const clients, round = 8, 5 * time.Second
		var lexora, bench []float64
		var walBytes, walEvents int64
		for range 2 {
			var lsn0 string
			require.NoError(b, pool.QueryRow(context.Background(), "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn0))
			var n atomic.Int64
			deadline := time.Now().Add(round)
			start := time.Now()
			var g errgroup.Group
			for c := range clients {
				g.Go(func() error {
					ctx := context.Background()
					for i := 0; time.Now().Before(deadline); i++ {
						ev, err := NewEvent("bench", strconv.Itoa((c*1_000_000+i)%1000), map[string]int{"n": c*1_000_000 + i})
						if err != nil {
							return err
						}
						if err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return ob.Enqueue(ctx, tx, ev) }); err != nil {
							return err
						}
						n.Add(1)
					}
					return nil
				})
			}
			require.NoError(b, g.Wait())
			lexora = append(lexora, float64(n.Load())/time.Since(start).Seconds())
			var wal int64
			require.NoError(b, pool.QueryRow(context.Background(), "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", lsn0).Scan(&wal))
			walBytes, walEvents = walBytes+wal, walEvents+n.Load()

			cmd := exec.Command(pgbench, "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", "2", "-T", strconv.Itoa(int(round.Seconds())),
				"-f", script, "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(), u.Path[1:])
			out, err := cmd.CombinedOutput()
			require.NoError(b, err, "%s", out)
			m := regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`).FindSubmatch(out)
			require.NotNil(b, m, "%s", out)
			tps, err := strconv.ParseFloat(string(m[1]), 64)
			require.NoError(b, err)
			bench = append(bench, tps)
		}
		l, p := mean(lexora), mean(bench)
		b.ReportMetric(l, "lexora_events/s")
		b.ReportMetric(p, "pgbench_events/s")
		b.ReportMetric(l/p, "x_pgbench")
		b.ReportMetric(float64(walBytes)/float64(walEvents), "wal_bytes/event")
	}
}

// BenchmarkRowSizes reports the bytes one row takes, with its share of the
// indexes, in each outbox table at 100,000 rows: events (the benchmark's
// small payload) and deliveries as benchfill writes them, dedup records as
// outbox.HandleOnce writes them (subscriber "progress"), and the WAL a
// drain writes per delivery (claim, acknowledgement, statistics).
func BenchmarkRowSizes(b *testing.B) {
	const n = 100_000
	for range b.N {
		pool := pgtest.New(b)
		ctx := context.Background()
		fill(b, pool, n)
		_, err := pool.Exec(ctx, `INSERT INTO outbox_processed (subscriber, event_id)
			SELECT 'progress', gen_random_uuid() FROM generate_series(1, $1::int)`, n)
		require.NoError(b, err)
		_, err = pool.Exec(ctx, "VACUUM ANALYZE outbox_processed")
		require.NoError(b, err)
		for _, t := range []string{"outbox_events", "outbox_deliveries", "outbox_processed"} {
			var total int64
			require.NoError(b, pool.QueryRow(ctx, "SELECT pg_total_relation_size($1)", t).Scan(&total))
			b.ReportMetric(float64(total)/n, t+"_bytes/row")
		}
		var lsn0 string
		require.NoError(b, pool.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn0))
		got, _ := drainOnce(b, pool, Config{}, n)
		require.Equal(b, n, got)
		var wal int64
		require.NoError(b, pool.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", lsn0).Scan(&wal))
		b.ReportMetric(float64(wal)/n, "drain_wal_bytes/delivery")
	}
}

// oldHistorySQL stores n fully delivered events (no delivery left) created
// age ago: what prune removes.
const oldHistorySQL = `
INSERT INTO outbox_events (event_id, topic, ordering_key, payload, created_at)
SELECT gen_random_uuid(), 'bench', (g % 1000)::text, jsonb_build_object('n', g), now() - $2::interval
FROM generate_series(1, $1::bigint) g`

// BenchmarkPrune measures prune as jobs/prune runs it (PruneConfig's
// defaults: batches of DefaultPruneBatchSize paced by DefaultPruneYield,
// stopping at DefaultPruneMaxRuntime) over 500,000 delivered events past the
// retention: events removed per second of the run (pruned_events/s) and per
// second spent deleting (pruned_events/busy_s), the drain's throughput over a
// 100,000 backlog while that prune runs against the same drain with no prune
// before and after (x_during_prune, goal: at least 0.9), and the outbox
// tables' sizes (MB, table + indexes) before the prune, after it (its own
// VACUUM included, since prune vacuums what it pruned), and after another
// VACUUM once the drain is done.
func BenchmarkPrune(b *testing.B) {
	const backlog, history = 100_000, 500_000
	for range b.N {
		pool := pgtest.New(b)
		ctx := context.Background()
		prepare := func() {
			fill(b, pool, backlog)
			_, err := pool.Exec(ctx, oldHistorySQL, history, "8 days")
			require.NoError(b, err)
			for _, stmt := range []string{"VACUUM ANALYZE outbox_events", "CHECKPOINT"} {
				_, err := pool.Exec(ctx, stmt)
				require.NoError(b, err)
			}
		}
		drainRate := func() float64 {
			got, took := drainOnce(b, pool, Config{}, backlog)
			require.Equal(b, backlog, got)
			return float64(got) / took.Seconds()
		}

		prepare()
		before := drainRate()

		prepare()
		sizes := func(prefix string) {
			for _, t := range []string{"outbox_events", "outbox_deliveries"} {
				var total, idx int64
				require.NoError(b, pool.QueryRow(ctx, "SELECT pg_total_relation_size($1), pg_indexes_size($1)", t).Scan(&total, &idx))
				b.ReportMetric(float64(total)/(1<<20), prefix+"_"+t+"_MB")
				b.ReportMetric(float64(idx)/(1<<20), prefix+"_"+t+"_indexes_MB")
			}
		}
		sizes("before")
		var rep PruneReport
		var pruneErr error
		pruned := make(chan struct{})
		go func() {
			defer close(pruned)
			rep, pruneErr = Prune(ctx, pool, PruneConfig{})
		}()
		during := drainRate()
		<-pruned
		require.NoError(b, pruneErr)
		require.LessOrEqual(b, rep.Events, int64(history), "prune removes only the history (the backlog's events are recent)")
		require.True(b, rep.Events == history || rep.ReachedDeadline, "prune removes the history unless its deadline stops it")
		b.ReportMetric(float64(rep.Events), "pruned_events")
		b.ReportMetric(float64(rep.Events)/rep.Duration.Seconds(), "pruned_events/s")
		b.ReportMetric(float64(rep.Events)/(rep.Duration-rep.Yielded).Seconds(), "pruned_events/busy_s")
		sizes("after")
		_, err := pool.Exec(ctx, "VACUUM outbox_events, outbox_deliveries")
		require.NoError(b, err)
		sizes("vacuumed")

		prepare()
		after := drainRate()
		b.ReportMetric((before+after)/2, "drain_alone_deliveries/s")
		b.ReportMetric(during, "drain_during_prune_deliveries/s")
		b.ReportMetric(during/((before+after)/2), "x_during_prune")
	}
}

// BenchmarkClaimEmptied measures claims on an outbox that a drain has just
// emptied of 20,000 and of 100,000 deliveries (their rows deleted, their
// index entries not yet vacuumed), in milliseconds: the first claim, then
// the median of the next five (a scan marks the index entries it finds dead
// to every snapshot, and later scans skip them); the same with vacuum held
// back by a transaction holding a snapshot from before the drain (nothing
// can be marked or vacuumed: every claim walks every dead entry); after a
// VACUUM while it is held; and after a VACUUM once it ended. Medians of
// five, because one claim of a millisecond on a busy machine can be
// descheduled for ten.
func BenchmarkClaimEmptied(b *testing.B) {
	for _, backlog := range []int{20_000, 100_000} {
		b.Run(fmt.Sprintf("dead=%d", backlog), func(b *testing.B) {
			for range b.N {
				for _, held := range []bool{false, true} {
					claimEmptied(b, backlog, held)
				}
			}
		})
	}
}

func claimEmptied(b *testing.B, backlog int, held bool) {
	pool := pgtest.New(b)
	ctx := context.Background()
	fill(b, pool, backlog)
	name := "free"
	release := func() {}
	if held {
		name = "held"
		// A snapshot taken before the drain keeps every deleted row
		// visible to someone: the horizon stays behind.
		conn, err := pool.Acquire(ctx)
		require.NoError(b, err)
		_, err = conn.Exec(ctx, "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM outbox_events")
		require.NoError(b, err)
		release = func() {
			_, _ = conn.Exec(ctx, "ROLLBACK")
			conn.Release()
		}
	}
	got, _ := drainOnce(b, pool, Config{}, backlog)
	require.Equal(b, backlog, got)
	b.ReportMetric(claimMs(b, pool), name+"_first_claim_ms")
	b.ReportMetric(medianClaimMs(b, pool), name+"_then_claim_ms")
	if held {
		_, err := pool.Exec(ctx, "VACUUM outbox_deliveries")
		require.NoError(b, err)
		b.ReportMetric(medianClaimMs(b, pool), "held_vacuumed_while_held_claim_ms")
	}
	release()
	_, err := pool.Exec(ctx, "VACUUM outbox_deliveries")
	require.NoError(b, err)
	b.ReportMetric(medianClaimMs(b, pool), name+"_vacuumed_claim_ms")
}

// BenchmarkClaimEmptiedPrune measures what the prune run's VACUUM does for
// claims on an outbox that a drain has just emptied of 100,000 deliveries,
// with autovacuum off on the outbox tables (as on this machine's shared
// server; set per table, so that the private cluster's autovacuum cannot
// step in) and nothing holding the horizon: on a database of its own each,
// a prune run as before (VacuumTimeout -1: no VACUUM) and one as jobs/prune
// runs it (with its VACUUM), then the first claim and the median of the
// next five, in ms. x_first_novacuum is the first claim without the VACUUM
// over the first claim with it; vacuum_ms is what the VACUUM took.
func BenchmarkClaimEmptiedPrune(b *testing.B) {
	const backlog = 100_000
	for range b.N {
		var first []float64
		for _, run := range []struct {
			name    string
			timeout time.Duration
		}{{"novacuum", -1}, {"vacuum", 0}} {
			pool := pgtest.New(b)
			ctx := context.Background()
			_, err := pool.Exec(ctx, `ALTER TABLE outbox_deliveries SET (autovacuum_enabled = off);
				ALTER TABLE outbox_events SET (autovacuum_enabled = off)`)
			require.NoError(b, err)
			fill(b, pool, backlog)
			got, _ := drainOnce(b, pool, Config{}, backlog)
			require.Equal(b, backlog, got)
			rep, err := Prune(ctx, pool, PruneConfig{VacuumTimeout: run.timeout})
			require.NoError(b, err)
			if run.timeout == 0 {
				require.Contains(b, rep.Vacuumed, "outbox_deliveries")
				b.ReportMetric(float64(rep.Vacuuming.Microseconds())/1000, "vacuum_ms")
			}
			first = append(first, claimMs(b, pool))
			b.ReportMetric(first[len(first)-1], run.name+"_first_claim_ms")
			b.ReportMetric(medianClaimMs(b, pool), run.name+"_then_claim_ms")
		}
		b.ReportMetric(first[0]/first[1], "x_first_novacuum")
	}
}

// medianClaimMs is the median of five claims.
func medianClaimMs(b *testing.B, pool *pgxpool.Pool) float64 {
	var ms []float64
	for range 5 {
		ms = append(ms, claimMs(b, pool))
	}
	slices.Sort(ms)
	return ms[2]
}

// claimMs times one claim of up to 1,000 deliveries (finding none).
func claimMs(b *testing.B, pool *pgxpool.Pool) float64 {
	d, err := NewDrainer(pool, map[string]Handler{"noop": noopHandler}, Config{}, slog.New(slog.DiscardHandler))
	require.NoError(b, err)
	start := time.Now()
	got, _, err := d.claim(context.Background(), d.pool, 1000)
	took := time.Since(start)
	require.NoError(b, err)
	require.Empty(b, got)
	return float64(took.Microseconds()) / 1000
}

// pgBinary finds a PostgreSQL client program on the PATH or in Debian's
// /usr/lib/postgresql/<version>/bin; the benchmark fails without it.
func pgBinary(b *testing.B, name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	if len(dirs) == 0 {
		b.Fatalf("%s not found: install the PostgreSQL client (apt-get install postgresql-client)", name)
	}
	slices.Sort(dirs)
	return dirs[len(dirs)-1]
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}
