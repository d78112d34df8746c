-- A teacher's own decks and their entries (pkg/decks; schema 00027). An
-- entry is a lexemes row whose deck_id is its deck: lemma is its term,
-- definition its meaning. Every write of a deck's entries first locks the
-- deck's row (LockOwnDeck), and everything that gives learners a deck's
-- cards (an assignment, an enrolment) takes it FOR SHARE
-- (LockDeckForCards), so an edit and an assignment see each other whole.

-- InsertDeck stores a deck of owner_id, created at now (the database's now()
-- when null); no row when the owner has a deck with that title already.
-- name: InsertDeck :one
INSERT INTO decks (owner_id, title, description, term_language, meaning_language, copied_from, created_at, updated_at)
VALUES (sqlc.arg(owner_id)::uuid, sqlc.arg(title), sqlc.arg(description), sqlc.arg(term_language), sqlc.arg(meaning_language),
        sqlc.narg(copied_from), coalesce(sqlc.narg(now)::timestamptz, now()), coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (owner_id, title) WHERE owner_id IS NOT NULL DO NOTHING
RETURNING id, version, created_at;

-- LockOwnDeck locks owner_id's deck against other edits and against
-- assignments and enrolments giving its cards (LockDeckForCards) until the
-- transaction ends, and reads it. FOR NO KEY UPDATE: the rows that
-- reference the deck (assignments, deck_items) are not held back.
-- name: LockOwnDeck :one
SELECT id, title, description, term_language, meaning_language, version, archived_at
FROM decks WHERE id = sqlc.arg(deck_id) AND owner_id = sqlc.arg(owner_id)::uuid
FOR NO KEY UPDATE;

-- LockDeckForCards waits for an edit of the deck in progress (LockOwnDeck)
-- before the caller reads its entries to give a learner their cards; it
-- locks only an own deck (the library's are never edited, and a shared
-- lock on its hot rows would only cost).
-- name: LockDeckForCards :exec
SELECT 1 FROM decks WHERE id = $1 AND owner_id IS NOT NULL FOR SHARE;

-- VisibleDeck is a deck of the library, or of owner_id (null: the library
-- only), with its number of entries and, for an own deck, whether it is
-- assigned (as OwnDecks says; false for the library).
-- name: VisibleDeck :one
SELECT d.id, d.owner_id, d.title, d.description, d.term_language, d.meaning_language, d.level, d.version,
       d.archived_at, d.copied_from, d.created_at, d.updated_at,
       (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id) AS entries,
       (d.owner_id IS NOT NULL AND (EXISTS (SELECT 1 FROM assignments a WHERE a.deck_id = d.id)
        OR EXISTS (SELECT 1 FROM class_decks cd WHERE cd.deck_id = d.id)))::boolean AS assigned
FROM decks d
WHERE d.id = sqlc.arg(deck_id) AND (d.owner_id IS NULL OR d.owner_id = sqlc.narg(owner_id)::uuid);

-- OwnDecks lists owner_id's decks by title, archived ones only with
-- archived set, each with its number of entries and whether it is
-- assigned (to a class or a learner).
-- name: OwnDecks :many
SELECT d.id, d.title, d.description, d.term_language, d.meaning_language, d.version, d.archived_at, d.copied_from,
       d.created_at, d.updated_at,
       (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id) AS entries,
       (EXISTS (SELECT 1 FROM assignments a WHERE a.deck_id = d.id)
        OR EXISTS (SELECT 1 FROM class_decks cd WHERE cd.deck_id = d.id))::boolean AS assigned
FROM decks d
WHERE d.owner_id = sqlc.arg(owner_id)::uuid AND (sqlc.arg(archived)::boolean OR d.archived_at IS NULL)
ORDER BY d.title, d.id;

-- DeckEntries lists the deck's entries in their order.
-- name: DeckEntries :many
SELECT l.id, l.lemma, l.definition, l.example, l.part_of_speech, l.version, di.position
FROM deck_items di JOIN lexemes l ON l.id = di.lexeme_id
WHERE di.deck_id = $1
ORDER BY di.position, l.id;

-- InsertEntries stores new entries of the deck (parallel arrays of one
-- length, one element an entry; ids chosen by the caller), created at now
-- (the database's now() when null), and puts them in the deck at the
-- positions given.
-- name: InsertEntries :execrows
WITH entries AS (
    SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(terms)::text[]) AS term,
           unnest(sqlc.arg(term_keys)::text[]) AS term_key, unnest(sqlc.arg(meanings)::text[]) AS meaning,
           unnest(sqlc.arg(examples)::text[]) AS example, unnest(sqlc.arg(parts_of_speech)::text[]) AS part_of_speech,
           unnest(sqlc.arg(positions)::integer[]) AS position),
inserted AS (
    INSERT INTO lexemes (id, deck_id, lemma, term_key, definition, example, part_of_speech, source, updated_at)
    SELECT e.id, sqlc.arg(deck_id)::uuid, e.term, e.term_key, e.meaning, e.example, e.part_of_speech, 'teacher',
           coalesce(sqlc.narg(now)::timestamptz, now())
    FROM entries e
    RETURNING id)
INSERT INTO deck_items (deck_id, lexeme_id, position)
SELECT sqlc.arg(deck_id)::uuid, e.id, e.position FROM entries e JOIN inserted i ON i.id = e.id;

-- UpdateEntries writes new text for entries of the deck (parallel arrays)
-- whose version is still the one given, and counts one more version each;
-- it answers the entries written with their new versions.
-- name: UpdateEntries :many
UPDATE lexemes l SET lemma = e.term, term_key = e.term_key, definition = e.meaning, example = e.example,
    part_of_speech = e.part_of_speech, version = l.version + 1, updated_at = coalesce(sqlc.narg(now)::timestamptz, now())
FROM (SELECT unnest(sqlc.arg(ids)::uuid[]) AS id, unnest(sqlc.arg(versions)::integer[]) AS version,
             unnest(sqlc.arg(terms)::text[]) AS term, unnest(sqlc.arg(term_keys)::text[]) AS term_key,
             unnest(sqlc.arg(meanings)::text[]) AS meaning, unnest(sqlc.arg(examples)::text[]) AS example,
             unnest(sqlc.arg(parts_of_speech)::text[]) AS part_of_speech) e
WHERE l.id = e.id AND l.deck_id = sqlc.arg(deck_id)::uuid AND l.removed_at IS NULL AND l.version = e.version
RETURNING l.id, l.version;

-- RemoveEntries retires entries of the deck: each keeps its row, marked
-- removed at now (the database's now() when null), with one more version,
-- and leaves the deck's items; the learners' cards of them then leave
-- every schedule (schedule_cards). It answers how many it removed.
-- name: RemoveEntries :execrows
WITH removed AS (
    UPDATE lexemes SET removed_at = coalesce(sqlc.narg(now)::timestamptz, now()), version = version + 1,
        updated_at = coalesce(sqlc.narg(now)::timestamptz, now())
    WHERE id = ANY(sqlc.arg(ids)::uuid[]) AND deck_id = sqlc.arg(deck_id)::uuid AND removed_at IS NULL
    RETURNING id)
DELETE FROM deck_items di USING removed r WHERE di.deck_id = sqlc.arg(deck_id) AND di.lexeme_id = r.id;

-- NextPosition is one more than the deck's last position (1 for an empty deck).
-- name: NextPosition :one
SELECT (coalesce(max(position), 0) + 1)::integer FROM deck_items WHERE deck_id = $1;

-- NegatePositions and SetPositions reorder the deck's items in two
-- statements, because UNIQUE (deck_id, position) is checked row by row:
-- first every position goes negative, then each entry of ids takes its
-- ordinal in ids.
-- name: NegatePositions :exec
UPDATE deck_items SET position = -position WHERE deck_id = $1;

-- name: SetPositions :execrows
UPDATE deck_items di SET position = o.ord
FROM unnest(sqlc.arg(ids)::uuid[]) WITH ORDINALITY AS o(id, ord)
WHERE di.deck_id = sqlc.arg(deck_id) AND di.lexeme_id = o.id;

-- DeckHolders lists the assignments of the deck, each with its learner and
-- how many cards of the entries ids the learner has reviewed, and has in
-- the learned state: what the progress projection counts of those entries
-- (payload of deck.entries_changed).
-- name: DeckHolders :many
SELECT a.id, a.learner_id,
       count(c.id) FILTER (WHERE c.reps > 0)::integer AS seen,
       count(c.id) FILTER (WHERE c.state = sqlc.arg(learned))::integer AS learned
FROM assignments a
LEFT JOIN cards c ON c.learner_id = a.learner_id AND c.lexeme_id = ANY(sqlc.arg(ids)::uuid[])
WHERE a.deck_id = sqlc.arg(deck_id)
GROUP BY a.id, a.learner_id
ORDER BY a.id;

-- CreateEntryCards gives every learner who has the deck (an assignment of
-- it, or a start of it for self-study) a card, in the state of the
-- scheduler's new card, for each of the lexemes ids they have none for; it
-- counts the cards it created.
-- name: CreateEntryCards :execrows
INSERT INTO cards (learner_id, lexeme_id, state, due, stability, difficulty, step)
SELECT h.learner_id, x.id, sqlc.arg(state)::smallint, sqlc.arg(due)::timestamptz,
       sqlc.arg(stability)::double precision, sqlc.arg(difficulty)::double precision, sqlc.arg(step)::integer
FROM (SELECT a.learner_id FROM assignments a WHERE a.deck_id = sqlc.arg(deck_id)
      UNION SELECT ld.learner_id FROM learner_decks ld WHERE ld.deck_id = sqlc.arg(deck_id)) h
CROSS JOIN unnest(sqlc.arg(ids)::uuid[]) AS x(id)
ON CONFLICT (learner_id, lexeme_id) DO NOTHING;

-- UpdateDeckInfo writes the deck's title, description and languages when
-- its version is still the one given, and counts one more version; no row
-- otherwise. A title the owner has for another deck fails it (unique).
-- name: UpdateDeckInfo :one
UPDATE decks SET title = sqlc.arg(title), description = sqlc.arg(description), term_language = sqlc.arg(term_language),
    meaning_language = sqlc.arg(meaning_language), version = version + 1,
    updated_at = coalesce(sqlc.narg(now)::timestamptz, now())
WHERE id = sqlc.arg(deck_id) AND owner_id = sqlc.arg(owner_id)::uuid AND version = sqlc.arg(version)
RETURNING version;

-- TouchDeck counts one more version of the deck (its order changed).
-- name: TouchDeck :one
UPDATE decks SET version = version + 1, updated_at = coalesce(sqlc.narg(now)::timestamptz, now())
WHERE id = sqlc.arg(deck_id)
RETURNING version;

-- ArchiveDeck marks the deck archived at now (the database's now() when
-- null), or not archived when archived is false; an archive of an archived
-- deck keeps its first instant.
-- name: ArchiveDeck :one
UPDATE decks SET archived_at = CASE WHEN sqlc.arg(archived)::boolean
        THEN coalesce(archived_at, sqlc.narg(now)::timestamptz, now()) END,
    updated_at = coalesce(sqlc.narg(now)::timestamptz, now())
WHERE id = sqlc.arg(deck_id) AND owner_id = sqlc.arg(owner_id)::uuid
RETURNING archived_at;

-- DeckInUse reports whether any learner has or had the deck: an assignment
-- (kept forever, with its progress), a class's record of it, or a start.
-- name: DeckInUse :one
SELECT (EXISTS (SELECT 1 FROM assignments a WHERE a.deck_id = sqlc.arg(deck_id)::uuid)
        OR EXISTS (SELECT 1 FROM class_decks cd WHERE cd.deck_id = sqlc.arg(deck_id)::uuid)
        OR EXISTS (SELECT 1 FROM learner_decks ld WHERE ld.deck_id = sqlc.arg(deck_id)::uuid))::boolean AS in_use;

-- DeleteDeck deletes owner_id's deck with its items and entries (ON DELETE
-- CASCADE); a card of one of them would refuse it (cards' foreign key), as
-- DeckInUse should have.
-- name: DeleteDeck :execrows
DELETE FROM decks WHERE id = sqlc.arg(deck_id) AND owner_id = sqlc.arg(owner_id)::uuid;

-- LibraryEntriesOf lists the library's (WordNet) entries whose lemma is
-- term, ignoring case, by part of speech: what a teacher typing term is
-- offered to fill in.
-- name: LibraryEntriesOf :many
SELECT l.lemma, l.part_of_speech, l.definition, l.example
FROM lexemes l
WHERE l.deck_id IS NULL AND lower(l.lemma) = lower(sqlc.arg(term)::text)
ORDER BY l.part_of_speech, l.lemma
LIMIT 10;
