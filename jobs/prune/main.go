// Command prune is the Cloud Run Job that deletes fully delivered outbox
// events past their retention, old dedup records and delivery statistics,
// and Idempotency-Key records past 24 hours, in bounded batches
// (see outbox.PruneConfig for the PRUNE_* settings), then VACUUMs the outbox
// tables (outbox.Prune: its role must own them, see jobs/migrate). It logs one JSON summary
// line and exits 0 when it ran, 1 when it could not.
package main

import (
	"context"
	"log/slog"

	"github.com/lexora-app/lexora/pkg/idempotency"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
)

type config struct {
	database.Config
	Prune outbox.PruneConfig
}

func main() {
	var cfg config
	jobrun.MainOnDatabase("prune", &cfg, cfg.run)
}

func (cfg *config) run(ctx context.Context, log *slog.Logger, pool *database.Pool) error {
	rep, err := outbox.Prune(ctx, pool.Pool, cfg.Prune)
	if err != nil {
		return err
	}
	keys, err := idempotency.Prune(ctx, pool.Pool, outbox.DefaultPruneBatchSize)
	if err != nil {
		return err
	}
	log.Info("prune run", slog.Int64("events", rep.Events), slog.Int64("dedup_records", rep.DedupRecords),
		slog.Int("batches", rep.Batches), slog.Bool("reached_deadline", rep.ReachedDeadline),
		slog.Int64("stats_rows", rep.StatsRows), slog.Int64("idempotency_keys", keys),
		slog.Float64("duration_seconds", rep.Duration.Seconds()), slog.Float64("yielded_seconds", rep.Yielded.Seconds()),
		slog.Any("vacuumed", rep.Vacuumed), slog.Any("vacuum_skipped", rep.VacuumSkipped), slog.Float64("vacuum_seconds", rep.Vacuuming.Seconds()))
	return nil
}
