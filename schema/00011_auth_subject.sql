-- The identity provider's subject (Firebase uid) of each user. A user
-- created by enrolment has none until the first sign-in with a verified
-- token for the same email links it.

-- +goose Up
ALTER TABLE users ADD COLUMN auth_subject text UNIQUE;

-- +goose Down
ALTER TABLE users DROP COLUMN auth_subject;
