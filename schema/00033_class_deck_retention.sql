-- The retention a class aims for (issue 27, part 4): each class deck's
-- desired retention, the probability of recall at which a card of the deck
-- comes due, chosen by the class's teacher between 0.80 and 0.95
-- (learning.MinDesiredRetention..MaxDesiredRetention; SetDeckRetention).
-- Existing rows and new ones start at FSRS's default, 0.90, so no card's
-- schedule changes with this migration.
--
-- A card scheduled by several class decks (its lexeme in decks of two of
-- the learner's classes, or one deck in two classes) comes due at the
-- highest of their retentions (store.CardRetention): no class is
-- under-served. A card that no class deck holds (a deck the learner
-- started alone, an assignment to one learner) keeps 0.90.

-- +goose Up
ALTER TABLE class_decks ADD COLUMN desired_retention double precision NOT NULL DEFAULT 0.9
    CONSTRAINT class_decks_desired_retention_range CHECK (desired_retention BETWEEN 0.8 AND 0.95);

-- +goose Down
ALTER TABLE class_decks DROP COLUMN desired_retention;
