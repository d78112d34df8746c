-- A teacher has at most one active endpoint per URL: a second one sent the
-- receiver every event twice, each signed with another secret (so one copy
-- failed its check). Registering a URL again answers 409
-- (webhooks.ErrDuplicateURL); so does re-enabling a disabled endpoint whose
-- URL has an active one. A disabled endpoint (its receiver answered 410
-- Gone, or it was disabled below) does not count: its owner may register
-- the URL afresh instead of re-enabling it.
--
-- Duplicates registered before: per (teacher, URL) the active endpoint whose
-- receiver last accepted an event stays active (its secret is the one the
-- receiver checks), else the newest (registered again because the first
-- secret was lost); the others are disabled with a reason naming the one
-- kept, so that their owner sees them and their attempts are kept. Down
-- drops the index and leaves them disabled (nothing says which were).

-- +goose Up
WITH ranked AS (
    SELECT w.id,
        first_value(w.id) OVER (PARTITION BY w.teacher_id, w.url
                                ORDER BY a.last_accepted DESC NULLS LAST, w.created_at DESC, w.id DESC) AS kept
    FROM webhook_endpoints w
    LEFT JOIN LATERAL (SELECT max(at) AS last_accepted FROM webhook_attempts
                       WHERE endpoint_id = w.id AND accepted) a ON true
    WHERE w.disabled_at IS NULL
)
UPDATE webhook_endpoints w
SET disabled_at = now(),
    disabled_reason = 'a duplicate of endpoint ' || r.kept || ', which has the same URL and stays active'
FROM ranked r
WHERE w.id = r.id AND r.id <> r.kept;
CREATE UNIQUE INDEX webhook_endpoints_active_url ON webhook_endpoints (teacher_id, url) WHERE disabled_at IS NULL;

-- +goose Down
DROP INDEX webhook_endpoints_active_url;
