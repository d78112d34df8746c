package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

func TestEndpointsAnswerTypedErrorsAndTheClocksInstants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
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

// secretOf is endpoint id's stored signing secret.
func secretOf(t *testing.T, pool *pgxpool.Pool, id uuid.UUID) string {
	t.Helper()
	var s string
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT secret FROM webhook_endpoints WHERE id = $1", id).Scan(&s))
	return s
}
