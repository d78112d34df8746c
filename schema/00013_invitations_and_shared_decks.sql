-- A learner in several teachers' classes: each teacher assigns and tracks
-- their own copy of a deck, and invitations are remembered so that a
-- teacher cannot email the same learner about the same class again and
-- again.

-- +goose Up
ALTER TABLE assignments DROP CONSTRAINT assignments_deck_id_learner_id_key,
    ADD CONSTRAINT assignments_deck_id_learner_id_teacher_id_key UNIQUE (deck_id, learner_id, teacher_id);

CREATE TABLE class_invitations (
    class_id   uuid NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    learner_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    invited_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (class_id, learner_id)
);

-- +goose Down
DROP TABLE class_invitations;
ALTER TABLE assignments DROP CONSTRAINT assignments_deck_id_learner_id_teacher_id_key,
    ADD CONSTRAINT assignments_deck_id_learner_id_key UNIQUE (deck_id, learner_id);
