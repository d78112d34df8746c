package database_test

import (
	"context"
	"crypto/rand"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/schema"
)

// emptyDatabase creates a database with no schema at all (no goose table)
// and returns a pool of two connections on it, as the migrate job has; the
// database is dropped when the test ends.
func emptyDatabase(t *testing.T) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	name := "lexora_migrate_" + strings.ToLower(rand.Text()[:12])
	admin, err := pgx.Connect(ctx, pgtest.AdminURL())
	require.NoError(t, err)
	defer func() { require.NoError(t, admin.Close(ctx)) }()
	_, err = admin.Exec(ctx, "CREATE DATABASE "+name)
	require.NoError(t, err)
	cfg, err := pgxpool.ParseConfig(pgtest.AdminURL())
	require.NoError(t, err)
	cfg.ConnConfig.Database = name
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() {
		pool.Close()
		conn, err := pgx.Connect(context.Background(), pgtest.AdminURL())
		require.NoError(t, err)
		defer func() { require.NoError(t, conn.Close(context.Background())) }()
		_, err = conn.Exec(context.Background(), "DROP DATABASE "+name+" WITH (FORCE)")
		require.NoError(t, err)
	})
	return pool
}

// migrationFiles counts the schema's goose migrations (schema/*.sql).
func migrationFiles(t *testing.T) int {
	t.Helper()
	files, err := schemaGlob()
	require.NoError(t, err)
	require.NotEmpty(t, files)
	return len(files)
}

func schemaGlob() ([]string, error) {
	entries, err := schema.FS.ReadDir(".")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".sql") {
			files = append(files, e.Name())
		}
	}
	return files, nil
}

// Two builds' migrate jobs started together on a fresh database both
// succeed: the advisory lock makes the second wait for the first, which
// applies every migration once, and then find nothing pending. Without the
// lock both create goose's version table and apply the first migration at
// once, and one of them fails.
func TestConcurrentMigratesSerialise(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pools := []*pgxpool.Pool{emptyDatabase(t), nil}
	var err error
	pools[1], err = pgxpool.New(ctx, pgtest.URL(pools[0]))
	require.NoError(t, err)
	t.Cleanup(pools[1].Close)

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	errs := make([]error, len(pools))
	var wg sync.WaitGroup
	for i, p := range pools {
		wg.Go(func() { errs[i] = database.Migrate(ctx, p, log) })
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])

	applied := pgtest.Column[int64](t, pools[0], "SELECT version_id FROM goose_db_version WHERE version_id > 0 AND is_applied ORDER BY id")
	require.Len(t, applied, migrationFiles(t), "each migration applied exactly once")
	require.Len(t, pgtest.Column[int64](t, pools[0], "SELECT DISTINCT version_id FROM goose_db_version WHERE version_id > 0"), len(applied))
}

// While another session holds the migration lock, Migrate changes nothing
// and waits; once the lock is released it migrates.
func TestMigrateWaitsForTheMigrationLock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := emptyDatabase(t)
	holder, err := pgx.Connect(ctx, pgtest.URL(pool))
	require.NoError(t, err)
	defer func() { require.NoError(t, holder.Close(ctx)) }()
	_, err = holder.Exec(ctx, "SELECT pg_advisory_lock($1)", database.MigrationLockID)
	require.NoError(t, err)

	done := make(chan error, 1)
	go func() { done <- database.Migrate(ctx, pool, slog.New(slog.NewTextHandler(io.Discard, nil))) }()
	select {
	case err := <-done:
		t.Fatalf("Migrate returned (%v) while another session held the migration lock", err)
	case <-time.After(3 * time.Second):
	}
	// goose creates its version table outside the lock (idempotently,
	// retrying a concurrent creation), so only the migrations are held back.
	require.Equal(t, []int64{0}, pgtest.Column[int64](t, pool, "SELECT count(*) FROM goose_db_version WHERE version_id > 0"),
		"no migration applied while the lock is held")
	require.Equal(t, []bool{false}, pgtest.Column[bool](t, pool, "SELECT to_regclass('public.outbox_events') IS NOT NULL"),
		"no table of the schema created while the lock is held")

	_, err = holder.Exec(ctx, "SELECT pg_advisory_unlock($1)", database.MigrationLockID)
	require.NoError(t, err)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(60 * time.Second):
		t.Fatal("Migrate did not finish after the lock was released")
	}
	require.Len(t, pgtest.Column[int64](t, pool, "SELECT version_id FROM goose_db_version WHERE version_id > 0 AND is_applied"), migrationFiles(t))
}
