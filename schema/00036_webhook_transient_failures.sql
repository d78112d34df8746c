-- An endpoint's transient failures (ListWebhookEndpoints' health): a 5xx,
-- 429 or 408, a timeout or a network error is no answer to an event, so it
-- leaves no webhook_attempts row (the outbox retries the delivery, and the
-- redelivery rules read only answers); without a record an endpoint whose
-- receiver is down for every delivery looked healthy or unused.
--
-- webhook_endpoints.last_transient_error ("status 503 Service
-- Unavailable", "timed out after 10s", "connection refused") and
-- last_transient_error_at: the latest such failure, kept after the endpoint
-- recovers (as its latest rejection is). transient_failures_in_row: the
-- failed attempts since its latest accepted delivery (each retry of one
-- delivery counts), set back to 0 by an accepted one, counted up to
-- webhooks.FailuresCounted. They are on the endpoint, not per event: one
-- row per endpoint, updated in place (one row lock by failed attempt), so
-- the health query reads them with the endpoint, and the table of answers
-- keeps its meaning. The release before ignores the columns.

-- +goose Up
ALTER TABLE webhook_endpoints
    ADD COLUMN last_transient_error text,
    ADD COLUMN last_transient_error_at timestamptz,
    ADD COLUMN transient_failures_in_row integer NOT NULL DEFAULT 0 CHECK (transient_failures_in_row >= 0);

-- +goose Down
ALTER TABLE webhook_endpoints
    DROP COLUMN transient_failures_in_row,
    DROP COLUMN last_transient_error_at,
    DROP COLUMN last_transient_error;
