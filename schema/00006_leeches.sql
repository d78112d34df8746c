-- Leeches: a card the learner keeps forgetting is suspended (as Anki does).

-- +goose Up
ALTER TABLE cards ADD COLUMN suspended boolean NOT NULL DEFAULT false;

-- +goose Down
ALTER TABLE cards DROP COLUMN suspended;
