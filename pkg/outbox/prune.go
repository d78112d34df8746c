package outbox

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Defaults for PruneConfig.
const (
	DefaultRetention       = 7 * 24 * time.Hour
	DefaultDedupRetention  = 30 * 24 * time.Hour
	DefaultPruneBatchSize  = 5_000
	DefaultPruneMaxRuntime = 45 * time.Second
	DefaultPruneYield      = 4.0
)

// PruneConfig bounds one prune run. Zero fields take the defaults above; the
// env tags name the jobs/prune environment variables.
type PruneConfig struct {
	// Retention is how long a fully delivered event is kept after its creation.
	Retention time.Duration `env:"PRUNE_RETENTION"`
	// DedupRetention is how long dedup records are kept. It must exceed
	// Retention plus the longest redelivery window, so that a redelivered
	// event is still recognised; Prune refuses a shorter one.
	DedupRetention time.Duration `env:"PRUNE_DEDUP_RETENTION"`
	// BatchSize is how many events one DELETE removes.
	BatchSize int `env:"PRUNE_BATCH_SIZE"`
	// MaxDuration stops the run between batches, measured on Clock.
	MaxDuration time.Duration `env:"PRUNE_MAX_DURATION"`
	// Yield paces the run: after each batch it waits Yield times that
	// batch's duration (a dimensionless multiple: 4 after a 100 ms batch
	// waits 400 ms), so the run keeps at most 1/(1+Yield) of its time busy
	// and removes at most its back-to-back batch rate / (1+Yield). Zero
	// takes DefaultPruneYield; a negative Yield runs batches back to back.
	// DefaultPruneYield 4: back to back, a prune took the CPU a drain needs
	// on a 2-core machine (the drain kept x0.29-0.95 of its rate, median
	// x0.66, goal at least x0.9); at 4 it kept median x0.99 (BenchmarkPrune,
	// docs/benchmarks.md), and a prune still removes about 7,500 events/s,
	// 11 million in a 25-minute run: a day of 130 events/s (docs/scale.md).
	Yield float64 `env:"PRUNE_YIELD"`
	// VacuumTimeout bounds the VACUUM that ends a run (see Prune); zero
	// takes DefaultPruneVacuumTimeout, a negative one vacuums nothing.
	VacuumTimeout time.Duration `env:"PRUNE_VACUUM_TIMEOUT"`
	// Clock tells the run's start, deadline, batch durations and duration;
	// nil is clock.System. Tests stub it.
	Clock clock.Clock
	// sleep waits between batches (sleep in production); false when ctx
	// ended. Tests replace it.
	sleep func(ctx context.Context, d time.Duration) bool
}

func (c PruneConfig) withDefaults() PruneConfig {
	c.Retention = cmp.Or(c.Retention, DefaultRetention)
	c.DedupRetention = cmp.Or(c.DedupRetention, DefaultDedupRetention)
	c.BatchSize = cmp.Or(c.BatchSize, DefaultPruneBatchSize)
	c.MaxDuration = cmp.Or(c.MaxDuration, DefaultPruneMaxRuntime)
	c.Yield = cmp.Or(c.Yield, DefaultPruneYield)
	c.VacuumTimeout = cmp.Or(c.VacuumTimeout, DefaultPruneVacuumTimeout)
	c.Clock = cmp.Or[clock.Clock](c.Clock, clock.System{})
	if c.sleep == nil {
		c.sleep = sleep
	}
	return c
}

// PruneReport says what one prune run removed.
type PruneReport struct {
	Events       int64         `json:"events"`
	DedupRecords int64         `json:"dedup_records"`
	StatsRows    int64         `json:"stats_rows"`
	Batches      int           `json:"batches"`
	Duration     time.Duration `json:"-"`
	// Yielded is the part of Duration spent waiting between batches (Yield).
	Yielded         time.Duration `json:"-"`
	ReachedDeadline bool          `json:"reached_deadline"`
	// Vacuumed are the tables the run's VACUUM cleaned up; VacuumSkipped
	// those it skipped (locked by autovacuum, or not owned by the role).
	Vacuumed      []string `json:"vacuumed"`
	VacuumSkipped []string `json:"vacuum_skipped"`
	// Vacuuming is the time the VACUUM took, not part of Duration.
	Vacuuming time.Duration `json:"-"`
}

// Events qualify when older than the retention and none of their deliveries
// is left (acknowledged and skipped deliveries are deleted; pending, running
// and dead ones stay).
const pruneEventsSQL = `
WITH doomed AS (
    SELECT e.id FROM outbox_events e
    WHERE e.created_at < now() - make_interval(secs => $1)
      AND NOT EXISTS (SELECT 1 FROM outbox_deliveries d WHERE d.event_id = e.id)
    ORDER BY e.created_at
    LIMIT $2
    FOR UPDATE SKIP LOCKED
)
DELETE FROM outbox_events WHERE id IN (SELECT id FROM doomed)`

