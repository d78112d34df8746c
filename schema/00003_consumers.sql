-- Tables owned by the downstream consumers (pkg/consumers).

-- +goose Up
-- Progress projection, one row per assignment. cards_learned counts the
-- assignment's cards currently in the FSRS Review state.
CREATE TABLE assignment_progress (
    assignment_id uuid PRIMARY KEY REFERENCES assignments (id) ON DELETE CASCADE,
    learner_id    uuid NOT NULL REFERENCES users (id),
    cards_total   integer NOT NULL DEFAULT 0,
    cards_seen    integer NOT NULL DEFAULT 0,
    cards_learned integer NOT NULL DEFAULT 0,
    reviews       integer NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX assignment_progress_learner_id ON assignment_progress (learner_id);

-- Reviews per local day (the learner's time zone) and assignment.
CREATE TABLE assignment_daily_reviews (
    assignment_id uuid NOT NULL REFERENCES assignments (id) ON DELETE CASCADE,
    day           date NOT NULL,
    reviews       integer NOT NULL DEFAULT 0,
    PRIMARY KEY (assignment_id, day)
);

-- One row per email accepted by the SMTP server, keyed like the dedup record.
CREATE TABLE email_sends (
    subscriber text NOT NULL,
    event_id   uuid NOT NULL,
    message_id text NOT NULL UNIQUE,
    recipient  text NOT NULL,
    subject    text NOT NULL,
    sent_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (subscriber, event_id)
);

-- +goose Down
DROP TABLE email_sends;
DROP TABLE assignment_daily_reviews;
DROP TABLE assignment_progress;
