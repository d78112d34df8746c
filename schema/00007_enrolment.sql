-- Enrolment: learners join classes with a join code, or are added by email.

-- +goose Up
ALTER TABLE classes ADD COLUMN join_code text UNIQUE
    CHECK (join_code ~ '^[A-Z0-9]{4,12}$');

-- +goose Down
ALTER TABLE classes DROP COLUMN join_code;
