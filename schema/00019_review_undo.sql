-- Undoing a review (UndoReview, docs/architecture.md "Undoing a review").
-- The review log stays append-only: an undo is a row of its own in
-- review_undo, and each review from now on records the card's whole state
-- before it (the before_* columns, next to the existing state_before and
-- due_before), its study day and the assignments it counted for, so that
-- an undo restores the card exactly and corrects exactly the projections
-- that counted it.
-- Reviews recorded before this migration have none of these (NULL) and
-- cannot be undone.

-- +goose Up
ALTER TABLE review_log
    ADD COLUMN before_stability      double precision,
    ADD COLUMN before_difficulty     double precision,
    ADD COLUMN before_elapsed_days   integer,
    ADD COLUMN before_scheduled_days integer,
    ADD COLUMN before_reps           integer,
    ADD COLUMN before_lapses         integer,
    ADD COLUMN before_step           integer,
    -- NULL also for a card that had never been reviewed (before_reps = 0).
    ADD COLUMN before_last_review    timestamptz,
    ADD COLUMN before_suspended      boolean,
    -- The study day the review counted for (learning.StudyDay, in the
    -- learner's zone at the review).
    ADD COLUMN study_day             date,
    -- The learner's assignments whose deck held the card's lexeme at the
    -- review: those whose progress counted it.
    ADD COLUMN assignment_ids        uuid[],
    ADD CONSTRAINT review_log_before_recorded CHECK (num_nulls(before_stability, before_difficulty, before_elapsed_days,
        before_scheduled_days, before_reps, before_lapses, before_step, before_suspended, study_day, assignment_ids) IN (0, 10));

-- One row per undone review: a review is undone at most once.
CREATE TABLE review_undo (
    review_id  bigint PRIMARY KEY REFERENCES review_log (id),
    card_id    uuid NOT NULL REFERENCES cards (id),
    learner_id uuid NOT NULL REFERENCES users (id),
    undone_at  timestamptz NOT NULL
);

-- +goose StatementBegin
CREATE FUNCTION review_undo_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'review_undo is append-only (% refused)', TG_OP;
END;
$$;
-- +goose StatementEnd

CREATE TRIGGER review_undo_append_only
    BEFORE UPDATE OR DELETE ON review_undo
    FOR EACH ROW EXECUTE FUNCTION review_undo_append_only();

-- The review whose review.submitted earned an achievement, so that undoing
-- that review can revoke it (NULL for achievements earned otherwise, or
-- before this migration).
ALTER TABLE learner_achievements ADD COLUMN review_id bigint;

-- +goose Down
ALTER TABLE learner_achievements DROP COLUMN review_id;
DROP TABLE review_undo;
DROP FUNCTION review_undo_append_only();
ALTER TABLE review_log
    DROP CONSTRAINT review_log_before_recorded,
    DROP COLUMN assignment_ids,
    DROP COLUMN study_day,
    DROP COLUMN before_suspended,
    DROP COLUMN before_last_review,
    DROP COLUMN before_step,
    DROP COLUMN before_lapses,
    DROP COLUMN before_reps,
    DROP COLUMN before_scheduled_days,
    DROP COLUMN before_elapsed_days,
    DROP COLUMN before_difficulty,
    DROP COLUMN before_stability;
