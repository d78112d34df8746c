-- A learner's cards and their review log. Card states are learning.State
-- values passed as parameters, never literals.

-- LockCard locks the learner's row first (as every write of a learner does:
-- their writes, and so their events, are serialised), then the card, if it
-- is the learner's.
-- name: LockCard :one
WITH learner AS (SELECT u.id FROM users u WHERE u.id = sqlc.arg(learner_id) FOR NO KEY UPDATE)
SELECT c.lexeme_id, c.state, c.due, c.stability, c.difficulty, c.elapsed_days, c.scheduled_days,
       c.reps, c.lapses, c.step, c.last_review, c.suspended, l2.lemma
FROM cards c JOIN learner l ON l.id = c.learner_id JOIN lexemes l2 ON l2.id = c.lexeme_id
WHERE c.id = sqlc.arg(card_id)
FOR UPDATE OF c;

-- UpdateCard stores a card's next state; updated_at is now (the database's
-- now() when null).
-- name: UpdateCard :exec
UPDATE cards SET state = sqlc.arg(state), due = sqlc.arg(due), stability = sqlc.arg(stability),
    difficulty = sqlc.arg(difficulty), elapsed_days = sqlc.arg(elapsed_days),
    scheduled_days = sqlc.arg(scheduled_days), reps = sqlc.arg(reps), lapses = sqlc.arg(lapses),
    step = sqlc.arg(step), last_review = sqlc.arg(last_review), suspended = sqlc.arg(suspended),
    updated_at = coalesce(sqlc.narg(now)::timestamptz, now())
WHERE id = sqlc.arg(card_id);

-- name: AppendReview :one
-- Appends a review with the card's whole state before it (before_*), its
-- study day and the assignments it counted for: what an undo restores and
-- takes back (schema 00019), and the parameter set that scheduled it
-- (NULL: the defaults; schema 00028).
INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before, state_after, due_after,
    stability, difficulty, elapsed_days, scheduled_days, reviewed_at,
    before_stability, before_difficulty, before_elapsed_days, before_scheduled_days, before_reps,
    before_lapses, before_step, before_last_review, before_suspended, study_day, assignment_ids, parameters_id)
VALUES (sqlc.arg(card_id), sqlc.arg(learner_id), sqlc.arg(rating), sqlc.arg(state_before),
    sqlc.arg(due_before), sqlc.arg(state_after), sqlc.arg(due_after), sqlc.arg(stability),
    sqlc.arg(difficulty), sqlc.arg(elapsed_days), sqlc.arg(scheduled_days), sqlc.arg(reviewed_at),
    sqlc.arg(before_stability)::double precision, sqlc.arg(before_difficulty)::double precision,
    sqlc.arg(before_elapsed_days)::integer, sqlc.arg(before_scheduled_days)::integer, sqlc.arg(before_reps)::integer,
    sqlc.arg(before_lapses)::integer, sqlc.arg(before_step)::integer, sqlc.narg(before_last_review),
    sqlc.arg(before_suspended)::boolean, sqlc.arg(study_day)::date, sqlc.arg(assignment_ids)::uuid[],
    sqlc.narg(parameters_id)::bigint)
RETURNING id;

-- CreateCards gives the learner a card, in the state of the scheduler's
-- new card, for each lexeme of the deck they have none for yet; it counts
-- the deck's lexemes and the cards it created.
-- name: CreateCards :one
WITH items AS (SELECT lexeme_id FROM deck_items WHERE deck_id = sqlc.arg(deck_id)),
inserted AS (
    INSERT INTO cards (learner_id, lexeme_id, state, due, stability, difficulty, step)
    SELECT sqlc.arg(learner_id)::uuid, lexeme_id, sqlc.arg(state)::smallint, sqlc.arg(due)::timestamptz,
           sqlc.arg(stability)::double precision, sqlc.arg(difficulty)::double precision, sqlc.arg(step)::integer
    FROM items
    ON CONFLICT (learner_id, lexeme_id) DO NOTHING
    RETURNING 1)
SELECT (SELECT count(*) FROM items) AS cards, (SELECT count(*) FROM inserted) AS created;

