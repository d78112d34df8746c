package store

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestEndpointHealthReadsTheIndexes: an endpoint's health is its latest
// acceptance, its latest rejection and the rejections since (at most
// max_failures), each read from a partial index of webhook_attempts by
// endpoint, newest first, never a scan of the table: 20,000 rejections of
// an endpoint that never accepted are not all read.
func TestEndpointHealthReadsTheIndexes(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	var teacher, failing, healthy, unused uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role) VALUES ('t@example.com', 't', 'teacher') RETURNING id`).Scan(&teacher))
	for _, ep := range []struct {
		id  *uuid.UUID
		url string
	}{{&failing, "https://a.example/h"}, {&healthy, "https://b.example/h"}, {&unused, "https://c.example/h"}} {
		require.NoError(t, pool.QueryRow(ctx, `INSERT INTO webhook_endpoints (teacher_id, url, secret) VALUES ($1, $2, 'whsec_x') RETURNING id`,
			teacher, ep.url).Scan(ep.id))
	}
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	_, err := pool.Exec(ctx, `INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted, at)
		SELECT $1::uuid, gen_random_uuid(), 404, false, $3::timestamptz - make_interval(secs => n) FROM generate_series(1, 20000) n
		UNION ALL
		SELECT $2::uuid, gen_random_uuid(), CASE WHEN n % 10 = 0 THEN 400 ELSE 200 END, n % 10 <> 0, $3::timestamptz - make_interval(secs => n)
		FROM generate_series(2, 5000) n`, failing, healthy, at)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ANALYZE webhook_attempts`)
	require.NoError(t, err)

	rows, err := On(pool).EndpointHealth(ctx, 100, teacher)
	require.NoError(t, err)
	require.Len(t, rows, 3)
	require.Equal(t, failing, rows[0].ID)
	require.Nil(t, rows[0].AcceptedAt, "never accepted")
	require.Equal(t, int32(100), rows[0].FailuresInRow, "counted up to max_failures")
	require.Equal(t, int32(404), *rows[0].RejectedStatus)
	require.True(t, rows[0].RejectedAt.Equal(at.Add(-time.Second)))
	require.Equal(t, healthy, rows[1].ID)
	require.True(t, rows[1].AcceptedAt.Equal(at.Add(-2*time.Second)), "the latest 2xx")
	require.Zero(t, rows[1].FailuresInRow, "its latest answer was a 2xx")
	require.True(t, rows[1].RejectedAt.Equal(at.Add(-10*time.Second)))
	require.Equal(t, unused, rows[2].ID)
	require.Nil(t, rows[2].AcceptedAt)
	require.Nil(t, rows[2].RejectedAt)

	plan := explain(t, pool, "EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) "+endpointHealth, int32(100), teacher)
	t.Log(plan)
	require.NotContains(t, plan, "Seq Scan on webhook_attempts", plan)
	require.Contains(t, plan, "webhook_attempts_accepted", plan)
	require.Contains(t, plan, "webhook_attempts_rejected", plan)
}

// explain is the text of an EXPLAIN statement's plan.
func explain(t *testing.T, db DBTX, sql string, args ...any) string {
	t.Helper()
	rows, err := db.Query(t.Context(), sql, args...)
	require.NoError(t, err)
	defer rows.Close()
	var plan strings.Builder
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan.WriteString(line + "\n")
	}
	require.NoError(t, rows.Err())
	return plan.String()
}
