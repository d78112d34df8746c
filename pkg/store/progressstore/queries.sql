-- The progress projections the consumers keep, as GetProgress reads them.

-- name: Streak :one
SELECT current, longest, last_day FROM learner_streaks WHERE learner_id = $1;

-- name: Achievements :many
SELECT code, earned_at FROM learner_achievements WHERE learner_id = $1 ORDER BY earned_at, code;

-- AssignmentProgress lists the learner's assignments (only teacher_id's
-- when set) with their progress row, zeros before the first.
-- name: AssignmentProgress :many
SELECT a.id, d.title, a.due_at, a.completed_at, coalesce(p.cards_total, 0)::integer AS cards_total,
       coalesce(p.cards_seen, 0)::integer AS cards_seen, coalesce(p.cards_learned, 0)::integer AS cards_learned,
       coalesce(p.reviews, 0)::integer AS reviews
FROM assignments a JOIN decks d ON d.id = a.deck_id
LEFT JOIN assignment_progress p ON p.assignment_id = a.id
WHERE a.learner_id = sqlc.arg(learner_id) AND (sqlc.narg(teacher_id)::uuid IS NULL OR a.teacher_id = sqlc.narg(teacher_id))
ORDER BY a.due_at, a.id;

-- Feed lists the learner's 20 latest feed items; when teacher_id is set,
-- only those of the teacher's relation to the learner: learner-wide items,
-- and those about the teacher's assignments or the lexemes of their decks.
-- name: Feed :many
SELECT f.kind, f.message, f.at FROM learner_feed f
WHERE f.learner_id = sqlc.arg(learner_id)
  AND (sqlc.narg(teacher_id)::uuid IS NULL OR f.learner_wide
       OR EXISTS (SELECT 1 FROM assignments a WHERE a.id = f.assignment_id AND a.teacher_id = sqlc.narg(teacher_id))
       OR EXISTS (SELECT 1 FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
                  WHERE a.learner_id = sqlc.arg(learner_id) AND a.teacher_id = sqlc.narg(teacher_id)
                    AND di.lexeme_id = f.lexeme_id))
ORDER BY f.id DESC LIMIT 20;
