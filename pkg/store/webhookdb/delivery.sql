-- Webhook deliveries: which endpoints an event goes to, and each endpoint's
-- outcome (webhook_attempts).

-- name: DeliveryEndpoints :many
-- The teacher's active endpoints subscribed to topic that have neither
-- accepted the event nor rejected it since the delivery's replays-th replay,
-- each with its signing secrets: the current one first, then a rotated one
-- still in its overlap at now (the database's now() when null).
SELECT w.id, w.url,
    array_remove(ARRAY[w.secret, CASE WHEN w.previous_secret_expires_at > coalesce(sqlc.narg('now')::timestamptz, now())
                                      THEN w.previous_secret END], NULL)::text[] AS secrets
FROM webhook_endpoints w
WHERE w.teacher_id = @teacher_id AND w.disabled_at IS NULL
  AND (cardinality(w.topics) = 0 OR @topic::text = ANY (w.topics))
  AND NOT EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.endpoint_id = w.id AND a.event_id = @event_id
                  AND (a.accepted OR a.replays >= @replays::integer))
ORDER BY w.id;

-- name: RecordAttempt :exec
-- Records an endpoint's answer to an event; an accepted record is never
-- overwritten.
INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted, replays)
VALUES (@endpoint_id, @event_id, @status, @accepted, @replays)
ON CONFLICT (endpoint_id, event_id) DO UPDATE
SET status = excluded.status, accepted = excluded.accepted, replays = excluded.replays, at = now()
WHERE NOT webhook_attempts.accepted;

-- name: DisableEndpoint :exec
UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = @reason::text
WHERE id = @id AND disabled_at IS NULL;
