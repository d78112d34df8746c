-- The new cards of a learner's schedule in (due, id) order, for the daily
-- limit of new cards (schema 00030): store.DueCards reads the due reviews
-- on cards_learner_due and, in a second branch, the first new_left new
-- cards (state New) on this index, an Index Scan with learner_id, state
-- and due <= now as its Index Cond that stops after new_left rows, in
-- generic plans too (docs/benchmarks.md, "The schedule's new cards").

-- +goose Up
CREATE INDEX cards_learner_state_due ON cards (learner_id, state, due, id);

-- +goose Down
DROP INDEX cards_learner_state_due;
