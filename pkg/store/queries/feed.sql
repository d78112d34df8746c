-- The learner's feed (learner_feed), one row per event.

-- name: AddFeedItem :exec
-- Adds one item. lexeme_id is the card's lexeme (for a leech); an item that
-- names neither an assignment nor a card is about the learner as a whole.
INSERT INTO learner_feed (learner_id, event_id, kind, message, at, assignment_id, lexeme_id, learner_wide)
VALUES (@learner_id, @event_id, @kind, @message, @at, sqlc.narg('assignment_id')::uuid,
        (SELECT lexeme_id FROM cards WHERE id = sqlc.narg('card_id')::uuid),
        sqlc.narg('assignment_id')::uuid IS NULL AND sqlc.narg('card_id')::uuid IS NULL);

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