-- CountKnownCards counts the deck's cards the learner has reviewed, and
-- those in the learned state.
-- name: CountKnownCards :one
SELECT count(*) FILTER (WHERE c.reps > 0) AS seen, count(*) FILTER (WHERE c.state = sqlc.arg(learned)) AS learned
FROM deck_items di JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = sqlc.arg(learner_id)
WHERE di.deck_id = sqlc.arg(deck_id);

-- DueCards lists the cards of the learner's schedule due at now, most
-- overdue first, with their whole FSRS state (for the ratings' preview) and
-- the counts of all of them (total) and of the new ones among them
-- (new_total). The schedule is schedule_cards (schema 00025): the learner's
-- cards not suspended, restricted to one assignment's deck when
-- assignment_id is set, and to the decks teacher_id assigned to the learner
-- when it is set. Of the cards never reviewed (state new_state) only the
-- first new_left, in the same (due, id) order, are served: the daily limit
-- of new cards (study.NewCardBudget); due reviews are never limited. Two
-- branches, joined by UNION ALL: every due review, a range of
-- cards_learner_due (due <= now in its Index Cond), and the first new_left
-- new cards, a range of cards_learner_state_due (schema 00035) that stops
-- after new_left rows; the due new cards past the limit are never read. A
-- generic plan merges them with a Merge Append (docs/benchmarks.md, "The
-- schedule's new cards"; TestDueCardsReadTheIndexes). term_language is the
-- BCP 47 tag of the language of the card's term: its own deck's for a
-- teacher's entry, en for the library's (the web client's listen button
-- speaks the term in it). deck_title names the card's deck: a teacher's
-- entry's own, or for a library word the first of the learner's decks
-- (assigned or started) that holds it. desired_retention is the card's (CardRetention's rule). (sqlc types a
-- parameter compared with a column of a function's rows only by its cast.)
-- name: DueCards :many
SELECT c.id, l.lemma, l.part_of_speech, l.definition, l.example, c.state, c.due, c.stability, c.difficulty,
       c.elapsed_days, c.scheduled_days, c.reps, c.lapses, c.step, c.last_review,
       coalesce(d.term_language, 'en')::text AS term_language,
       coalesce(d.title, (SELECT t.title
                          FROM (SELECT a.deck_id, a.created_at AS since FROM assignments a WHERE a.learner_id = c.learner_id
                                UNION ALL
                                SELECT ld.deck_id, ld.started_at FROM learner_decks ld WHERE ld.learner_id = c.learner_id) s
                          JOIN deck_items di ON di.deck_id = s.deck_id AND di.lexeme_id = c.lexeme_id
                          JOIN decks t ON t.id = s.deck_id
                          ORDER BY s.since, t.title LIMIT 1), '')::text AS deck_title,
       (SELECT coalesce(max(cd.desired_retention), sqlc.arg(default_retention)::double precision)
        FROM assignments a
        JOIN class_decks cd ON cd.class_id = a.class_id AND cd.deck_id = a.deck_id
        JOIN deck_items di ON di.deck_id = a.deck_id
        WHERE a.learner_id = c.learner_id AND di.lexeme_id = c.lexeme_id)::double precision AS desired_retention,
       count(*) OVER () AS total,
       count(*) FILTER (WHERE c.state = sqlc.arg(new_state)::smallint) OVER () AS new_total
FROM ((SELECT s.* FROM schedule_cards(sqlc.arg(learner_id), sqlc.narg(assignment_id), sqlc.narg(teacher_id)) s
       WHERE s.due <= sqlc.arg(now)::timestamptz AND s.state <> sqlc.arg(new_state)::smallint)
      UNION ALL
      (SELECT s.* FROM schedule_cards(sqlc.arg(learner_id), sqlc.narg(assignment_id), sqlc.narg(teacher_id)) s
       WHERE s.due <= sqlc.arg(now)::timestamptz AND s.state = sqlc.arg(new_state)::smallint
       ORDER BY s.due, s.id
       LIMIT sqlc.arg(new_left)::integer)) c
JOIN lexemes l ON l.id = c.lexeme_id
LEFT JOIN decks d ON d.id = l.deck_id
ORDER BY c.due, c.id
LIMIT sqlc.arg(max_cards);

-- NewCardBudget is the learner's daily limit of new cards and how many
-- cards they reviewed for the first time (state_before new_state, the
-- review not undone) in [start, end_at), their study day. The limit is the
-- largest of their classes' new_cards_per_day, a class's NULL counting as
-- default_per_day, and default_per_day for a learner in no class (schema
-- 00030). Served by class_members_learner_id and review_log_learner_reviewed.
-- name: NewCardBudget :one
SELECT coalesce((SELECT max(coalesce(c.new_cards_per_day, sqlc.arg(default_per_day)::integer))
                 FROM class_members m JOIN classes c ON c.id = m.class_id
                 WHERE m.learner_id = sqlc.arg(learner_id)), sqlc.arg(default_per_day)::integer)::integer AS per_day,
       (SELECT count(*) FROM review_log r
        WHERE r.learner_id = sqlc.arg(learner_id)
          AND r.reviewed_at >= sqlc.arg(start)::timestamptz AND r.reviewed_at < sqlc.arg(end_at)::timestamptz
          AND r.state_before = sqlc.arg(new_state)
          AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = r.id))::integer AS reviewed;

-- CardRetention is the desired retention of the learner's card of lexeme:
-- the highest of the class decks (class_decks) of the learner's assignments
-- whose deck holds the lexeme, so that no class is under-served; the
-- default_retention when none does. DueCards' desired_retention is the
-- same rule.
-- name: CardRetention :one
SELECT coalesce(max(cd.desired_retention), sqlc.arg(default_retention)::double precision)::double precision AS desired_retention
FROM assignments a
JOIN class_decks cd ON cd.class_id = a.class_id AND cd.deck_id = a.deck_id
JOIN deck_items di ON di.deck_id = a.deck_id
WHERE a.learner_id = sqlc.arg(learner_id) AND di.lexeme_id = sqlc.arg(lexeme_id);

-- LearnedCards lists the stability and last review of the learner's
-- learned cards (state learned, not suspended) in the schedule's scope
-- (schedule_cards: with teacher_id, that teacher's decks only).
-- name: LearnedCards :many
SELECT c.stability, c.last_review::timestamptz AS last_review
FROM schedule_cards(sqlc.arg(learner_id), NULL, sqlc.narg(teacher_id)) c
WHERE c.state = sqlc.arg(learned)::smallint AND c.last_review IS NOT NULL;

-- Forecast counts the cards due before end_at per study day (learning.StudyDay
-- in SQL: the local wall-clock time in zone less rollover_hours, then its
-- date); overdue cards count on now's day. The cards are DueCards'
-- (schedule_cards).
-- name: Forecast :many
SELECT greatest(((c.due AT TIME ZONE sqlc.arg(zone)::text) - make_interval(hours => sqlc.arg(rollover_hours)::integer))::date,
                ((sqlc.arg(now)::timestamptz AT TIME ZONE sqlc.arg(zone)::text) - make_interval(hours => sqlc.arg(rollover_hours)::integer))::date)::date AS day,
       count(*) AS due
FROM schedule_cards(sqlc.arg(learner_id), sqlc.narg(assignment_id), sqlc.narg(teacher_id)) c
WHERE c.due < sqlc.arg(end_at)::timestamptz
GROUP BY day ORDER BY day;

-- ReviewToUndo is the review an undo of the card takes back: its last
-- review not undone yet, or, when every review of the card is undone, its
-- last review (undone_at set). It comes with the card's state before it
-- (NULL for a review recorded before schema 00019) and named_undone:
-- whether the review named (the undo's review_id) is one of the card's
-- reviews undone already. A card has a few reviews a day: the sort reads
-- them all through review_log_card_id.
-- name: ReviewToUndo :one
SELECT r.id, r.rating, r.state_before, r.due_before, r.state_after, r.reviewed_at,
       r.before_stability, r.before_difficulty, r.before_elapsed_days, r.before_scheduled_days, r.before_reps,
       r.before_lapses, r.before_step, r.before_last_review, r.before_suspended, r.study_day, r.assignment_ids,
       u.undone_at,
       EXISTS (SELECT 1 FROM review_undo n WHERE n.review_id = sqlc.narg(named)::bigint AND n.card_id = r.card_id) AS named_undone
FROM review_log r LEFT JOIN review_undo u ON u.review_id = r.id
WHERE r.card_id = sqlc.arg(card_id)
ORDER BY u.review_id IS NULL DESC, r.id DESC
LIMIT 1;

-- ReviewedBetween reports whether the learner has a review that is not
-- undone in [start, end_at) (a study day's bounds; a bound that is null is
-- open). The review log is the synchronous truth, unlike the projections
-- that lag behind it. Served by review_log_learner_reviewed, in generic
-- plans too (the coalesced bounds stay index conditions).
-- name: ReviewedBetween :one
SELECT EXISTS (SELECT 1 FROM review_log r
               WHERE r.learner_id = sqlc.arg(learner_id)
                 AND r.reviewed_at >= coalesce(sqlc.narg(start)::timestamptz, '-infinity')
                 AND r.reviewed_at < coalesce(sqlc.narg(end_at)::timestamptz, 'infinity')
                 AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = r.id));

-- RecordUndo records that a review was undone, at now (the database's
-- now() when null).
-- name: RecordUndo :one
INSERT INTO review_undo (review_id, card_id, learner_id, undone_at)
VALUES (sqlc.arg(review_id), sqlc.arg(card_id), sqlc.arg(learner_id), coalesce(sqlc.narg(now)::timestamptz, now()))
RETURNING undone_at;

-- LibraryDeck is a deck of the shared library with its number of words.
-- name: LibraryDeck :one
SELECT d.title, (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id) AS words
FROM decks d WHERE d.id = $1 AND d.owner_id IS NULL;

-- LibraryDeckByTitle is the id of the shared library's deck titled title.
-- name: LibraryDeckByTitle :one
SELECT id FROM decks WHERE title = $1 AND owner_id IS NULL;

-- StartDeck records that the learner started the deck at now (the
-- database's now() when null), unless they had; it answers when they
-- started it and whether this call did.
-- name: StartDeck :one
WITH started AS (
    INSERT INTO learner_decks (learner_id, deck_id, started_at)
    VALUES (sqlc.arg(learner_id), sqlc.arg(deck_id), coalesce(sqlc.narg(now)::timestamptz, now()))
    ON CONFLICT (learner_id, deck_id) DO NOTHING
    RETURNING started_at)
SELECT started_at, true AS now_started FROM started
UNION ALL
SELECT started_at, false FROM learner_decks WHERE learner_id = sqlc.arg(learner_id) AND deck_id = sqlc.arg(deck_id);

-- StartedDeckProgress lists the library decks the learner started for
-- self-study (learner_decks) and has no assignment of (those are read with
-- the assignments), first started first, with figures read from the
-- learner's cards as committed, not from a projection: the deck's words
-- (a card each since the start), the cards seen (out of New), learned (in
-- Review), due at now (the database's now() when null; not suspended),
-- and the reviews of those cards since the start, not undone. Each word is
-- one probe of cards (learner_id, lexeme_id) and one of review_log_card_id.
-- name: StartedDeckProgress :many
SELECT d.id, d.title, ld.started_at,
       count(di.lexeme_id)::integer AS cards_total,
       count(c.id) FILTER (WHERE c.state <> 0)::integer AS cards_seen,
       count(c.id) FILTER (WHERE c.state = 2)::integer AS cards_learned,
       count(c.id) FILTER (WHERE NOT c.suspended AND c.due <= coalesce(sqlc.narg(now)::timestamptz, now()))::integer AS cards_due,
       coalesce(sum(r.reviews), 0)::integer AS reviews
FROM learner_decks ld
JOIN decks d ON d.id = ld.deck_id
LEFT JOIN deck_items di ON di.deck_id = ld.deck_id
LEFT JOIN cards c ON c.learner_id = ld.learner_id AND c.lexeme_id = di.lexeme_id
LEFT JOIN LATERAL (SELECT count(*) AS reviews FROM review_log rl
                   WHERE rl.card_id = c.id AND rl.reviewed_at >= ld.started_at
                     AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = rl.id)) r ON true
WHERE ld.learner_id = sqlc.arg(learner_id)
  AND NOT EXISTS (SELECT 1 FROM assignments a WHERE a.learner_id = ld.learner_id AND a.deck_id = ld.deck_id)
GROUP BY d.id, d.title, ld.started_at
ORDER BY ld.started_at, d.id;
