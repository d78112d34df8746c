-- A deck's level, so that a teacher can pick library decks that suit a
-- class (functions.ListDecks): the frequency band of its words, 1 for the
-- 200 most frequent words of the library's list, 2 for the next 200, up to
-- 5 for words ranked 801 and beyond. A teacher's own deck has none.

-- +goose Up
ALTER TABLE decks ADD COLUMN level smallint CHECK (level BETWEEN 1 AND 5);
-- The library seeded so far (pkg/seed): "Core English NN" holds the words
-- ranked 25 (NN - 1) + 1 to 25 NN.
UPDATE decks SET level = least(5, (25 * substring(title FROM '^Core English (\d+)$')::integer - 1) / 200 + 1)
WHERE owner_id IS NULL AND title ~ '^Core English \d+$';

-- +goose Down
ALTER TABLE decks DROP COLUMN level;
