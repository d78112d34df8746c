package idempotency

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

func TestKeysExpireAfterTheRetention(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	hash, err := Hash(map[string]int{"rating": 3})
	require.NoError(t, err)
	for _, key := range []string{"old", "new"} {
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			stored, err := Begin(ctx, tx, "SubmitReview u1", key, hash)
			require.Nil(t, stored)
			if err != nil {
				return err
			}
			return Finish(ctx, tx, "SubmitReview u1", key, Response{Status: 200, Body: []byte(`{}`)})
		}))
	}
	_, err = pool.Exec(ctx, "UPDATE idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'old'")
	require.NoError(t, err)
	n, err := Prune(ctx, pool, 1)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
	var left string
	require.NoError(t, pool.QueryRow(ctx, "SELECT key FROM idempotency_keys").Scan(&left))
	require.Equal(t, "new", left)
}
