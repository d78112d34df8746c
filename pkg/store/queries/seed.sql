-- The seed (pkg/seed: jobs/seed, make run): the WordNet library and the
-- demo accounts and classes. Every statement is a bulk or re-runnable load
-- (ON CONFLICT DO NOTHING), so that seeding a seeded database changes
-- nothing; the product's own writes are in the aggregates' files (the seed's
-- offline teacher uses FindOrCreateUser and CreateClass).

-- InsertLexemes stores the words given as parallel arrays of one length (one
-- element a word) that are not stored yet, from WordNet 3.0. The arrays are
-- zipped by unnest in the select list (sqlc does not type a multi-argument
-- unnest in FROM).
-- name: InsertLexemes :execrows
INSERT INTO lexemes (lemma, part_of_speech, definition, example, source)
SELECT unnest(sqlc.arg(lemmas)::text[]), unnest(sqlc.arg(parts_of_speech)::text[]),
       unnest(sqlc.arg(definitions)::text[]), unnest(sqlc.arg(examples)::text[]), 'wordnet-3.0'
ON CONFLICT (lemma, part_of_speech) WHERE deck_id IS NULL DO NOTHING;

-- InsertLibraryDecks makes the library decks of the words (parallel arrays,
-- in frequency order) that have none: each deck takes deck_size consecutive
-- words; its level is the band of words_per_level words its last word falls
-- in (1 to 5, see schema/00018_deck_level.sql).
-- name: InsertLibraryDecks :exec
WITH given AS (
    SELECT unnest(sqlc.arg(lemmas)::text[]) AS lemma, unnest(sqlc.arg(parts_of_speech)::text[]) AS pos,
           generate_subscripts(sqlc.arg(lemmas)::text[], 1) AS ord),
words AS (
    SELECT w.ord, l.id AS lexeme_id, ((w.ord - 1) / sqlc.arg(deck_size)::int) + 1 AS deck_no
    FROM given w JOIN lexemes l ON l.lemma = w.lemma AND l.part_of_speech = w.pos AND l.deck_id IS NULL),
decks_in AS (
    INSERT INTO decks (title, description, level)
    SELECT format('Core English %s', lpad(deck_no::text, 2, '0')),
           format('Words %s to %s of the WordNet 3.0 frequency list', min(ord), max(ord)),
           least(5, (max(ord) - 1) / sqlc.arg(words_per_level)::int + 1)
    FROM words GROUP BY deck_no
    ON CONFLICT (title) WHERE owner_id IS NULL DO NOTHING
    RETURNING id, title)
INSERT INTO deck_items (deck_id, lexeme_id, position)
SELECT d.id, w.lexeme_id, w.ord - (w.deck_no - 1) * sqlc.arg(deck_size)::int
FROM words w JOIN decks_in d ON d.title = format('Core English %s', lpad(w.deck_no::text, 2, '0'));

-- name: CountDecks :one
SELECT count(*) FROM decks;

-- InsertSeedUser stores a demo account with its id, whose token subject is
-- that id, unless it is there.
-- name: InsertSeedUser :execrows
INSERT INTO users (id, email, display_name, role, timezone, auth_subject)
VALUES (sqlc.arg(id)::uuid, sqlc.arg(email), sqlc.arg(display_name), sqlc.arg(role), sqlc.arg(timezone), sqlc.arg(id)::uuid::text)
ON CONFLICT DO NOTHING;

-- name: InsertSeedClass :exec
INSERT INTO classes (id, teacher_id, name, join_code, new_cards_per_day)
VALUES (sqlc.arg(class_id), sqlc.arg(teacher_id), sqlc.arg(name), sqlc.arg(join_code)::text,
    sqlc.narg(new_cards_per_day)::integer)
ON CONFLICT DO NOTHING;

-- name: InsertSeedClassMember :exec
INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)
ON CONFLICT DO NOTHING;

-- SeedMemberName gives a demo learner the name their class shows
-- (class_members.display_name) unless the teacher has given one since.
-- name: SeedMemberName :exec
UPDATE class_members SET display_name = sqlc.arg(display_name)::text
WHERE class_id = sqlc.arg(class_id) AND learner_id = sqlc.arg(learner_id) AND display_name IS NULL;

-- InsertSeedEndpoint registers a demo webhook endpoint with a fixed id,
-- unless it exists (or its URL has an active one).
-- name: InsertSeedEndpoint :exec
INSERT INTO webhook_endpoints (id, teacher_id, url, secret, topics)
VALUES (sqlc.arg(id), sqlc.arg(teacher_id), sqlc.arg(url), sqlc.arg(secret), sqlc.arg(topics))
ON CONFLICT DO NOTHING;

-- InsertSeedAttempts records a demo endpoint's past answers, given as
-- parallel arrays of one length (one element an answer), those not
-- recorded yet.
-- name: InsertSeedAttempts :exec
INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted, at)
SELECT sqlc.arg(endpoint_id)::uuid, unnest(sqlc.arg(event_ids)::uuid[]), unnest(sqlc.arg(statuses)::integer[]),
       unnest(sqlc.arg(accepted)::boolean[]), unnest(sqlc.arg(ats)::timestamptz[])
ON CONFLICT DO NOTHING;
