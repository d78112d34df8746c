-- Classes, their members and invitations.

-- name: ClassByJoinCode :one
SELECT id, teacher_id, name FROM classes WHERE join_code = sqlc.arg(join_code)::text;

-- LockTeachersClass locks the teacher's class against a concurrent
-- assignment to it (LockClassForEnrolment waits for it), so that a learner
-- who joins while a deck is assigned to the class gets the deck either
-- from the assignment or from the enrolment.
-- name: LockTeachersClass :one
SELECT id FROM classes WHERE id = sqlc.arg(class_id) AND teacher_id = sqlc.arg(teacher_id) FOR NO KEY UPDATE;

-- LockClassForEnrolment waits for an assignment to the class in progress
-- (LockTeachersClass); enrolments to the class do not wait for each other.
-- name: LockClassForEnrolment :exec
SELECT 1 FROM classes WHERE id = $1 FOR SHARE;

-- LockClassLearners locks the rows of the class's learners (only
-- learner_id's when set), in id order so that two transactions locking
-- learners of overlapping classes cannot deadlock, and lists their ids.
-- name: LockClassLearners :many
SELECT u.id FROM class_members m JOIN users u ON u.id = m.learner_id
WHERE m.class_id = sqlc.arg(class_id) AND u.role = sqlc.arg(learner_role)
  AND (sqlc.narg(learner_id)::uuid IS NULL OR u.id = sqlc.narg(learner_id)::uuid)
ORDER BY u.id
FOR NO KEY UPDATE OF u;

-- name: TeachersClassName :one
SELECT name FROM classes WHERE id = sqlc.arg(class_id) AND teacher_id = sqlc.arg(teacher_id);

-- name: AddClassMember :exec
INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2);

