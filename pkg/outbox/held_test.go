package outbox

import (
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"
)

// TestLeaseWritesFindTheirRowsByPrimaryKey: after an ANALYZE that saw only
// pending deliveries (a backlog just enqueued), an acknowledgement of 1,000
// leases among 2,000 running rows still finds its rows by primary key. With
// a test of state = 'running' the planner expected one running row and
// compared every running row with every lease (a nested loop over a
// sequential scan: 2,000 × 1,000 comparisons here, seconds at a real
// backlog's size).
func TestLeaseWritesFindTheirRowsByPrimaryKey(t *testing.T) {
	ctx, b := setup(t)
	_, err := b.pool.Exec(ctx, `
WITH ev AS (
    INSERT INTO outbox_events (event_id, topic, ordering_key, payload)
    SELECT gen_random_uuid(), 't.b', (g % 100)::text, jsonb_build_object('n', g) FROM generate_series(1, 20000) g
    RETURNING id, ordering_key)
INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key) SELECT id, 's1', ordering_key FROM ev`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, "ANALYZE outbox_deliveries")
	require.NoError(t, err)
	// Two claims of 1,000 each.
	mine, other := uuid.New(), uuid.New()
	_, err = b.pool.Exec(ctx, `UPDATE outbox_deliveries SET state = 'running', available_at = now() + interval '1 hour',
    lease_token = CASE WHEN id % 2 = 0 THEN $1::uuid ELSE $2::uuid END
WHERE id IN (SELECT id FROM outbox_deliveries ORDER BY id LIMIT 2000)`, mine, other)
	require.NoError(t, err)
	var ids []int64
	var tokens []uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT array_agg(id ORDER BY id), array_agg(lease_token ORDER BY id)
FROM outbox_deliveries WHERE lease_token = $1`, mine).Scan(&ids, &tokens))
	require.Len(t, ids, 1000)

	var plan []struct{ Plan planNode }
	require.NoError(t, b.pool.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+ackSQL, ids, tokens).Scan(&plan))
	require.Len(t, plan, 1)
	var walk func(n planNode)
	walk = func(n planNode) {
		require.False(t, n.NodeType == "Seq Scan" && n.RelationName == "outbox_deliveries", "a sequential scan of outbox_deliveries")
		require.Zero(t, n.RemovedByJoinFilter, "%s compared rows that are not the leases'", n.NodeType)
		for _, c := range n.Plans {
			walk(c)
		}
	}
	walk(plan[0].Plan)
	require.Equal(t, 1000, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'running'"), "the other claim's leases stay")
	require.Equal(t, 18000, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending'"))
}

// planNode is one node of EXPLAIN (FORMAT JSON).
type planNode struct {
	NodeType            string     `json:"Node Type"`
	RelationName        string     `json:"Relation Name"`
	RemovedByJoinFilter int64      `json:"Rows Removed by Join Filter"`
	Plans               []planNode `json:"Plans"`
}

// TestLeaseTokenOnlyWhileRunning: the schema refuses a token on a delivery
// that is not running and a running delivery without one, the invariant
// that lets the drain's writes find leases by token alone.
func TestLeaseTokenOnlyWhileRunning(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1))
	for _, stmt := range []string{
		"UPDATE outbox_deliveries SET lease_token = gen_random_uuid()",
		"UPDATE outbox_deliveries SET state = 'running'",
		"UPDATE outbox_deliveries SET state = 'dead', lease_token = gen_random_uuid()",
	} {
		_, err := b.pool.Exec(ctx, stmt)
		var pgErr *pgconn.PgError
		require.ErrorAs(t, err, &pgErr, stmt)
		require.Equal(t, "23514", pgErr.Code, stmt)
		require.Equal(t, "outbox_deliveries_lease_running", pgErr.ConstraintName, stmt)
	}
	_, err := b.pool.Exec(ctx, "UPDATE outbox_deliveries SET state = 'running', lease_token = gen_random_uuid()")
	require.NoError(t, err)
}
