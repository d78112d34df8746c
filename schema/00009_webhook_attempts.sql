-- A rejection (4xx) is remembered with the delivery's replay count, so that
-- an operator's replay of the dead delivery sends to the endpoint again while
-- retries of the same delivery do not.

-- +goose Up
ALTER TABLE webhook_attempts ADD COLUMN replays integer NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE webhook_attempts DROP COLUMN replays;
