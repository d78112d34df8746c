// Command migrate applies the embedded schema migrations (package schema) to
// the database and exits: 0 when the schema is current, 1 otherwise. Cloud
// Build runs it (as the Cloud Run Job "migrate") before each deploy; it is
// safe to run again. With MIGRATE_GRANT_ROLE set it then grants that group
// role the workloads' table rights (database.GrantTables), so the tables a
// migration adds are usable by the functions and jobs that are deployed next.
// With MIGRATE_OUTBOX_OWNER set it makes that role the owner of the tables
// the prune job vacuums (database.OwnTables, outbox.VacuumedTables).
package main

import (
	"context"
	"log/slog"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
)

type config struct {
	database.Config
	// GrantRole is the group role of the workloads' database users
	// (lexora_app on Cloud SQL); empty grants nothing (local runs, where
	// everything connects as postgres).
	GrantRole string `env:"MIGRATE_GRANT_ROLE"`
	// OutboxOwner is the group role (lexora_outbox_owner on Cloud SQL, of
	// which the migrate and prune jobs' users are members) given the outbox
	// tables, so that prune may VACUUM them; empty gives nothing away.
	OutboxOwner string `env:"MIGRATE_OUTBOX_OWNER"`
}

func main() {
	var cfg config
	jobrun.MainOnDatabase("migrate", &cfg, cfg.run)
}

func (cfg *config) run(ctx context.Context, log *slog.Logger, pool *database.Pool) error {
	if err := database.Migrate(ctx, pool.Pool, log); err != nil {
		return err
	}
	if cfg.GrantRole != "" {
		if err := database.GrantTables(ctx, pool.Pool, cfg.GrantRole); err != nil {
			return err
		}
		log.Info("tables granted", slog.String("role", cfg.GrantRole))
	}
	if cfg.OutboxOwner != "" {
		if err := database.OwnTables(ctx, pool.Pool, cfg.OutboxOwner, outbox.VacuumedTables); err != nil {
			return err
		}
		log.Info("outbox tables owned", slog.String("role", cfg.OutboxOwner))
	}
	log.Info("schema is current")
	return nil
}
