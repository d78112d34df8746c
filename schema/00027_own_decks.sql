-- A teacher's own decks (issue 26, pkg/decks): a title unique per owner,
-- the languages of the terms and of the meanings (BCP 47 tags), a version
-- for optimistic concurrency, an archive mark; and entries written by the
-- teacher.
--
-- An entry of an own deck is a lexemes row owned by the deck (deck_id):
-- cards stay keyed on lexeme_id, so the schedule, reviews, undo, progress
-- and hardest words keep working unchanged, and an edit of the entry's text
-- (lemma = term, definition = meaning, example, part_of_speech) keeps every
-- learner's card and review history. The WordNet library's rows have no
-- deck_id and keep their rules: one of four parts of speech, unique
-- (lemma, part_of_speech) among themselves. An own entry's part of speech
-- is free text or '' (none). Its term is unique in its deck, compared
-- case-folded (term_key, written by pkg/decks: Unicode NFC, then full case
-- folding). A removed entry keeps its row (removed_at) because cards and
-- their review log reference it; it leaves deck_items, hence every deck-
-- and assignment-scoped read (progress, completion, hardest words), and
-- schedule_cards, replaced below, leaves its cards out of every schedule:
-- the cards are retired, not deleted. Its version counts the edits of its
-- text, so an edit based on an older version is refused (pkg/decks
-- ConflictError) instead of silently undoing another.
--
-- Down fails, on purpose, when own entries with a part of speech outside
-- WordNet's four, or two decks with one title, exist: it would otherwise
-- have to delete a teacher's words.

-- +goose Up
ALTER TABLE decks
    DROP CONSTRAINT decks_title_key,
    ADD COLUMN term_language    text NOT NULL DEFAULT 'en' CHECK (length(term_language) BETWEEN 2 AND 35),
    ADD COLUMN meaning_language text NOT NULL DEFAULT 'en' CHECK (length(meaning_language) BETWEEN 2 AND 35),
    ADD COLUMN version          integer NOT NULL DEFAULT 1 CHECK (version > 0),
    ADD COLUMN archived_at      timestamptz,
    ADD COLUMN copied_from      uuid REFERENCES decks (id) ON DELETE SET NULL,
    ADD COLUMN updated_at       timestamptz NOT NULL DEFAULT now(),
    ADD CONSTRAINT decks_description_length CHECK (char_length(description) <= 2000),
    ADD CONSTRAINT decks_library_not_archived CHECK (owner_id IS NOT NULL OR archived_at IS NULL);
CREATE UNIQUE INDEX decks_library_title ON decks (title) WHERE owner_id IS NULL;
CREATE UNIQUE INDEX decks_owner_title ON decks (owner_id, title) WHERE owner_id IS NOT NULL;

ALTER TABLE lexemes
    DROP CONSTRAINT lexemes_lemma_part_of_speech_key,
    DROP CONSTRAINT lexemes_part_of_speech_check,
    ADD COLUMN deck_id    uuid REFERENCES decks (id) ON DELETE CASCADE,
    ADD COLUMN term_key   text,
    ADD COLUMN version    integer NOT NULL DEFAULT 1 CHECK (version > 0),
    ADD COLUMN removed_at timestamptz,
    ADD COLUMN updated_at timestamptz,
    ADD CONSTRAINT lexemes_part_of_speech_check
        CHECK (deck_id IS NOT NULL OR part_of_speech IN ('noun', 'verb', 'adjective', 'adverb')),
    ADD CONSTRAINT lexemes_entry CHECK (deck_id IS NULL AND term_key IS NULL AND removed_at IS NULL
        OR deck_id IS NOT NULL AND term_key IS NOT NULL AND char_length(lemma) BETWEEN 1 AND 200
           AND char_length(definition) BETWEEN 1 AND 1000 AND char_length(example) <= 500
           AND char_length(part_of_speech) <= 50);
CREATE UNIQUE INDEX lexemes_library_key ON lexemes (lemma, part_of_speech) WHERE deck_id IS NULL;
-- A teacher typing a term is offered the library's entries of it
-- (store.LibraryEntriesOf), case-insensitively.
CREATE INDEX lexemes_library_lemma ON lexemes (lower(lemma)) WHERE deck_id IS NULL;
-- One live entry per term in a deck; a removed entry frees its term.
CREATE UNIQUE INDEX lexemes_deck_term ON lexemes (deck_id, term_key) WHERE removed_at IS NULL;
-- The retired lexemes, few: schedule_cards anti-joins them. EXPLAIN of
-- DueCards (a learner with 2,074 due cards of 419,015, 200 lexemes
-- retired): still inlined, an Index Scan on cards_learner_due, the
-- anti-join an Index Only Scan of this index per card (11 ms with the
-- count over every due card, as before).
CREATE INDEX lexemes_removed ON lexemes (id) WHERE removed_at IS NOT NULL;

-- Every statement that reads the learners who have a deck (pkg/decks'
-- fan-out of a new entry) starts from the deck.
CREATE INDEX assignments_deck_id ON assignments (deck_id);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION schedule_cards(learner uuid, assignment uuid, teacher uuid) RETURNS SETOF cards
LANGUAGE sql STABLE AS $$
    SELECT c.* FROM cards c
    WHERE c.learner_id = learner AND NOT c.suspended
      AND NOT EXISTS (SELECT 1 FROM lexemes r WHERE r.id = c.lexeme_id AND r.removed_at IS NOT NULL)
      AND (assignment IS NULL AND teacher IS NULL OR c.lexeme_id IN (
          SELECT di.lexeme_id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
          WHERE a.learner_id = learner AND (assignment IS NULL OR a.id = assignment)
            AND (teacher IS NULL OR a.teacher_id = teacher)))
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION schedule_cards(learner uuid, assignment uuid, teacher uuid) RETURNS SETOF cards
LANGUAGE sql STABLE AS $$
    SELECT c.* FROM cards c
    WHERE c.learner_id = learner AND NOT c.suspended
      AND (assignment IS NULL AND teacher IS NULL OR c.lexeme_id IN (
          SELECT di.lexeme_id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
          WHERE a.learner_id = learner AND (assignment IS NULL OR a.id = assignment)
            AND (teacher IS NULL OR a.teacher_id = teacher)))
$$;
-- +goose StatementEnd
DROP INDEX assignments_deck_id;
DROP INDEX lexemes_removed;
DROP INDEX lexemes_deck_term;
DROP INDEX lexemes_library_lemma;
DROP INDEX lexemes_library_key;
ALTER TABLE lexemes
    DROP CONSTRAINT lexemes_entry,
    DROP CONSTRAINT lexemes_part_of_speech_check,
    DROP COLUMN updated_at, DROP COLUMN removed_at, DROP COLUMN version, DROP COLUMN term_key, DROP COLUMN deck_id,
    ADD CONSTRAINT lexemes_part_of_speech_check CHECK (part_of_speech IN ('noun', 'verb', 'adjective', 'adverb')),
    ADD CONSTRAINT lexemes_lemma_part_of_speech_key UNIQUE (lemma, part_of_speech);
DROP INDEX decks_owner_title;
DROP INDEX decks_library_title;
ALTER TABLE decks
    DROP CONSTRAINT decks_library_not_archived,
    DROP CONSTRAINT decks_description_length,
    DROP COLUMN updated_at, DROP COLUMN copied_from, DROP COLUMN archived_at, DROP COLUMN version,
    DROP COLUMN meaning_language, DROP COLUMN term_language,
    ADD CONSTRAINT decks_title_key UNIQUE (title);
