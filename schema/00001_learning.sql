-- Users, classes, decks, lexemes, assignments, cards and the review log.

-- +goose Up
CREATE TABLE users (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email        text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) BETWEEN 3 AND 254),
    display_name text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 200),
    role         text NOT NULL CHECK (role IN ('learner', 'teacher', 'operator')),
    -- IANA time zone name; streaks and "today" are computed in it.
    timezone     text NOT NULL DEFAULT 'UTC',
    created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE classes (
    id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    teacher_id uuid NOT NULL REFERENCES users (id),
    name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX classes_teacher_id ON classes (teacher_id);

CREATE TABLE class_members (
    class_id   uuid NOT NULL REFERENCES classes (id) ON DELETE CASCADE,
    learner_id uuid NOT NULL REFERENCES users (id),
    joined_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (class_id, learner_id)
);
CREATE INDEX class_members_learner_id ON class_members (learner_id);

CREATE TABLE lexemes (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    lemma          text NOT NULL,
    part_of_speech text NOT NULL CHECK (part_of_speech IN ('noun', 'verb', 'adjective', 'adverb')),
    definition     text NOT NULL,
    example        text NOT NULL DEFAULT '',
    -- Where the entry comes from, e.g. 'wordnet-3.0'.
    source         text NOT NULL,
    UNIQUE (lemma, part_of_speech)
);

-- A deck without an owner belongs to the shared library every teacher may assign.
CREATE TABLE decks (
    id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    owner_id    uuid REFERENCES users (id),
    title       text NOT NULL UNIQUE CHECK (length(title) BETWEEN 1 AND 200),
    description text NOT NULL DEFAULT '',
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE deck_items (
    deck_id   uuid NOT NULL REFERENCES decks (id) ON DELETE CASCADE,
    lexeme_id uuid NOT NULL REFERENCES lexemes (id),
    position  integer NOT NULL,
    PRIMARY KEY (deck_id, lexeme_id),
    UNIQUE (deck_id, position)
);

CREATE TABLE assignments (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    deck_id      uuid NOT NULL REFERENCES decks (id),
    learner_id   uuid NOT NULL REFERENCES users (id),
    teacher_id   uuid NOT NULL REFERENCES users (id),
    due_at       timestamptz NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    UNIQUE (deck_id, learner_id)
);
CREATE INDEX assignments_learner_id ON assignments (learner_id);
CREATE INDEX assignments_teacher_id ON assignments (teacher_id);

-- FSRS-6 memory state of one lexeme for one learner. Columns mirror
-- learning.Card: stability in days, difficulty in [1, 10], state 0 New,
-- 1 Learning, 2 Review, 3 Relearning.
CREATE TABLE cards (
    id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    learner_id     uuid NOT NULL REFERENCES users (id),
    lexeme_id      uuid NOT NULL REFERENCES lexemes (id),
    state          smallint NOT NULL DEFAULT 0 CHECK (state BETWEEN 0 AND 3),
    due            timestamptz NOT NULL,
    stability      double precision NOT NULL DEFAULT 0,
    difficulty     double precision NOT NULL DEFAULT 0,
    elapsed_days   integer NOT NULL DEFAULT 0,
    scheduled_days integer NOT NULL DEFAULT 0,
    reps           integer NOT NULL DEFAULT 0,
    lapses         integer NOT NULL DEFAULT 0,
    step           integer NOT NULL DEFAULT 0,
    last_review    timestamptz,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    UNIQUE (learner_id, lexeme_id)
);
CREATE INDEX cards_learner_due ON cards (learner_id, due);

-- Append-only: one row per review, never updated or deleted.
CREATE TABLE review_log (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    card_id        uuid NOT NULL REFERENCES cards (id),
    learner_id     uuid NOT NULL REFERENCES users (id),
    rating         smallint NOT NULL CHECK (rating BETWEEN 1 AND 4),
    state_before   smallint NOT NULL CHECK (state_before BETWEEN 0 AND 3),
    due_before     timestamptz NOT NULL,
    state_after    smallint NOT NULL CHECK (state_after BETWEEN 0 AND 3),
    due_after      timestamptz NOT NULL,
    stability      double precision NOT NULL,
    difficulty     double precision NOT NULL,
    elapsed_days   integer NOT NULL,
    scheduled_days integer NOT NULL,
    reviewed_at    timestamptz NOT NULL
);
CREATE INDEX review_log_card_id ON review_log (card_id);
CREATE INDEX review_log_learner_reviewed ON review_log (learner_id, reviewed_at);

-- +goose StatementBegin
CREATE FUNCTION review_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'review_log is append-only (% refused)', TG_OP;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER review_log_append_only
    BEFORE UPDATE OR DELETE ON review_log
    FOR EACH ROW EXECUTE FUNCTION review_log_append_only();

-- +goose Down
DROP TABLE review_log;
DROP FUNCTION review_log_append_only();
DROP TABLE cards;
DROP TABLE assignments;
DROP TABLE deck_items;
DROP TABLE decks;
DROP TABLE lexemes;
DROP TABLE class_members;
DROP TABLE classes;
DROP TABLE users;
