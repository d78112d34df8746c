-- The daily study reminder: one chain per learner, each reminder event
-- scheduling the next. The row names the current link, so that a stray
-- second chain stops at its next link.

-- +goose Up
CREATE TABLE learner_reminders (
    learner_id uuid PRIMARY KEY REFERENCES users (id),
    event_id   uuid NOT NULL,
    next_at    timestamptz NOT NULL
);

-- +goose Down
DROP TABLE learner_reminders;
