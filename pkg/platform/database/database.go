// Package database opens Lexora's PostgreSQL connection pools and applies the
// embedded schema migrations.
//
// Locally and in tests the pool connects with a plain DATABASE_URL; on Cloud
// Run the same pool dials through the Cloud SQL connector (added with the
// deployment).
package database

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/schema"
)

// Config is the database part of every binary's configuration.
type Config struct {
	// URL is a libpq connection string or URL, e.g.
	// postgres://postgres@127.0.0.1:5432/lexora?sslmode=disable.
	URL string `env:"DATABASE_URL, default=postgres://postgres@127.0.0.1:5432/lexora?sslmode=disable"`
	// MaxConns caps the pool size.
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

// Open returns a pool for cfg after checking that the database answers. It
// returns an error for an unparsable URL or an unreachable database.
func Open(ctx context.Context, cfg Config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("parse DATABASE_URL: %w", err)
	}
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
	pool, err := pgxpool.NewWithConfig(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("reach database %s:%d: %w", pc.ConnConfig.Host, pc.ConnConfig.Port, err)
	}
	return pool, nil
}

// OpenFromEnv reads Config from the environment (go-envconfig) and opens
// it, for binaries that need nothing else.
func OpenFromEnv(ctx context.Context) (*pgxpool.Pool, error) {
	var cfg Config
	if err := envconfig.Process(ctx, &cfg); err != nil {
		return nil, fmt.Errorf("read database configuration: %w", err)
	}
	return Open(ctx, cfg)
}

// Migrate applies every pending migration of package schema to the database
// behind pool and logs each one. It returns the first failing migration's error.
func Migrate(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) error {
	db := stdlib.OpenDBFromPool(pool)
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS)
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
