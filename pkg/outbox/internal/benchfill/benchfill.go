// Package benchfill writes outbox backlogs for the benchmarks: those of
// pkg/outbox and the River comparison in pkg/outbox/internal/riverbench.
package benchfill

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"
)

// fillSQL stores the events first..last of topic "bench" (ordering key
// n % 1000, payload {"n": n}) and one pending delivery each for subscriber
// "noop": what outbox.Enqueue writes, in one set-based statement so that a
// backlog of a million is ready in seconds.
const fillSQL = `
WITH ev AS (
    INSERT INTO outbox_events (event_id, topic, ordering_key, payload)
    SELECT gen_random_uuid(), 'bench', (g % 1000)::text, jsonb_build_object('n', g)
    FROM generate_series($1::bigint, $2::bigint) g
    RETURNING id, ordering_key
)
INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key, ordered, available_at)
SELECT id, 'noop', ordering_key, false, now() FROM ev ORDER BY id`

// Fill empties the outbox, stores a backlog of n deliveries for the "noop"
// subscriber in transactions of 100,000, then vacuums, analyzes and
// checkpoints so that every drain starts from the same table state.
func Fill(ctx context.Context, pool *pgxpool.Pool, n int) error {
	if _, err := pool.Exec(ctx, "TRUNCATE outbox_events, outbox_deliveries, outbox_processed"); err != nil {
		return fmt.Errorf("empty the outbox: %w", err)
	}
	const chunk = 100_000
	for i := 0; i < n; i += chunk {
		if _, err := pool.Exec(ctx, fillSQL, i, min(n, i+chunk)-1); err != nil {
			return fmt.Errorf("fill the outbox: %w", err)
		}
	}
	for _, stmt := range []string{"VACUUM ANALYZE outbox_events", "VACUUM ANALYZE outbox_deliveries", "CHECKPOINT"} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("%s: %w", stmt, err)
		}
	}
	return nil
}
