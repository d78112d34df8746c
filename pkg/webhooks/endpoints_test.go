package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/schema"
)

func TestEndpointsAnswerTypedErrorsAndTheClocksInstants(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	clk := clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	e := Endpoints{Clock: clk}
	var owner, other uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `WITH a AS (INSERT INTO users (email, display_name, role) VALUES ('t@example.com', 'T', 'teacher') RETURNING id),
		b AS (INSERT INTO users (email, display_name, role) VALUES ('t2@example.com', 'U', 'teacher') RETURNING id)
		SELECT a.id, b.id FROM a, b`).Scan(&owner, &other))

	_, err := e.Register(ctx, pool, owner, "http://school.example/hooks", nil)
	require.ErrorIs(t, err, ErrBadURL, "http:// only with AllowHTTP")
	ep, err := e.Register(ctx, pool, owner, "https://school.example/hooks", nil)
	require.NoError(t, err)
	require.Equal(t, []string{}, ep.Topics)
	require.NotEmpty(t, ep.Secret)
	require.WithinDuration(t, clk.Now(), ep.CreatedAt, 0, "created at the clock's instant, not the database's")

	clk.Advance(time.Hour)
	rotated, err := e.RotateSecret(ctx, pool, owner, ep.ID, false)
	require.NoError(t, err)
	require.NotEqual(t, ep.Secret, rotated.Secret)
	require.WithinDuration(t, clk.Now().Add(PreviousSecretOverlap), *rotated.PreviousSecretExpiresAt, 0)

	for name, change := range map[string]func(uuid.UUID, uuid.UUID) (Endpoint, error){
		"rotate": func(t, id uuid.UUID) (Endpoint, error) { return e.RotateSecret(ctx, pool, t, id, true) },
		"enable": func(t, id uuid.UUID) (Endpoint, error) { return e.Enable(ctx, pool, t, id) },
		"delete": func(t, id uuid.UUID) (Endpoint, error) { return e.Delete(ctx, pool, t, id) },
	} {
		_, err := change(other, ep.ID)
		require.ErrorIs(t, err, ErrEndpointNotFound, "%s of another teacher's endpoint", name)
		_, err = change(owner, uuid.New())
		require.ErrorIs(t, err, ErrEndpointNotFound, "%s of an unknown endpoint", name)
	}
	list, err := e.List(ctx, pool, owner)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Empty(t, list[0].Secret, "a list never shows a secret")
	require.Equal(t, rotated.Secret, secretOf(t, pool, ep.ID), "refused changes left the endpoint as it was")
	gone, err := e.Delete(ctx, pool, owner, ep.ID)
	require.NoError(t, err)
	require.Equal(t, ep.ID, gone.ID)
	_, err = e.Enable(ctx, pool, owner, ep.ID)
	require.ErrorIs(t, err, ErrEndpointNotFound)
}

// TestOneActiveEndpointPerURL: a teacher's second endpoint at a URL (as
// stored: punycode) is refused while the first is active, re-enabling a
// disabled one beside an active one too; another teacher, or a URL whose
// endpoint is disabled, may register it.
func TestOneActiveEndpointPerURL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	e := Endpoints{Clock: clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))}
	owner, other := teacher(t, pool, "t@example.com"), teacher(t, pool, "u@example.com")
	first, err := e.Register(ctx, pool, owner, "https://bücher.example/hooks", []string{"assignment.created"})
	require.NoError(t, err)
	for _, same := range []string{"https://xn--bcher-kva.example/hooks", "HTTPS://XN--BCHER-KVA.Example/hooks", "https://bücher.example:443/hooks"} {
		_, err = e.Register(ctx, pool, owner, same, nil)
		require.ErrorIs(t, err, ErrDuplicateURL, same)
	}
	require.Equal(t, 1, count(t, pool, "SELECT count(*) FROM webhook_endpoints WHERE teacher_id = $1", owner))
	_, err = e.Register(ctx, pool, other, "https://bücher.example/hooks", nil)
	require.NoError(t, err, "another teacher's URL")

	_, err = pool.Exec(ctx, "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = '410 Gone' WHERE id = $1", first.ID)
	require.NoError(t, err)
	second, err := e.Register(ctx, pool, owner, "https://bücher.example/hooks", nil)
	require.NoError(t, err, "a disabled endpoint does not hold its URL")
	_, err = e.Enable(ctx, pool, owner, first.ID)
	require.ErrorIs(t, err, ErrDuplicateURL)
	require.Equal(t, 1, count(t, pool, "SELECT count(*) FROM webhook_endpoints WHERE teacher_id = $1 AND disabled_at IS NULL", owner))
	_, err = e.Delete(ctx, pool, owner, second.ID)
	require.NoError(t, err)
	_, err = e.Enable(ctx, pool, owner, first.ID)
	require.NoError(t, err)
}