-- InviteToClass records an invitation at now (the database's now() when null)
-- unless one was recorded less than interval_secs before; it returns no row
-- then.
-- name: InviteToClass :one
INSERT INTO class_invitations (class_id, learner_id, invited_at)
VALUES (sqlc.arg(class_id), sqlc.arg(learner_id), coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (class_id, learner_id) DO UPDATE SET invited_at = excluded.invited_at
WHERE class_invitations.invited_at < excluded.invited_at - make_interval(secs => sqlc.arg(interval_secs)::double precision)
RETURNING true;

-- AddAccount creates the account of a signed-in identity that has none
-- (self-serve: a user becomes a teacher with their first class, a learner
-- by joining one with its code), linked to its subject; no row when the
-- email or the subject has an account already.
-- name: AddAccount :one
INSERT INTO users (id, email, display_name, role, timezone, auth_subject, created_at)
VALUES (sqlc.arg(id), sqlc.arg(email), sqlc.arg(display_name), sqlc.arg(role), sqlc.arg(timezone),
        sqlc.arg(subject)::text, coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT DO NOTHING
RETURNING id;

-- CreateClass stores a class with a join code unless that code is taken
-- (no row then), created at now (the database's now() when null).
-- name: CreateClass :one
INSERT INTO classes (teacher_id, name, join_code, created_at)
VALUES (sqlc.arg(teacher_id), sqlc.arg(name), sqlc.arg(join_code)::text, coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (join_code) DO NOTHING
RETURNING id, created_at;

-- name: TeachersClasses :many
SELECT id, name, join_code, created_at FROM classes WHERE teacher_id = $1 ORDER BY created_at, id;

-- MembersOfTeachersClasses lists the members of every class of the teacher.
-- name: MembersOfTeachersClasses :many
SELECT m.class_id, u.id, u.display_name, u.email, m.joined_at
FROM class_members m JOIN classes c ON c.id = m.class_id JOIN users u ON u.id = m.learner_id
WHERE c.teacher_id = $1
ORDER BY m.class_id, u.display_name, u.id;

-- ClassDecks lists the decks assigned to the teacher's classes
-- (class_decks), or with class_id to that one class only, by class, then due
-- date, title and deck.
-- name: ClassDecks :many
SELECT cd.class_id, cd.deck_id, d.title, cd.due_at, cd.assigned_at, cd.desired_retention
FROM class_decks cd JOIN classes c ON c.id = cd.class_id JOIN decks d ON d.id = cd.deck_id
WHERE c.teacher_id = sqlc.arg(teacher_id)
  AND (sqlc.narg(class_id)::uuid IS NULL OR cd.class_id = sqlc.narg(class_id))
ORDER BY cd.class_id, cd.due_at, d.title, cd.deck_id;

-- LibraryDecks lists the decks a caller may see: the library's (no owner)
-- and, with teacher_id, that teacher's own that are not archived; each with its number of words
-- and whether learner_id has started it (StartDeck) or been assigned it.
-- name: LibraryDecks :many
SELECT d.id, d.title, d.description, d.level, (d.owner_id IS NULL)::boolean AS library,
       (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id) AS words,
       (EXISTS (SELECT 1 FROM learner_decks ld WHERE ld.deck_id = d.id AND ld.learner_id = sqlc.narg(learner_id)::uuid)
        OR EXISTS (SELECT 1 FROM assignments a WHERE a.deck_id = d.id AND a.learner_id = sqlc.narg(learner_id)::uuid))::boolean AS started
FROM decks d
WHERE d.owner_id IS NULL OR (d.owner_id = sqlc.narg(teacher_id)::uuid AND d.archived_at IS NULL)
ORDER BY d.owner_id IS NOT NULL, d.level NULLS LAST, d.title;

-- ClassAssignments is the class's progress grid: each assignment made
-- through the class to a current member of it, with the progress
-- projection (null until the drain first handled it) and how many of its
-- cards are due at now (from the cards themselves, not a projection).
-- name: ClassAssignments :many
SELECT m.learner_id, a.id AS assignment_id, a.deck_id, d.title, a.due_at, a.completed_at,
       p.cards_total, p.cards_seen, p.cards_learned, p.reviews, p.updated_at AS progress_updated_at,
       (SELECT count(*) FROM deck_items di JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = a.learner_id
        WHERE di.deck_id = a.deck_id AND c.due <= sqlc.arg(now) AND NOT c.suspended) AS cards_due
FROM class_members m
JOIN assignments a ON a.class_id = m.class_id AND a.learner_id = m.learner_id
JOIN decks d ON d.id = a.deck_id
LEFT JOIN assignment_progress p ON p.assignment_id = a.id
WHERE m.class_id = sqlc.arg(class_id)
ORDER BY m.learner_id, d.title, a.id;

-- ClassStudyDays is, for each assignment of ClassAssignments with a
-- review, the last study day with one (the assignment_daily_reviews
-- projection).
-- name: ClassStudyDays :many
SELECT r.assignment_id, max(r.day)::date AS last_study_day
FROM class_members m
JOIN assignments a ON a.class_id = m.class_id AND a.learner_id = m.learner_id
JOIN assignment_daily_reviews r ON r.assignment_id = a.id AND r.reviews > 0
WHERE m.class_id = sqlc.arg(class_id)
GROUP BY r.assignment_id;

-- ClassMembers lists the class's learners.
-- name: ClassMembers :many
SELECT u.id, u.display_name FROM class_members m JOIN users u ON u.id = m.learner_id
WHERE m.class_id = $1 ORDER BY u.display_name, u.id;

-- HardestWords are the words of the decks assigned through the class to its
-- members that they lapsed on most (an Again on a learned card), summed
-- over the members' cards, with how many members lapsed on each and how
-- many cards of it are suspended as leeches; at most max_words, most lapses
-- first.
-- name: HardestWords :many
SELECT l.id, l.lemma, l.part_of_speech, sum(c.lapses)::bigint AS lapses,
       count(*) FILTER (WHERE c.lapses > 0) AS learners, count(*) FILTER (WHERE c.suspended) AS leeches
FROM class_members m
JOIN cards c ON c.learner_id = m.learner_id
JOIN lexemes l ON l.id = c.lexeme_id
WHERE m.class_id = sqlc.arg(class_id) AND c.lapses > 0
  AND EXISTS (SELECT 1 FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
              WHERE a.class_id = m.class_id AND a.learner_id = m.learner_id AND di.lexeme_id = c.lexeme_id)
GROUP BY l.id, l.lemma, l.part_of_speech
ORDER BY lapses DESC, l.lemma, l.id
LIMIT sqlc.arg(max_words);

-- LockClassDeck locks the teacher's class deck (class_decks) and returns
-- its desired retention (store.ErrNotFound: the class is not the
-- teacher's, or it does not have the deck).
-- name: LockClassDeck :one
SELECT cd.desired_retention FROM class_decks cd JOIN classes c ON c.id = cd.class_id
WHERE cd.class_id = sqlc.arg(class_id) AND cd.deck_id = sqlc.arg(deck_id) AND c.teacher_id = sqlc.arg(teacher_id)
FOR NO KEY UPDATE OF cd;

-- ClassDeckRetention is LockClassDeck without the lock, for a read.
-- name: ClassDeckRetention :one
SELECT cd.desired_retention FROM class_decks cd JOIN classes c ON c.id = cd.class_id
WHERE cd.class_id = sqlc.arg(class_id) AND cd.deck_id = sqlc.arg(deck_id) AND c.teacher_id = sqlc.arg(teacher_id);

-- SetClassDeckRetention sets the class deck's desired retention (in
-- [0.80, 0.95], the table's check).
-- name: SetClassDeckRetention :exec
UPDATE class_decks SET desired_retention = sqlc.arg(desired_retention)
WHERE class_id = sqlc.arg(class_id) AND deck_id = sqlc.arg(deck_id);

-- WorkloadCards lists, for a workload simulation, the cards of the deck
-- (not suspended) of each current learner of the class who has the deck
-- from the class, with the learner's zone, by learner then the deck's
-- order.
-- name: WorkloadCards :many
SELECT a.learner_id, u.timezone, c.state, c.stability, c.difficulty, c.due, c.last_review
FROM assignments a
JOIN class_members m ON m.class_id = a.class_id AND m.learner_id = a.learner_id
JOIN users u ON u.id = a.learner_id
JOIN deck_items di ON di.deck_id = a.deck_id
JOIN cards c ON c.learner_id = a.learner_id AND c.lexeme_id = di.lexeme_id
WHERE a.class_id = sqlc.arg(class_id) AND a.deck_id = sqlc.arg(deck_id) AND NOT c.suspended
ORDER BY a.learner_id, di.position;
