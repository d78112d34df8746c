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

-- One row per (event, subscriber) still to deliver. States: pending
-- (waiting, possibly after a failure), running (leased to a worker until
-- available_at), dead (failed for good, kept until an operator replays or
-- skips it). A delivered row is deleted by its acknowledgement (and a skipped
-- one by the skip, recorded in outbox_audit): a DELETE writes no new tuple
-- and no index entries, about a fifth of the cost of an UPDATE to a
-- "delivered" state, and keeps the table the size of the backlog. The event
-- itself stays in outbox_events until the prune job removes it.
-- A running row whose lease has expired is claimable again, so the claim
-- condition is one range over the partial index below:
-- state IN ('pending', 'running') AND available_at <= now().
CREATE TABLE outbox_deliveries (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    event_id     bigint NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
    subscriber   text NOT NULL,
    -- Copied from the event; with ordered = true the delivery waits until
    -- every earlier delivery of the same (subscriber, ordering_key) is
    -- delivered or skipped (its row gone).
    ordering_key text NOT NULL DEFAULT '',
    ordered      boolean NOT NULL DEFAULT false,
    state        text NOT NULL DEFAULT 'pending'
                 CHECK (state IN ('pending', 'running', 'dead')),
    -- Attempts started so far; a claim counts as an attempt, so a worker that
    -- dies mid-handler still uses one up.
    attempts     integer NOT NULL DEFAULT 0,
    -- How many times an operator replayed this delivery from the dead.
    replays      integer NOT NULL DEFAULT 0,
    -- pending: earliest next claim; running: lease expiry. Database clock.
    available_at timestamptz NOT NULL DEFAULT now(),
    lease_token  uuid,
    last_error   text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    UNIQUE (event_id, subscriber)
);

-- The claim reads only this index: its size is the backlog, not the history.
CREATE INDEX outbox_deliveries_claimable ON outbox_deliveries (available_at, id)
    WHERE state IN ('pending', 'running');
-- Ordered claims look for an unfinished predecessor of the same key.
CREATE INDEX outbox_deliveries_key_heads ON outbox_deliveries (subscriber, ordering_key, id)
    WHERE ordered AND state IN ('pending', 'running', 'dead');
-- Dead letters are listed by operators and counted by the health figures.
CREATE INDEX outbox_deliveries_dead ON outbox_deliveries (finished_at)
    WHERE state = 'dead';
-- Deliveries per minute and subscriber, counted by each acknowledgement
-- statement (one upsert per batch), for the health figures. Pruned after a
-- few days.
CREATE TABLE outbox_delivery_stats (
    minute     timestamptz NOT NULL,
    subscriber text NOT NULL,
    delivered  bigint NOT NULL,
    PRIMARY KEY (minute, subscriber)
);

-- Every delivery row is inserted, updated by its claim (and retries), and
-- deleted: the table churns constantly, so vacuum it after 2% of rows change
-- rather than 20%, without throttling, so that dead tuples never pile up in
-- the claim's index range. fillfactor leaves room for the updates of rows
-- that retry.
ALTER TABLE outbox_deliveries SET (
    fillfactor = 80,
    autovacuum_vacuum_scale_factor = 0.02,
    autovacuum_vacuum_insert_scale_factor = 0.02,
    autovacuum_analyze_scale_factor = 0.02,
    autovacuum_vacuum_cost_delay = 0
);
ALTER TABLE outbox_events SET (
    autovacuum_vacuum_scale_factor = 0.05,
    autovacuum_vacuum_cost_delay = 0
);

-- Every replay and skip of a dead delivery, by whom and why.
CREATE TABLE outbox_audit (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id bigint NOT NULL,
    event_id    uuid NOT NULL,
    subscriber  text NOT NULL,
    action      text NOT NULL CHECK (action IN ('replay', 'skip')),
    actor       text NOT NULL,
    reason      text NOT NULL DEFAULT '',
    last_error  text,
    attempts    integer NOT NULL,
    at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_audit_delivery_id ON outbox_audit (delivery_id);

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
DROP TABLE outbox_delivery_stats;
DROP TABLE outbox_audit;
DROP TABLE outbox_processed;
DROP TABLE outbox_deliveries;
DROP TABLE outbox_events;
