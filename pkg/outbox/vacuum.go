package outbox

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultPruneVacuumTimeout bounds the VACUUM after a prune run: the deployed
// job's 25 minutes of pruning plus this stay inside its 30-minute task
// timeout (terraform/jobs.tf).
const DefaultPruneVacuumTimeout = 3 * time.Minute

// VacuumedTables are the tables a prune run may VACUUM, the claim's table
// first. Whoever runs prune needs to own them (PostgreSQL 16: VACUUM is for
// the owner; a non-owner's VACUUM skips the table with a warning): the
// migrate job gives them to the role MIGRATE_OUTBOX_OWNER names.
var VacuumedTables = []string{"outbox_deliveries", "outbox_events", "outbox_processed", "outbox_delivery_stats"}

// vacuumTables are the tables a run vacuums: outbox_deliveries always (the
// drain's acknowledgements delete its rows all the time, and the claim's
// index scan walks their dead entries until a VACUUM removes them), then
// each table the run removed rows from.
func (rep PruneReport) vacuumTables() []string {
	tables := []string{"outbox_deliveries"}
	for i, n := range []int64{rep.Events, rep.DedupRecords, rep.StatsRows} {
		if n > 0 {
			tables = append(tables, VacuumedTables[i+1])
		}
	}
	return tables
}

// vacuumCountSQL is how many times a table has been vacuumed by hand
// (pg_stat_user_tables.vacuum_count; PostgreSQL 15 and later report a
// VACUUM to the statistics when it ends, before it returns).
const vacuumCountSQL = `SELECT vacuum_count FROM pg_stat_user_tables WHERE relid = $1::regclass`

// vacuum runs VACUUM (SKIP_LOCKED) on each of tables in turn, on one
// connection whose statement_timeout is timeout for the time it takes (the
// pool's connections have a shorter one), and returns the tables vacuumed
// and those skipped: locked (autovacuum is vacuuming it, which does the same
// work) or not owned by the connection's role. Not ANALYZE: a claim's plan
// does not follow the statistics (it finds its batch by index and updates it
// by primary key), and an ANALYZE of an outbox just emptied would teach the
// planner that the table is empty, the stale statistics that once made
// lease writes take seconds (docs/benchmarks.md). It returns an error for a
// database error, the timeout included, with the tables done before it.
func vacuum(ctx context.Context, pool *pgxpool.Pool, tables []string, timeout time.Duration) (done, skipped []string, err error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("prune vacuum: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT set_config('statement_timeout', $1, false)", strconv.FormatInt(timeout.Milliseconds(), 10)); err != nil {
		return nil, nil, fmt.Errorf("prune vacuum: %w", err)
	}
	for _, t := range tables {
		var before, after int64
		if err := conn.QueryRow(ctx, vacuumCountSQL, t).Scan(&before); err != nil {
			return done, skipped, fmt.Errorf("prune vacuum %s: %w", t, err)
		}
		// VACUUM cannot run in a transaction: a statement of its own.
		if _, err := conn.Exec(ctx, "VACUUM (SKIP_LOCKED) "+pgx.Identifier{t}.Sanitize()); err != nil {
			return done, skipped, fmt.Errorf("prune vacuum %s: %w", t, err)
		}
		if err := conn.QueryRow(ctx, vacuumCountSQL, t).Scan(&after); err != nil {
			return done, skipped, fmt.Errorf("prune vacuum %s: %w", t, err)
		}
		if after > before {
			done = append(done, t)
		} else {
			skipped = append(skipped, t)
		}
	}
	if _, err := conn.Exec(ctx, "RESET statement_timeout"); err != nil {
		return done, skipped, fmt.Errorf("prune vacuum: %w", err)
	}
	return done, skipped, nil
}
