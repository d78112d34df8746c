// Package pgtest gives each test its own PostgreSQL database, cloned from a
// template that holds the migrated schema, so tests run in parallel without
// sharing rows.
//
// The server comes from LEXORA_TEST_DATABASE_URL (default
// postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable); `make test`
// starts PostgreSQL when it is not running. A test that cannot reach it fails:
// it is never skipped.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/schema"
)

const defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// AdminURL is the connection string of the server's maintenance database.
func AdminURL() string {
	if u := os.Getenv("LEXORA_TEST_DATABASE_URL"); u != "" {
		return u
	}
	return defaultURL
}

var template = sync.OnceValues(prepareTemplate)

// New creates an empty database migrated to the current schema and returns a
// pool on it; both are removed when the test ends. It fails the test when the
// server cannot be reached.
func New(t testing.TB) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	tpl, err := template()
	if err != nil {
		t.Fatalf("pgtest: prepare template database: %v", err)
	}
	name := "lexora_test_" + strings.ToLower(rand.Text()[:16])
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		t.Fatalf("pgtest: connect to %s: %v", AdminURL(), err)
	}
	defer func() {
		if err := admin.Close(ctx); err != nil {
			t.Errorf("pgtest: close the admin connection: %v", err)
		}
	}()
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tpl)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	cfg, err := pgxpool.ParseConfig(AdminURL())
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	cfg.ConnConfig.Database = name
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("pgtest: open %s: %v", name, err)
	}
	t.Cleanup(func() {
		pool.Close()
		conn, err := pgx.Connect(context.Background(), AdminURL())
		if err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
			return
		}
		defer func() {
			if err := conn.Close(context.Background()); err != nil {
				t.Errorf("pgtest: drop %s: %v", name, err)
			}
		}()
		if _, err := conn.Exec(context.Background(), fmt.Sprintf("DROP DATABASE %s WITH (FORCE)", name)); err != nil {
			t.Errorf("pgtest: drop %s: %v", name, err)
		}
	})
	return pool
}

// Setup begins a test that has a database of its own, as most database
// tests begin: it marks t parallel (t.Parallel) and returns a background
// context and a pool on a new database (New).
func Setup(t *testing.T) (context.Context, *pgxpool.Pool) {
	t.Helper()
	t.Parallel()
	return context.Background(), New(t)
}

// User inserts a user with the email, display name, role and IANA time
// zone into pool's database and returns its id: the account most database
// tests begin with. It fails the test when the insert does.
func User(t testing.TB, pool *pgxpool.Pool, email, name string, role account.Role, timezone string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	if err := pool.QueryRow(context.Background(), `INSERT INTO users (email, display_name, role, timezone)
		VALUES ($1, $2, $3, $4) RETURNING id`, email, name, role, timezone).Scan(&id); err != nil {
		t.Fatalf("pgtest: insert user %s: %v", email, err)
	}
	return id
}

// Column answers the first column of every row that sql selects from
// pool's database, in the order of the rows, each scanned into a T
// (pgx.RowTo). It fails the test when the query or a scan does.
func Column[T any](t testing.TB, pool *pgxpool.Pool, sql string, args ...any) []T {
	t.Helper()
	rows, err := pool.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatalf("pgtest: %s: %v", sql, err)
	}
	values, err := pgx.CollectRows(rows, pgx.RowTo[T])
	if err != nil {
		t.Fatalf("pgtest: scan %s: %v", sql, err)
	}
	return values
}

// URL returns a connection URL for pool's database, for subprocesses: the
// admin URL with its path replaced.
func URL(pool *pgxpool.Pool) string {
	u, err := url.Parse(AdminURL())
	if err != nil {
		panic(fmt.Sprintf("pgtest: LEXORA_TEST_DATABASE_URL must be a URL: %v", err))
	}
	u.Path = "/" + pool.Config().ConnConfig.Database
	return u.String()
}

// prepareTemplate creates, once per schema version, a template database
// named after a hash of the migration files. Test binaries of several
// packages run at once, so creation is serialised with an advisory lock and
// published by a rename only once migrated.
func prepareTemplate() (_ string, err error) {
	ctx := context.Background()
	h := sha256.New()
	err = fs.WalkDir(schema.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(schema.FS, path)
		_, _ = fmt.Fprintf(h, "%s\x00%s\x00", path, b) // a hash.Hash's Write never returns an error
		return err
	})
	if err != nil {
		return "", err
	}
	name := "lexora_template_" + hex.EncodeToString(h.Sum(nil))[:16]
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", AdminURL(), err)
	}
	defer func() { err = errors.Join(err, admin.Close(ctx)) }()
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock(7301)"); err != nil {
		return "", err
	}
	defer func() {
		_, unlockErr := admin.Exec(ctx, "SELECT pg_advisory_unlock(7301)")
		err = errors.Join(err, unlockErr)
	}()
	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	for _, stmt := range []string{
		"DROP DATABASE IF EXISTS " + building + " WITH (FORCE)",
		"CREATE DATABASE " + building,
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			return "", err
		}
	}
	cfg, err := pgxpool.ParseConfig(AdminURL())
	if err != nil {
		return "", err
	}
	cfg.ConnConfig.Database = building
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return "", err
	}
	err = database.Migrate(ctx, pool, slog.New(slog.DiscardHandler))
	pool.Close()
	if err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s RENAME TO %s", building, name)); err != nil {
		return "", err
	}
	return name, nil
}
