-- The learner's feed (learner_feed), one row per event.

-- name: AddFeedItem :exec
-- Adds one item. lexeme_id is the card's lexeme (for a leech); an item that
-- names neither an assignment nor a card is about the learner as a whole.
INSERT INTO learner_feed (learner_id, event_id, kind, message, at, assignment_id, lexeme_id, learner_wide)
VALUES (@learner_id, @event_id, @kind, @message, @at, sqlc.narg('assignment_id')::uuid,
        (SELECT lexeme_id FROM cards WHERE id = sqlc.narg('card_id')::uuid),
        sqlc.narg('assignment_id')::uuid IS NULL AND sqlc.narg('card_id')::uuid IS NULL);
