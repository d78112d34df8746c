-- Assignments of decks to learners.

-- InsertAssignment stores the assignment of the deck to the learner in the
-- class (of teacher_id: the foreign key checks it) if the deck is the
-- teacher's or the library's; no row when it is not, or when the class
-- already gave the deck to the learner (the statement does not fail, so a
-- transaction assigning to several learners goes on).
-- name: InsertAssignment :one
INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
SELECT sqlc.arg(class_id)::uuid, d.id, sqlc.arg(learner_id)::uuid, sqlc.arg(teacher_id)::uuid, sqlc.arg(due_at)::timestamptz
FROM decks d WHERE d.id = sqlc.arg(deck_id) AND (d.owner_id IS NULL OR d.owner_id = sqlc.arg(teacher_id)::uuid)
ON CONFLICT (class_id, learner_id, deck_id) DO NOTHING
RETURNING id;

-- DeckAssignable finds the deck if the teacher may assign it (it is theirs
-- or the library's; no row otherwise) and tells whether it is archived
-- (then the teacher may not, until they take it out of the archive).
-- name: DeckAssignable :one
SELECT (d.archived_at IS NOT NULL)::boolean AS archived FROM decks d
WHERE d.id = sqlc.arg(deck_id) AND (d.owner_id IS NULL OR d.owner_id = sqlc.arg(teacher_id)::uuid);

-- name: MarkAssignmentCompleted :exec
UPDATE assignments SET completed_at = sqlc.arg(completed_at)::timestamptz WHERE id = sqlc.arg(assignment_id);

-- name: AssignmentsOfLexeme :many
SELECT a.id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
WHERE a.learner_id = sqlc.arg(learner_id) AND di.lexeme_id = sqlc.arg(lexeme_id)
ORDER BY a.id;

-- CompleteAssignments marks those of ids complete whose every lexeme has a
-- card of the learner in the learned state, or suspended as a leech (it
-- will not be scheduled again, so it must not hold the assignment open).
-- name: CompleteAssignments :many
UPDATE assignments a SET completed_at = sqlc.arg(completed_at)::timestamptz
WHERE a.id = ANY(sqlc.arg(ids)::uuid[]) AND a.completed_at IS NULL
  AND NOT EXISTS (
      SELECT 1 FROM deck_items di
      LEFT JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = a.learner_id
      WHERE di.deck_id = a.deck_id AND c.state IS DISTINCT FROM sqlc.arg(learned)
        AND NOT coalesce(c.suspended, false))
RETURNING a.id, a.deck_id, a.learner_id, a.teacher_id, a.due_at;

-- ActiveDecks are the class's decks (class_decks) that are not yet due at
-- now, except those the class already gave learner_id, each with its due
-- date. Assignments to one learner, and those made through the teacher's
-- other classes, do not count.
-- name: ActiveDecks :many
SELECT cd.deck_id, cd.due_at
FROM class_decks cd
WHERE cd.class_id = sqlc.arg(class_id) AND cd.due_at > sqlc.arg(now)
  AND NOT EXISTS (SELECT 1 FROM assignments mine WHERE mine.class_id = cd.class_id
                  AND mine.learner_id = sqlc.arg(learner_id) AND mine.deck_id = cd.deck_id)
ORDER BY cd.deck_id;

-- AssignClassDeck records the deck as the class's, due at due_at, at now
-- (the database's now() when null). A deck the class has and that is not
-- yet due at now is left as it is (no row returned); one that is due
-- already is renewed with the new due date.
-- name: AssignClassDeck :one
INSERT INTO class_decks (class_id, deck_id, due_at, assigned_at)
VALUES (sqlc.arg(class_id), sqlc.arg(deck_id), sqlc.arg(due_at), coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (class_id, deck_id) DO UPDATE SET due_at = excluded.due_at, assigned_at = excluded.assigned_at
WHERE class_decks.due_at <= excluded.assigned_at
RETURNING true;

-- ClassDeckDue is the due date the class keeps for the deck (class_decks).
-- name: ClassDeckDue :one
SELECT due_at FROM class_decks WHERE class_id = sqlc.arg(class_id) AND deck_id = sqlc.arg(deck_id);

-- AssignmentDue is the due date of the deck the class gave the learner.
-- name: AssignmentDue :one
SELECT due_at FROM assignments
WHERE class_id = sqlc.arg(class_id) AND learner_id = sqlc.arg(learner_id) AND deck_id = sqlc.arg(deck_id);

-- IsAssignmentVisible reports whether the assignment is the learner's and, when
-- teacher_id is set, that teacher's.
-- name: IsAssignmentVisible :one
SELECT EXISTS (SELECT 1 FROM assignments
               WHERE id = sqlc.arg(assignment_id) AND learner_id = sqlc.arg(learner_id)
                 AND (sqlc.narg(teacher_id)::uuid IS NULL OR teacher_id = sqlc.narg(teacher_id)));
