-- The transactional outbox: events, one delivery per (event, subscriber), and
-- the dedup records of idempotent consumers. See pkg/outbox.

-- +goose Up
CREATE TABLE outbox_events (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- Stable idempotency key every consumer sees.
    event_id     uuid NOT NULL UNIQUE,
    topic        text NOT NULL CHECK (length(topic) BETWEEN 1 AND 200),
    ordering_key text NOT NULL DEFAULT '',
    payload      jsonb NOT NULL,
    headers      jsonb NOT NULL DEFAULT '{}',
    -- Deliveries are not handed out before this instant (reminders).
    not_before   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_events_created_at ON outbox_events (created_at);

-- States: pending (waiting, possibly after a failure), running (leased to a
-- worker until available_at), delivered, dead. A running row whose lease has
-- expired is claimable again, so the claim condition is one range over the
-- partial index below: state IN ('pending', 'running') AND available_at <= now().
-- Deliveries are updated several times each, so leave room for HOT updates.
CREATE TABLE outbox_deliveries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     bigint NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
    subscriber   text NOT NULL,
    state        text NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'running', 'delivered', 'dead')),
    -- Attempts started so far; a claim counts as an attempt, so a worker that
    -- dies mid-handler still uses one up.
    attempts     integer NOT NULL DEFAULT 0,
    -- pending: earliest next claim; running: lease expiry. Database clock.
    available_at timestamptz NOT NULL DEFAULT now(),
    lease_token  uuid,
    last_error   text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    UNIQUE (event_id, subscriber)
) WITH (fillfactor = 80);

-- The claim reads only this index: its size is the backlog, not the history.
CREATE INDEX outbox_deliveries_claimable ON outbox_deliveries (available_at, id)
    WHERE state IN ('pending', 'running');
CREATE INDEX outbox_deliveries_dead ON outbox_deliveries (finished_at)
    WHERE state = 'dead';

-- Idempotent consumers record (subscriber, event) first in their own
-- transaction; the key includes the subscriber so that one subscriber's record
-- never hides the event from another.
CREATE TABLE outbox_processed (
    subscriber   text NOT NULL,
    event_id     uuid NOT NULL,
    processed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (subscriber, event_id)
);
CREATE INDEX outbox_processed_processed_at ON outbox_processed (processed_at);

-- +goose Down
DROP TABLE outbox_processed;
DROP TABLE outbox_deliveries;
DROP TABLE outbox_events;
