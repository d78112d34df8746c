-- Email addresses are stored in their canonical form (pkg/platform/text
-- CanonicalEmail: PRECIS UsernameCaseMapped local part, IDNA ASCII domain),
-- so the existing UNIQUE (email) index is uniqueness on the canonical form.
-- The database refuses what is certainly not canonical: a form that is not
-- NFKC-normalised (full-width letters, ligatures) or that holds a space or
-- a C0/C1 control character. Format characters (U+200B, U+202E, U+FEFF) are
-- refused by CanonicalEmail; PostgreSQL's character classes depend on the
-- server's locale, so they are not repeated here.

-- +goose Up
-- Existing addresses are brought to that form where this merges no two
-- accounts; an address that would collide with another keeps its form and
-- fails the check below, so the migration stops for a person to decide.
UPDATE users u SET email = lower(normalize(btrim(u.email), NFKC))
WHERE u.email <> lower(normalize(btrim(u.email), NFKC))
  AND NOT EXISTS (SELECT 1 FROM users o WHERE o.email = lower(normalize(btrim(u.email), NFKC)));

ALTER TABLE users ADD CONSTRAINT users_email_canonical
    CHECK (email IS NFKC NORMALIZED AND email !~ '[\x01-\x20\x7f-\x9f]');

-- +goose Down
ALTER TABLE users DROP CONSTRAINT users_email_canonical;
