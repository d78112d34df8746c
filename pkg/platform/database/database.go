// Package database opens Lexora's PostgreSQL connection pools and applies the
// embedded schema migrations.
//
// Locally and in tests the pool connects with a plain DATABASE_URL. On Cloud
// Run, where DATABASE_INSTANCE names a Cloud SQL instance, the same pool dials
// through the Cloud SQL Go connector (cloud.google.com/go/cloudsqlconn):
// mutual TLS to the instance, automatic IAM database authentication (the
// workload's service account is its database user, no password exists), and
// lazy certificate refresh, because Cloud Run throttles the CPU outside
// requests and a background refresh would starve. Close the returned Pool
// when the binary exits: it closes the pool, then the connector's dialer,
// which flushes the connector's client metrics.
package database

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"time"

	"cloud.google.com/go/cloudsqlconn"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/schema"
)

// Config is the database part of every binary's configuration.
type Config struct {
	// URL is a libpq connection string or URL, e.g.
	// postgres://postgres@127.0.0.1:5432/lexora?sslmode=disable. With
	// Instance set, only its user, database and parameters count (the host
	// and port are the connector's): "user=lexora-drain@PROJECT.iam
	// dbname=lexora sslmode=disable", the user being the service account's
	// email without ".gserviceaccount.com".
	URL string `env:"DATABASE_URL, default=postgres://postgres@127.0.0.1:5432/lexora?sslmode=disable"`
	// Instance is the Cloud SQL instance connection name
	// ("project:region:instance"). Empty, the default, connects to URL
	// directly (local runs, tests, CI).
	Instance string `env:"DATABASE_INSTANCE"`
	// ClientMetrics turns on the connector's built-in client metrics
	// (exported to Cloud Monitoring; the workload then needs
	// roles/monitoring.metricWriter). Off by default, so tests and local
	// runs never try to reach Google; Terraform turns it on.
	ClientMetrics bool `env:"DATABASE_CLIENT_METRICS"`
	// MaxConns caps the pool size per process (per Cloud Run instance or
	// job task). The sum over every workload must stay under the Cloud SQL
	// instance's max_connections: see the connection budget in
	// terraform/README.md.
	MaxConns int32 `env:"DATABASE_MAX_CONNS, default=8"`
	// StatementTimeout and IdleInTransactionTimeout are set on every
	// connection so that no statement or forgotten transaction holds locks or
	// the xmin horizon (and so table bloat) for long. Zero leaves the
	// server's setting: use that behind PgBouncer in transaction pooling,
	// which refuses these startup parameters, and set them with ALTER ROLE.
	StatementTimeout         time.Duration `env:"DATABASE_STATEMENT_TIMEOUT, default=30s"`
	IdleInTransactionTimeout time.Duration `env:"DATABASE_IDLE_IN_TRANSACTION_TIMEOUT, default=60s"`
	// SimpleProtocol sends statements without server-side prepared
	// statements, as PgBouncer in transaction pooling mode needs.
	SimpleProtocol bool `env:"DATABASE_SIMPLE_PROTOCOL"`
}

// Pool is a connection pool and, when Config.Instance is set, the Cloud SQL
// connector's dialer behind it. Pass Pool.Pool to code that takes a
// *pgxpool.Pool; Pool.Config().ConnConfig dials the same way (for a
// dedicated connection such as the outbox's LISTEN).
type Pool struct {
	*pgxpool.Pool
	dialer *cloudsqlconn.Dialer
}

// Close closes the pool, waiting for acquired connections to be released,
// then the dialer (which stops certificate refreshes and flushes the
// connector's metrics). Call it once, when the binary exits.
func (p *Pool) Close() {
	p.Pool.Close()
	if p.dialer != nil {
		// Its only error is a failed metrics flush, which costs a few
		// data points and nothing else: nothing to do about it on exit.
		_ = p.dialer.Close()
	}
}

// dialerOptions are appended to the connector's options; tests point the
// connector at a local stand-in of the Cloud SQL Admin API with them.
var dialerOptions []cloudsqlconn.Option

// Open returns a pool for cfg after checking that the database answers. It
// returns an error for an unparsable URL, a connector that cannot be built
// (no Application Default Credentials) or an unreachable database.
func Open(ctx context.Context, cfg Config) (*Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
	var dialer *cloudsqlconn.Dialer
	if cfg.Instance != "" {
		dialer, err = cloudsqlconn.NewDialer(ctx, append([]cloudsqlconn.Option{
			cloudsqlconn.WithIAMAuthN(),
			cloudsqlconn.WithLazyRefresh(),
			cloudsqlconn.WithBuiltInMetrics(cfg.ClientMetrics),
		}, dialerOptions...)...)
		if err != nil {
			return nil, fmt.Errorf("build Cloud SQL connector for %s: %w", cfg.Instance, err)
		}
		// The connector encrypts (mutual TLS) and authenticates; the
		// address pgx resolved from the URL is ignored.
		pc.ConnConfig.DialFunc = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return dialer.Dial(ctx, cfg.Instance)
		}
		pc.ConnConfig.TLSConfig, pc.ConnConfig.Fallbacks = nil, nil
	}
	configure(pc, cfg)
	pgp, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		if dialer != nil {
			err = errors.Join(err, dialer.Close())
		}
		return nil, fmt.Errorf("open database: %w", err)
	}
	pool := &Pool{Pool: pgp, dialer: dialer}
	if err := pgp.Ping(ctx); err != nil {
		pool.Close()
		where := fmt.Sprintf("%s:%d", pc.ConnConfig.Host, pc.ConnConfig.Port)
		if cfg.Instance != "" {
			where = "Cloud SQL instance " + cfg.Instance
		}
		return nil, fmt.Errorf("reach database %s as %s: %w", where, pc.ConnConfig.User, err)
	}
	return pool, nil
}