// TestDuplicateURLMigrationKeepsOneActive: migration 00023 keeps, per
// teacher and URL, the endpoint whose receiver accepted an event last (else
// the newest) and disables the other duplicates with a reason naming it,
// keeping their rows and attempts; Down lets duplicates in again.
func TestDuplicateURLMigrationKeepsOneActive(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	db := stdlib.OpenDBFromPool(pool)
	defer func() { require.NoError(t, db.Close()) }()
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 22)
	require.NoError(t, err)
	owner, other := teacher(t, pool, "t@example.com"), teacher(t, pool, "u@example.com")
	insert := func(teacherID uuid.UUID, url string, created string) (id uuid.UUID) {
		require.NoError(t, pool.QueryRow(ctx, `INSERT INTO webhook_endpoints (teacher_id, url, secret, created_at)
			VALUES ($1, $2, 'whsec_x', $3) RETURNING id`, teacherID, url, created).Scan(&id))
		return id
	}
	const a, b = "https://a.example/hooks", "https://b.example/hooks"
	accepting := insert(owner, a, "2026-03-01T09:00:00Z") // the oldest, but its receiver accepts
	newerA := insert(owner, a, "2026-03-02T09:00:00Z")
	_, err = pool.Exec(ctx, `INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted) VALUES
		($1, gen_random_uuid(), 204, true), ($2, gen_random_uuid(), 401, false)`, accepting, newerA)
	require.NoError(t, err)
	olderB := insert(owner, b, "2026-03-01T09:00:00Z")
	newestB := insert(owner, b, "2026-03-03T09:00:00Z")
	othersB := insert(other, b, "2026-03-01T09:00:00Z")

	_, err = p.Up(ctx)
	require.NoError(t, err)
	active := func(id uuid.UUID) (reason string) {
		require.NoError(t, pool.QueryRow(ctx, "SELECT coalesce(disabled_reason, '') FROM webhook_endpoints WHERE id = $1", id).Scan(&reason))
		return reason
	}
	require.Empty(t, active(accepting), "the receiver accepted its last")
	require.Contains(t, active(newerA), accepting.String())
	require.Empty(t, active(newestB), "none accepted: the newest")
	require.Contains(t, active(olderB), newestB.String())
	require.Empty(t, active(othersB), "another teacher's")
	require.Equal(t, 2, count(t, pool, "SELECT count(*) FROM webhook_attempts"), "attempts kept")

	_, err = p.DownTo(ctx, 22)
	require.NoError(t, err)
	insert(owner, a, "2026-03-04T09:00:00Z")
}

// teacher inserts a teacher with email and answers their id.
func teacher(t *testing.T, pool *pgxpool.Pool, email string) (id uuid.UUID) {
	t.Helper()
	require.NoError(t, pool.QueryRow(context.Background(),
		"INSERT INTO users (email, display_name, role) VALUES ($1, 'T', 'teacher') RETURNING id", email).Scan(&id))
	return id
}

// count is query's one integer.
func count(t *testing.T, pool *pgxpool.Pool, query string, args ...any) (n int) {
	t.Helper()
	require.NoError(t, pool.QueryRow(context.Background(), query, args...).Scan(&n))
	return n
}

// secretOf is endpoint id's stored signing secret.
func secretOf(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT secret FROM webhook_endpoints WHERE id = $1", id).Scan(&s))
	return s
}

// TestCanonicalOrigin: the spellings of one receiver's scheme and host
// become one; the path and query keep their case and bytes.
func TestCanonicalOrigin(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://HOOKS.Example.com/H?A=B":    "https://hooks.example.com/H?A=B",
		"https://hooks.example.com:443/h":    "https://hooks.example.com/h",
		"https://hooks.example.com:8443/h":   "https://hooks.example.com:8443/h",
		"HTTP://127.0.0.1:80/no-receiver":    "http://127.0.0.1/no-receiver",
		"http://hooks.example.com.:8080":     "http://hooks.example.com:8080",
		"https://[2001:DB8::1]:443/x":        "https://[2001:db8::1]/x",
		"https://hooks.example.com?q=%2F//x": "https://hooks.example.com?q=%2F//x",
	} {
		require.Equal(t, want, CanonicalOrigin(raw), raw)
	}
}
