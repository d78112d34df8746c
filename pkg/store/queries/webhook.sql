-- Webhooks. First a teacher's endpoints, each statement answering the whole
-- row (WebhookEndpoint; the caller shows the secret only where it may) and
-- scoped to the owning teacher: another teacher's endpoint is no row. Then
-- the webhook subscriber's deliveries.

-- InsertEndpoint registers an endpoint created at now (the database's now()
-- when null); no row when the teacher has an active endpoint at url
-- already (webhook_endpoints_active_url; a concurrent registration of it
-- waits for the other's commit, then inserts nothing).
-- name: InsertEndpoint :one
INSERT INTO webhook_endpoints (teacher_id, url, secret, topics, created_at)
VALUES (sqlc.arg(teacher_id), sqlc.arg(url), sqlc.arg(secret), sqlc.arg(topics), coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (teacher_id, url) WHERE disabled_at IS NULL DO NOTHING
RETURNING id, created_at;

-- name: ListEndpoints :many
SELECT * FROM webhook_endpoints WHERE teacher_id = $1 ORDER BY created_at, id;

-- RotateSecret replaces the secret; the previous one keeps signing until
-- now + overlap_secs (now: the database's now() when null), or stops at once
-- when revoke_previous.
-- name: RotateSecret :one
UPDATE webhook_endpoints
SET previous_secret = CASE WHEN sqlc.arg(revoke_previous)::boolean THEN NULL ELSE secret END,
    previous_secret_expires_at = CASE WHEN sqlc.arg(revoke_previous)::boolean THEN NULL
        ELSE coalesce(sqlc.narg(now)::timestamptz, now()) + make_interval(secs => sqlc.arg(overlap_secs)::double precision) END,
    secret = sqlc.arg(secret)
WHERE id = sqlc.arg(endpoint_id) AND teacher_id = sqlc.arg(teacher_id)
RETURNING *;

-- name: EnableEndpoint :one
UPDATE webhook_endpoints SET disabled_at = NULL, disabled_reason = NULL
WHERE id = sqlc.arg(endpoint_id) AND teacher_id = sqlc.arg(teacher_id)
RETURNING *;

-- name: DeleteEndpoint :one
DELETE FROM webhook_endpoints WHERE id = sqlc.arg(endpoint_id) AND teacher_id = sqlc.arg(teacher_id)
RETURNING *;

-- Webhook deliveries (the webhook subscriber's): which endpoints an event
-- goes to, and each endpoint's outcome (webhook_attempts).

-- name: DeliveryEndpoints :many
-- The teacher's active endpoints subscribed to topic that have not accepted
-- the event, each with its signing secrets (the current one first, then a
-- rotated one still in its overlap at now, the database's now() when null)
-- and rejected_status: the status with which it rejected the event since the
-- delivery's replays-th replay (not to be sent again before the next
-- replay, but still a rejection), or 0.
SELECT w.id, w.url,
    array_remove(ARRAY[w.secret, CASE WHEN w.previous_secret_expires_at > coalesce(sqlc.narg('now')::timestamptz, now())
                                      THEN w.previous_secret END], NULL)::text[] AS secrets,
    (CASE WHEN a.replays >= @replays::integer THEN a.status ELSE 0 END)::integer AS rejected_status
FROM webhook_endpoints w
LEFT JOIN webhook_attempts a ON a.endpoint_id = w.id AND a.event_id = @event_id
WHERE w.teacher_id = @teacher_id AND w.disabled_at IS NULL
  AND (cardinality(w.topics) = 0 OR @topic::text = ANY (w.topics))
  AND a.accepted IS NOT TRUE
ORDER BY w.id;

-- name: RecordWebhookAttempt :exec
-- Records an endpoint's answer to an event at now (the database's now() when
-- null); an accepted record is never overwritten. An accepted answer also
-- ends the endpoint's run of transient failures (transient_failures_in_row
-- back to 0; the row is written only when it was not 0 already).
WITH recovered AS (
    UPDATE webhook_endpoints SET transient_failures_in_row = 0
    WHERE id = @endpoint_id AND @accepted::boolean AND transient_failures_in_row > 0
)
INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted, replays, at)
VALUES (@endpoint_id, @event_id, @status, @accepted, @replays, coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (endpoint_id, event_id) DO UPDATE
SET status = excluded.status, accepted = excluded.accepted, replays = excluded.replays, at = excluded.at
WHERE NOT webhook_attempts.accepted;

-- name: RecordTransientFailure :exec
-- Records a failed attempt that is no answer (a 5xx, 429 or 408, a timeout,
-- a network error; reason says which) at now (the database's now() when
-- null): the endpoint's latest transient error, and one more failure in a
-- row, counted up to max_failures. webhook_attempts is not written, so the
-- delivery's redelivery rules do not change.
UPDATE webhook_endpoints
SET last_transient_error = @reason::text, last_transient_error_at = coalesce(sqlc.narg(now)::timestamptz, now()),
    transient_failures_in_row = least(transient_failures_in_row + 1, @max_failures::integer)
WHERE id = @endpoint_id;

-- name: DisableEndpoint :exec
-- Disables the endpoint at now (the database's now() when null).
UPDATE webhook_endpoints SET disabled_at = coalesce(sqlc.narg(now)::timestamptz, now()), disabled_reason = @reason::text
WHERE id = @endpoint_id AND disabled_at IS NULL;

-- Each endpoint's health, read from its attempts (webhook_attempts: one row
-- per event it accepted, 2xx, or rejected, 4xx; a 5xx, timeout or network
-- error leaves none and the outbox retries the delivery: those are counted on
-- the endpoint's row, RecordTransientFailure, which ListEndpoints reads).

-- name: EndpointHealth :many
-- The teacher's endpoints, oldest first, each with its latest accepted
-- attempt (ok) and latest rejected one (bad), and how many rejections came
-- after that acceptance (all of them when it never accepted), counted up to
-- max_failures. Each is found by a backward range scan of a partial index
-- (webhook_attempts_accepted, _rejected) by endpoint that stops at its
-- first row (or at max_failures rows), then joined by its primary key.
SELECT w.id, ok.at AS accepted_at, bad.at AS rejected_at, bad.status AS rejected_status,
    (SELECT count(*) FROM (SELECT 1 FROM webhook_attempts f
                           WHERE f.endpoint_id = w.id AND NOT f.accepted AND f.at > coalesce(ok.at, '-infinity')
                           ORDER BY f.at DESC LIMIT @max_failures::integer) run)::integer AS failures_in_row
FROM webhook_endpoints w
LEFT JOIN webhook_attempts ok ON ok.endpoint_id = w.id
    AND ok.event_id = (SELECT a.event_id FROM webhook_attempts a WHERE a.endpoint_id = w.id AND a.accepted ORDER BY a.at DESC LIMIT 1)
LEFT JOIN webhook_attempts bad ON bad.endpoint_id = w.id
    AND bad.event_id = (SELECT a.event_id FROM webhook_attempts a WHERE a.endpoint_id = w.id AND NOT a.accepted ORDER BY a.at DESC LIMIT 1)
WHERE w.teacher_id = @teacher_id
ORDER BY w.created_at, w.id;

-- name: EndpointOwners :many
-- The endpoints of ids that exist, each with its URL and its teacher's name
-- and email (an operator's dead letters name them).
SELECT w.id, w.url, u.display_name AS teacher_name, u.email AS teacher_email
FROM webhook_endpoints w JOIN users u ON u.id = w.teacher_id
WHERE w.id = ANY (@ids::uuid[])
ORDER BY w.id;
