-- Self-study: the library decks a learner started on their own (StartDeck),
-- without a teacher. Starting a deck gives the learner its cards; this row
-- records that, and when.

-- +goose Up
CREATE TABLE learner_decks (
    learner_id uuid NOT NULL REFERENCES users (id),
    deck_id    uuid NOT NULL REFERENCES decks (id),
    started_at timestamptz NOT NULL,
    PRIMARY KEY (learner_id, deck_id)
);

-- +goose Down
DROP TABLE learner_decks;
