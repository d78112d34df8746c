// Command migrate applies the embedded schema migrations (package schema) to
// the database and exits: 0 when the schema is current, 1 otherwise. Cloud
// Build runs it (as the Cloud Run Job "migrate") before each deploy; it is
// safe to run again. With MIGRATE_GRANT_ROLE set it then grants that group
// role the workloads' table rights (database.GrantTables), so the tables a
// migration adds are usable by the functions and jobs that are deployed next.
// With MIGRATE_OUTBOX_OWNER set it makes that role the owner of the tables
// the prune job vacuums (database.OwnTables, outbox.VacuumedTables).
//
// Before it migrates, it makes the database roles the workloads need
// (roles.provision): with MIGRATE_PROVISION_AS=cloudsqlsuperuser on Cloud
// SQL, it creates the group roles MIGRATE_GRANT_ROLE and
// MIGRATE_OUTBOX_OWNER when missing, grants them to MIGRATE_APP_MEMBERS and
// MIGRATE_OUTBOX_MEMBERS, gives MIGRATE_SCHEMA_CREATE the right to create in
// schema public and sets MIGRATE_DATABASE_SETTINGS on the database. Cloud
// SQL's Data API is denied (terraform/sql.tf), so this job is where that SQL
// runs; with none of these set (local runs) it makes nothing.
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
	// ProvisionAs is the role the provisioning runs as (cloudsqlsuperuser
	// on Cloud SQL); empty runs it as the job's own user.
	ProvisionAs string `env:"MIGRATE_PROVISION_AS"`
	// AppMembers are the database users made members of GrantRole: every
	// workload's but the migrate job's, and Terraform's administrator.
	AppMembers []string `env:"MIGRATE_APP_MEMBERS"`
	// OutboxMembers are the database users made members of OutboxOwner
	// (the migrate and prune jobs').
	OutboxMembers []string `env:"MIGRATE_OUTBOX_MEMBERS"`
	// SchemaCreate are the roles that may create in schema public (the
	// migrate job's user and OutboxOwner).
	SchemaCreate []string `env:"MIGRATE_SCHEMA_CREATE"`
	// DatabaseSettings are set on the database, as name:value pairs
	// separated by commas ("statement_timeout:30s").
	DatabaseSettings map[string]string `env:"MIGRATE_DATABASE_SETTINGS"`
}

// roles is what cfg asks the job to make before it migrates.
func (cfg *config) roles() roles {
	r := roles{As: cfg.ProvisionAs, Groups: map[string][]string{}, SchemaCreate: cfg.SchemaCreate, Settings: cfg.DatabaseSettings}
	if cfg.GrantRole != "" && len(cfg.AppMembers) > 0 {
		r.Groups[cfg.GrantRole] = cfg.AppMembers
	}
	if cfg.OutboxOwner != "" && len(cfg.OutboxMembers) > 0 {
		r.Groups[cfg.OutboxOwner] = cfg.OutboxMembers
	}
	return r
}

func main() {
	var cfg config
	jobrun.MainOnDatabase("migrate", &cfg, cfg.run)
}

func (cfg *config) run(ctx context.Context, log *slog.Logger, pool *database.Pool) error {
	if r := cfg.roles(); !r.empty() {
		if err := r.provision(ctx, pool.Pool); err != nil {
			return err
		}
		log.Info("roles provisioned", slog.Int("groups", len(r.Groups)), slog.Int("settings", len(r.Settings)))
	}
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
