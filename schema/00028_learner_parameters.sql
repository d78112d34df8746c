-- Each learner's own FSRS-6 parameters (issue 27, pkg/fitting).
--
-- learner_parameters holds every parameter set a learner was ever
-- scheduled with, one row per adopted fit, never updated nor deleted: the
-- learner's current parameters are their row with the highest id, and no
-- row means the FSRS-6 defaults (learning.DefaultParams). review_log names
-- the set that scheduled each review (parameters_id; NULL is the defaults,
-- which is also what every review before this migration used), so a card's
-- state can be replayed exactly from its log.
--
-- parameter_fits records every fit the fit job made, kept or refused: the
-- weights it found, the reviews it saw (count and the last review's id),
-- its metrics and those of the parameters current at the time on the same
-- held-out later reviews, the optimizer's version and outcome, whether it
-- was kept and, when refused, why. The job finds the learners due for a fit
-- from the last fit's last_review_id (parameter_fits_learner).

-- +goose Up
CREATE TABLE learner_parameters (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    learner_id        uuid NOT NULL REFERENCES users (id),
    weights           double precision[] NOT NULL CHECK (cardinality(weights) = 21),
    optimizer_version text NOT NULL,
    fitted_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX learner_parameters_learner ON learner_parameters (learner_id, id DESC);

CREATE TABLE parameter_fits (
    id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    learner_id        uuid NOT NULL REFERENCES users (id),
    fitted_at         timestamptz NOT NULL DEFAULT now(),
    review_count      integer NOT NULL CHECK (review_count >= 0),
    last_review_id    bigint NOT NULL,
    train_items       integer NOT NULL CHECK (train_items >= 0),
    test_items        integer NOT NULL CHECK (test_items >= 0),
    weights           double precision[] CHECK (cardinality(weights) = 21),
    outcome           text NOT NULL CHECK (outcome IN ('defaults', 'initial-stability', 'trained', 'not-fitted')),
    optimizer_version text NOT NULL,
    log_loss          double precision,
    rmse_bins         double precision,
    -- The parameters current when the fit was made (NULL: the defaults)
    -- and their metrics on the same held-out reviews.
    current_parameters_id bigint REFERENCES learner_parameters (id),
    current_log_loss      double precision,
    current_rmse_bins     double precision,
    kept              boolean NOT NULL,
    reason            text NOT NULL CHECK (reason <> ''),
    -- The parameter set this fit became, when kept.
    parameters_id     bigint REFERENCES learner_parameters (id),
    CHECK (kept = (parameters_id IS NOT NULL))
);
CREATE INDEX parameter_fits_learner ON parameter_fits (learner_id, id DESC);

ALTER TABLE review_log ADD COLUMN parameters_id bigint REFERENCES learner_parameters (id);

-- +goose Down
ALTER TABLE review_log DROP COLUMN parameters_id;
DROP TABLE parameter_fits;
DROP TABLE learner_parameters;
