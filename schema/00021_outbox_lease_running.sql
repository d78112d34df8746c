-- A delivery holds a lease token exactly while it is running: the claim
-- sets both in one statement, and every write that leaves 'running' (a
-- failure, a release) clears the token, or deletes the row (an
-- acknowledgement). The drain's writes find their leases by (id,
-- lease_token) without testing the state (pkg/outbox, heldSQL, where the
-- reason is measured): this check is what makes a token mean a running
-- delivery. Rows that hold a token in another state (none is written so) lose it.

-- +goose Up
UPDATE outbox_deliveries SET lease_token = NULL WHERE state <> 'running' AND lease_token IS NOT NULL;
ALTER TABLE outbox_deliveries ADD CONSTRAINT outbox_deliveries_lease_running
    CHECK ((lease_token IS NOT NULL) = (state = 'running'));

-- +goose Down
ALTER TABLE outbox_deliveries DROP CONSTRAINT outbox_deliveries_lease_running;
