-- Teacher webhooks, signed per the Standard Webhooks specification.

-- +goose Up
CREATE TABLE webhook_endpoints (
    id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    teacher_id      uuid NOT NULL REFERENCES users (id),
    url             text NOT NULL CHECK (length(url) BETWEEN 8 AND 2000),
    -- "whsec_" + base64 of 32 random bytes; shown to the teacher once.
    secret          text NOT NULL,
    -- Event types sent to this endpoint; empty means every type.
    topics          text[] NOT NULL DEFAULT '{}',
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- Set when the receiver answered 410 Gone, or by its owner.
    disabled_at     timestamptz,
    disabled_reason text
);
CREATE INDEX webhook_endpoints_teacher_id ON webhook_endpoints (teacher_id);

-- One row per event a receiver accepted (2xx) or rejected for good (4xx).
CREATE TABLE webhook_attempts (
    endpoint_id uuid NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
    event_id    uuid NOT NULL,
    status      integer NOT NULL,
    accepted    boolean NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (endpoint_id, event_id)
);

-- +goose Down
DROP TABLE webhook_attempts;
DROP TABLE webhook_endpoints;
