-- A teacher's webhook endpoints, each statement answering the whole row
-- (WebhookEndpoint; the caller shows the secret only where it may). Every statement is scoped to the owning
-- teacher: another teacher's endpoint is no row.

-- InsertEndpoint registers an endpoint created at now (the database's now()
-- when null).
-- name: InsertEndpoint :one
INSERT INTO webhook_endpoints (teacher_id, url, secret, topics, created_at)
VALUES (sqlc.arg(teacher_id), sqlc.arg(url), sqlc.arg(secret), sqlc.arg(topics), coalesce(sqlc.narg(now)::timestamptz, now()))
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