// StatsRetention is how long the per-minute delivery statistics are kept.
const StatsRetention = 3 * 24 * time.Hour

const pruneStatsSQL = `
DELETE FROM outbox_delivery_stats WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM outbox_delivery_stats
    WHERE minute < now() - make_interval(secs => $1)
    LIMIT $2))`

const pruneDedupSQL = `
DELETE FROM outbox_processed WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM outbox_processed
    WHERE processed_at < now() - make_interval(secs => $1)
    LIMIT $2))`

// Prune deletes fully delivered events older than the retention, then dedup
// records older than the dedup retention, then delivery statistics older
// than StatsRetention, each in batches of cfg.BatchSize rows, one short
// transaction per batch, until nothing qualifies or cfg.MaxDuration has
// passed on cfg.Clock (checked before each batch; the report's Duration is
// measured on it too). Between batches it waits cfg.Yield times the last
// batch's duration (see PruneConfig.Yield), a wait that ends at the deadline;
// the report's Yielded sums those waits. A row's age is measured on the database's now(), as
// a lease's expiry is: that clock stamped the rows. Pending and dead events
// are never deleted. A run that ends without error then VACUUMs
// outbox_deliveries and each table it removed rows from, one at a time,
// within cfg.VacuumTimeout (the report's Vacuumed, VacuumSkipped and
// Vacuuming): with autovacuum off or behind, the claim's index scan would
// otherwise walk every dead entry the drain's acknowledgements left
// (BenchmarkClaimEmptied, docs/benchmarks.md). It returns an error for a dedup retention not longer
// than the retention, a database error, or ctx's error when ctx ends during
// a wait, with the report of what was done before it.
func Prune(ctx context.Context, pool *pgxpool.Pool, cfg PruneConfig) (PruneReport, error) {
	cfg = cfg.withDefaults()
	clk := cfg.Clock
	var rep PruneReport
	start := clk.Now()
	if cfg.DedupRetention <= cfg.Retention {
		return rep, fmt.Errorf("prune: dedup retention %s must exceed event retention %s", cfg.DedupRetention, cfg.Retention)
	}
	deadline := start.Add(cfg.MaxDuration)
	steps := []struct {
		sql       string
		retention time.Duration
		count     *int64
	}{
		{pruneEventsSQL, cfg.Retention, &rep.Events},
		{pruneDedupSQL, cfg.DedupRetention, &rep.DedupRecords},
		{pruneStatsSQL, StatsRetention, &rep.StatsRows},
	}
	var took time.Duration // the last batch's duration on clk
	for _, s := range steps {
		for {
			if took > 0 {
				if err := cfg.yield(ctx, &rep, took, deadline); err != nil {
					rep.Duration = clk.Now().Sub(start)
					return rep, err
				}
			}
			batchStart := clk.Now()
			if !batchStart.Before(deadline) {
				rep.ReachedDeadline = true
				return cfg.vacuum(ctx, pool, rep, start)
			}
			tag, err := pool.Exec(ctx, s.sql, s.retention.Seconds(), cfg.BatchSize)
			if err != nil {
				rep.Duration = clk.Now().Sub(start)
				return rep, fmt.Errorf("prune batch: %w", err)
			}
			took = clk.Now().Sub(batchStart)
			rep.Batches++
			*s.count += tag.RowsAffected()
			if tag.RowsAffected() < int64(cfg.BatchSize) {
				break
			}
		}
	}
	return cfg.vacuum(ctx, pool, rep, start)
}

// vacuum ends a run that ended without error: it sets rep.Duration (the
// pruning, from start), then VACUUMs rep.vacuumTables within
// c.VacuumTimeout (unless it is negative) and records what it did.
func (c PruneConfig) vacuum(ctx context.Context, pool *pgxpool.Pool, rep PruneReport, start time.Time) (PruneReport, error) {
	rep.Duration = c.Clock.Now().Sub(start)
	if c.VacuumTimeout < 0 {
		return rep, nil
	}
	began := c.Clock.Now()
	var err error
	rep.Vacuumed, rep.VacuumSkipped, err = vacuum(ctx, pool, rep.vacuumTables(), c.VacuumTimeout)
	rep.Vacuuming = c.Clock.Now().Sub(began)
	return rep, err
}

// yield waits c.Yield times took (the last batch's duration), ending early at
// the deadline, and adds the time waited on c.Clock to rep.Yielded. It
// returns ctx's error, wrapped, when ctx ends during the wait.
func (c PruneConfig) yield(ctx context.Context, rep *PruneReport, took time.Duration, deadline time.Time) error {
	now := c.Clock.Now()
	wait := min(time.Duration(c.Yield*float64(took)), deadline.Sub(now))
	if wait <= 0 {
		return nil
	}
	done := c.sleep(ctx, wait)
	rep.Yielded += c.Clock.Now().Sub(now)
	if !done {
		return fmt.Errorf("prune yield: %w", ctx.Err())
	}
	return nil
}
