-- A rotated webhook secret keeps signing, beside the new one, until its
-- expiry, so that a receiver can switch secrets without rejecting
-- deliveries (Standard Webhooks: several space-separated signatures).

-- +goose Up
ALTER TABLE webhook_endpoints
    ADD COLUMN previous_secret text,
    ADD COLUMN previous_secret_expires_at timestamptz,
    ADD CONSTRAINT webhook_endpoints_previous_secret_expiry
        CHECK ((previous_secret IS NULL) = (previous_secret_expires_at IS NULL));

-- +goose Down
ALTER TABLE webhook_endpoints
    DROP CONSTRAINT webhook_endpoints_previous_secret_expiry,
    DROP COLUMN previous_secret_expires_at,
    DROP COLUMN previous_secret;
