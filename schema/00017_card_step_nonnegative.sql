-- A card's step is an index into the (re)learning steps and is never
-- negative (pkg/learning reads a negative one as the first step, but no
-- writer should store it). Rows that already hold one are put on the first
-- step, as pkg/learning would read them.

-- +goose Up
UPDATE cards SET step = 0 WHERE step < 0;
ALTER TABLE cards ADD CONSTRAINT cards_step_nonnegative CHECK (step >= 0);

-- +goose Down
ALTER TABLE cards DROP CONSTRAINT cards_step_nonnegative;