// configure applies cfg's pool size, session timeouts and query protocol
// to pc.
func configure(pc *pgxpool.Config, cfg Config) {
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	for name, d := range map[string]time.Duration{
		"statement_timeout":                   cfg.StatementTimeout,
		"idle_in_transaction_session_timeout": cfg.IdleInTransactionTimeout,
	} {
		if d > 0 {
			pc.ConnConfig.RuntimeParams[name] = strconv.FormatInt(d.Milliseconds(), 10)
		}
	}
	if cfg.SimpleProtocol {
		pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
		// Without a server-side description of each statement, pgx encodes
		// parameters from their Go type alone: name the PostgreSQL types of
		// the id types Lexora passes.
		pc.AfterConnect = func(_ context.Context, conn *pgx.Conn) error {
			conn.TypeMap().RegisterDefaultPgType(uuid.UUID{}, "uuid")
			conn.TypeMap().RegisterDefaultPgType([]uuid.UUID{}, "_uuid")
			return nil
		}
	}
}

// Configured is a binary's configuration that names its database: a
// *Config, or a pointer to a struct that embeds Config.
type Configured interface{ config() Config }

func (c Config) config() Config { return c }

// OpenFromEnv reads cfg from the environment (go-envconfig, by its env
// tags) and opens the database it names. It returns an error for a
// configuration that does not read, or a database that does not open.
func OpenFromEnv(ctx context.Context, cfg Configured) (*Pool, error) {
	if err := envconfig.Process(ctx, cfg); err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	return Open(ctx, cfg.config())
}

// MigrationLockID is the key of the session-level advisory lock
// (pg_advisory_lock) that Migrate holds while it migrates: goose's default,
// the CRC-32 (IEEE) of "goose". Another session holding it makes Migrate
// wait.
const MigrationLockID = lock.DefaultLockID

// migrationLockWait is how long Migrate waits for MigrationLockID, polling
// once a second: the migrate job's task timeout (terraform/jobs.tf, 900 s),
// so a second migration waits for a first one that may run to that timeout.
const migrationLockWait = 900

// Migrate applies every pending migration of package schema to the database
// behind pool and logs each one. Concurrent calls on one database (two
// builds' migrate jobs) run one after the other: each holds the session
// advisory lock MigrationLockID (goose's Postgres session locker) from before
// it reads the applied versions until it has applied the last one, polling
// for it once a second for at most 15 minutes; the second then finds nothing
// pending. It returns an error when the lock is not had in that time, the
// first failing migration's error, joined with an error closing the
// migrations' database handle.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) (err error) {
	db := stdlib.OpenDBFromPool(pool)
	defer func() { err = errors.Join(err, db.Close()) }()
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockID(MigrationLockID), lock.WithLockTimeout(1, migrationLockWait))
	if err != nil {
		return fmt.Errorf("migration lock: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS, goose.WithSessionLocker(locker))
	if err != nil {
		return fmt.Errorf("load migrations: %w", err)
	}
	results, err := p.Up(ctx)
	for _, r := range results {
		log.Info("migration applied", slog.Int64("version", r.Source.Version),
			slog.String("file", r.Source.Path), slog.Float64("duration_seconds", r.Duration.Seconds()))
	}
	if err != nil {
		return fmt.Errorf("apply migrations: %w", err)
	}
	return nil
}

// GrantTables gives role (a group role such as lexora_app, which Terraform
// creates and makes every workload's IAM database user a member of) the
// rights Lexora's workloads use on every table and sequence of the public
// schema: SELECT, INSERT, UPDATE, DELETE and sequence USAGE, never DDL. The
// migrate job owns the tables and calls it after each migration, so tables a
// migration adds are covered before any new code runs. It returns an error
// for a role that does not exist.
func GrantTables(ctx context.Context, pool *pgxpool.Pool, role string) error {
	r := pgx.Identifier{role}.Sanitize()
	_, err := pool.Exec(ctx, "GRANT USAGE ON SCHEMA public TO "+r+";"+
		"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "+r+";"+
		"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO "+r)
	if err != nil {
		return fmt.Errorf("grant tables to %s: %w", role, err)
	}
	return nil
}

// OwnTables makes role (a group role such as lexora_outbox_owner, which
// Terraform creates) the owner of tables in the public schema, so that its
// members may VACUUM them: PostgreSQL 16 lets only a table's owner (or a
// superuser, or the database's owner) vacuum it, and a non-owner's VACUUM
// skips the table with a warning (17's MAINTAIN privilege would need less).
// The migrate job calls it after each migration for outbox.VacuumedTables,
// so that the prune job, a member of role, vacuums what it prunes; being a
// member too, the migrate job still alters them. It returns an error for a
// role or table that does not exist, or when the caller may not give a
// table away (it must own it, be a member of role, and role needs CREATE on
// the schema).
func OwnTables(ctx context.Context, pool *pgxpool.Pool, role string, tables []string) error {
	batch := &pgx.Batch{}
	for _, t := range tables {
		batch.Queue("ALTER TABLE " + pgx.Identifier{"public", t}.Sanitize() + " OWNER TO " + pgx.Identifier{role}.Sanitize())
	}
	if err := pool.SendBatch(ctx, batch).Close(); err != nil {
		return fmt.Errorf("give tables to %s: %w", role, err)
	}
	return nil
}
