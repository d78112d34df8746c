// Package riverbench compares one Lexora outbox drain with River
// (github.com/riverqueue/river) and with a bare-SQL claim/acknowledge loop,
// on the same PostgreSQL, in one process. It is a separate module so that
// River never enters Lexora's go.mod; `make bench` runs it.
package riverbench

import (
	"context"
	"crypto/rand"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"

	"github.com/lexora-app/lexora/pkg/outbox/internal/benchfill"
)

const jobs = 100_000

// BenchmarkCompare drains 100,000 no-op deliveries three ways, in this order,
// and reports each rate plus the ratios lexora/river (goal >= 1.5) and
// lexora/ceiling:
//
//   - lexora: one outbox.Drainer.Run (StopWhenIdle, default batch size and
//     concurrency) over a migrated Lexora database;
//   - river: River v0.51.2 over its own freshly migrated database, 100,000
//     jobs inserted with InsertManyFast, a client configured as River's own
//     benchmark (cmd/river bench) does, timed from Start to the last
//     completion event;
//   - ceiling: a claim (UPDATE ... FROM (SELECT ... FOR UPDATE SKIP LOCKED
//     LIMIT 1000)) and an acknowledgement per batch of 1,000 over
//     outbox_deliveries, no handlers.
//
// Every database is vacuumed, analyzed and checkpointed before timing. All
// use a pgxpool with default settings.
func BenchmarkCompare(b *testing.B) {
	var lexora, riverRate, ceiling float64
	for b.Loop() {
		lexora = benchLexora(b)
		riverRate = benchRiver(b)
		ceiling = benchCeiling(b)
	}
	b.ReportMetric(lexora, "lexora_deliveries/s")
	b.ReportMetric(riverRate, "river_jobs/s")
	b.ReportMetric(ceiling, "ceiling_rows/s")
	b.ReportMetric(lexora/riverRate, "lexora/river")
	b.ReportMetric(lexora/ceiling, "lexora/ceiling")
}

func fillOutbox(b *testing.B, pool *pgxpool.Pool) {
	require.NoError(b, benchfill.Fill(context.Background(), pool, jobs))
}

// settle vacuums and analyzes tables and checkpoints, so that the timed part
// starts from a quiet server.
func settle(b *testing.B, pool *pgxpool.Pool, tables ...string) {
	ctx := context.Background()
	for _, t := range tables {
		_, err := pool.Exec(ctx, "VACUUM ANALYZE "+t)
		require.NoError(b, err)
	}
	_, err := pool.Exec(ctx, "CHECKPOINT")
	require.NoError(b, err)
}

func benchLexora(b *testing.B) float64 {
	pool := pgtest.New(b)
	fillOutbox(b, pool)
	d, err := outbox.NewDrainer(pool,
		map[string]outbox.Handler{"noop": outbox.HandlerFunc(func(context.Context, outbox.Delivery) error { return nil })},
		outbox.Config{StopWhenIdle: true, MaxDeliveries: jobs, MaxDuration: time.Hour},
		slog.New(slog.DiscardHandler))
	require.NoError(b, err)
	start := time.Now()
	rep, err := d.Run(context.Background())
	elapsed := time.Since(start)
	require.NoError(b, err)
	require.Equal(b, jobs, rep.Delivered)
	return float64(rep.Delivered) / elapsed.Seconds()
}

// noopArgs and noopWorker are River's no-op benchmark job.
type noopArgs struct {
	Num int `json:"num"`
}

func (noopArgs) Kind() string { return "benchmark" }

type noopWorker struct {
	river.WorkerDefaults[noopArgs]
}

func (noopWorker) Work(context.Context, *river.Job[noopArgs]) error { return nil }

