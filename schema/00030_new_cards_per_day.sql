-- A class's daily limit of new cards (Anki's "new cards/day"): how many
-- cards never reviewed its learners are served in one study day. NULL is
-- the default, study.DefaultNewCardsPerDay (written once, in Go); 0 serves
-- reviews only. A learner's limit is the largest of their classes'
-- (study.NewCardBudget). Nullable with no default: adding the column
-- rewrites no row, and the release before never reads it.

-- +goose Up
ALTER TABLE classes ADD COLUMN new_cards_per_day integer
    CONSTRAINT classes_new_cards_per_day_range CHECK (new_cards_per_day BETWEEN 0 AND 9999);

-- +goose Down
ALTER TABLE classes DROP COLUMN new_cards_per_day;
