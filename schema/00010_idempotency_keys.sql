-- Idempotency-Key records of the HTTP functions: the first request with a
-- key stores its response in its own transaction; retries get it back.

-- +goose Up
CREATE TABLE idempotency_keys (
    scope        text NOT NULL,   -- the function and the acting user
    key          text NOT NULL,
    request_hash bytea NOT NULL,  -- SHA-256 of the decoded request
    status       integer,
    response     bytea,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
CREATE INDEX idempotency_keys_created_at ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
