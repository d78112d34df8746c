package outbox

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Health is the live state of the outbox, as an on-call engineer reads it.
// Its json tags (and those of TopicBacklog and TopicCount) are the output
// of `outboxctl health`; the HTTP API's OutboxHealth answer is
// functions/api's type, converted from this one by the functions.
type Health struct {
	// Backlog is the undelivered, not dead work per subscriber and topic.
	Backlog []TopicBacklog `json:"backlog"`
	// Dead counts dead deliveries per subscriber and topic.
	Dead []TopicCount `json:"dead"`
	// BlockedKeys counts ordered keys held back by a dead head.
	BlockedKeys int `json:"blocked_keys"`
	// DeliveredPerMinute counts deliveries finished in each of the last 60
	// minutes, oldest first; the last entry is the current, partial minute.
	DeliveredPerMinute []int `json:"delivered_per_minute"`
}

// TopicBacklog is the pending work of one subscriber for one topic.
type TopicBacklog struct {
	Subscriber string `json:"subscriber"`
	Topic      string `json:"topic"`
	Pending    int64  `json:"pending"`
	// Due counts the pending deliveries that could be claimed now (not
	// waiting for a backoff, a not-before time or a lease).
	Due int64 `json:"due"`
	// OldestAgeSeconds is how long the oldest due delivery has been
	// deliverable: since its event's not-before time, or its creation. Work
	// scheduled for later does not age; 0 when nothing is due.
	OldestAgeSeconds float64 `json:"oldest_age_seconds"`
}

// TopicCount is a count for one subscriber and topic.
type TopicCount struct {
	Subscriber string `json:"subscriber"`
	Topic      string `json:"topic"`
	Count      int64  `json:"count"`
}

const healthBacklogSQL = `
SELECT d.subscriber, e.topic, count(*), count(*) FILTER (WHERE d.available_at <= now()),` + oldestDueAgeSQL + `
FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
WHERE d.state IN ('pending', 'running')
GROUP BY 1, 2 ORDER BY 1, 2`

const healthDeadSQL = `
SELECT d.subscriber, e.topic, count(*)
FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
WHERE d.state = 'dead'
GROUP BY 1, 2 ORDER BY 1, 2`

const healthBlockedSQL = `
SELECT count(DISTINCT (subscriber, ordering_key)) FROM outbox_deliveries WHERE ordered AND state = 'dead'`

const healthRateSQL = `
SELECT m, coalesce(n, 0)::int
FROM generate_series(date_trunc('minute', now()) - interval '59 minutes', date_trunc('minute', now()), interval '1 minute') AS m
LEFT JOIN (
    SELECT minute, sum(delivered) AS n
    FROM outbox_delivery_stats
    WHERE minute >= date_trunc('minute', now()) - interval '59 minutes'
    GROUP BY 1) r ON r.minute = m
ORDER BY m`

// ReadHealth reads the outbox's health figures in one repeatable-read,
// read-only transaction. The backlog and dead queries read only the partial
// indexes of unfinished and dead work; the rate reads the last hour of
// outbox_delivery_stats.
func ReadHealth(ctx context.Context, pool *pgxpool.Pool) (Health, error) {
	h := Health{Backlog: []TopicBacklog{}, Dead: []TopicCount{}}
	err := pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, healthBacklogSQL)
		if err != nil {
			return err
		}
		if h.Backlog, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (TopicBacklog, error) {
			var b TopicBacklog
			return b, r.Scan(&b.Subscriber, &b.Topic, &b.Pending, &b.Due, &b.OldestAgeSeconds)
		}); err != nil {
			return err
		}
		if rows, err = tx.Query(ctx, healthDeadSQL); err != nil {
			return err
		}
		if h.Dead, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (TopicCount, error) {
			var c TopicCount
			return c, r.Scan(&c.Subscriber, &c.Topic, &c.Count)
		}); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, healthBlockedSQL).Scan(&h.BlockedKeys); err != nil {
			return err
		}
		if rows, err = tx.Query(ctx, healthRateSQL); err != nil {
			return err
		}
		var minute time.Time
		var n int
		_, err = pgx.ForEachRow(rows, []any{&minute, &n}, func() error {
			h.DeliveredPerMinute = append(h.DeliveredPerMinute, n)
			return nil
		})
		return err
	})
	if err != nil {
		return Health{}, fmt.Errorf("read outbox health: %w", err)
	}
	return h, nil
}