// riverDatabase creates an empty database for River, dropped when b ends.
func riverDatabase(b *testing.B) *pgxpool.Pool {
	ctx := context.Background()
	name := "lexora_river_" + strings.ToLower(rand.Text()[:16])
	admin, err := pgx.Connect(ctx, pgtest.AdminURL())
	require.NoError(b, err)
	defer func() { require.NoError(b, admin.Close(ctx)) }()
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(b, err)
	cfg, err := pgxpool.ParseConfig(pgtest.AdminURL())
	require.NoError(b, err)
	cfg.ConnConfig.Database = name
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(b, err)
	b.Cleanup(func() {
		pool.Close()
		conn, err := pgx.Connect(context.Background(), pgtest.AdminURL())
		if err != nil {
			b.Errorf("drop %s: %v", name, err)
			return
		}
		defer func() {
			if err := conn.Close(context.Background()); err != nil {
				b.Errorf("drop %s: %v", name, err)
			}
		}()
		if _, err := conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
			b.Errorf("drop %s: %v", name, err)
		}
	})
	return pool
}

func benchRiver(b *testing.B) float64 {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pool := riverDatabase(b)
	driver := riverpgxv5.New(pool)
	migrator, err := rivermigrate.New(driver, &rivermigrate.Config{Logger: slog.New(slog.DiscardHandler)})
	require.NoError(b, err)
	_, err = migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	require.NoError(b, err)

	workers := river.NewWorkers()
	river.AddWorker(workers, &noopWorker{})
	// The settings of River's own benchmark (cmd/river/riverbench): fetch
	// cooldown 2 ms, fetch poll interval 20 ms, 2,000 workers on the
	// default queue.
	client, err := river.NewClient(driver, &river.Config{
		FetchCooldown:     2 * time.Millisecond,
		FetchPollInterval: 20 * time.Millisecond,
		Logger:            slog.New(slog.DiscardHandler),
		Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 2_000}},
		Workers:           workers,
	})
	require.NoError(b, err)

	params := make([]river.InsertManyParams, jobs)
	for i := range params {
		params[i] = river.InsertManyParams{Args: noopArgs{Num: i}}
	}
	n, err := client.InsertManyFast(ctx, params)
	require.NoError(b, err)
	require.Equal(b, jobs, n)
	settle(b, pool, "river_job")

	events, unsubscribe := client.SubscribeConfig(&river.SubscribeConfig{
		ChanSize: jobs,
		Kinds:    []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled},
	})
	defer unsubscribe()
	start := time.Now()
	require.NoError(b, client.Start(ctx))
	var last time.Time
	timeout := time.After(5 * time.Minute)
	for done := 0; done < jobs; done++ {
		select {
		case ev := <-events:
			require.Equal(b, river.EventKindJobCompleted, ev.Kind)
			last = time.Now()
		case <-timeout:
			b.Fatalf("river: only %d of %d jobs completed", done, jobs)
		}
	}
	require.NoError(b, client.Stop(ctx))
	var left int
	require.NoError(b, pool.QueryRow(ctx, "SELECT count(*) FROM river_job WHERE state <> 'completed'").Scan(&left))
	require.Zero(b, left)
	return float64(jobs) / last.Sub(start).Seconds()
}

// The ceiling uses the statement shapes of the drain (claim by primary key,
// acknowledgement by DELETE) with nothing else around them: no event join,
// no handlers, no statistics.
const ceilingClaimSQL = `
UPDATE outbox_deliveries d
SET state = 'running', attempts = d.attempts + 1, lease_token = $1, available_at = now() + interval '30 seconds'
WHERE d.id = ANY (ARRAY(
    SELECT id FROM outbox_deliveries
    WHERE state IN ('pending', 'running') AND available_at <= now()
    ORDER BY available_at, id
    LIMIT 1000
    FOR UPDATE SKIP LOCKED))
RETURNING d.id`

const ceilingAckSQL = `
DELETE FROM outbox_deliveries
WHERE id = ANY($1::bigint[]) AND lease_token = $2 AND state = 'running'`

func benchCeiling(b *testing.B) float64 {
	ctx := context.Background()
	pool := pgtest.New(b)
	fillOutbox(b, pool)
	start := time.Now()
	var acked int64
	for {
		token := uuid.New()
		rows, err := pool.Query(ctx, ceilingClaimSQL, token)
		require.NoError(b, err)
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		require.NoError(b, err)
		if len(ids) == 0 {
			break
		}
		tag, err := pool.Exec(ctx, ceilingAckSQL, ids, token)
		require.NoError(b, err)
		acked += tag.RowsAffected()
	}
	elapsed := time.Since(start)
	require.EqualValues(b, jobs, acked)
	return float64(acked) / elapsed.Seconds()
}
