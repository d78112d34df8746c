-- The progress projection: assignment_progress and assignment_daily_reviews.
-- Its updates are increments, applied once per event (outbox.HandleOnce).

-- name: UpsertProgressTotal :exec
-- Reviews delivered before the creation event left increments in the row;
-- the cards' states at creation add to them.
INSERT INTO assignment_progress (assignment_id, learner_id, cards_total, cards_seen, cards_learned)
VALUES (@assignment_id, @learner_id, @cards_total, @cards_seen, @cards_learned)
ON CONFLICT (assignment_id) DO UPDATE SET
    cards_total = excluded.cards_total,
    cards_seen = assignment_progress.cards_seen + excluded.cards_seen,
    cards_learned = assignment_progress.cards_learned + excluded.cards_learned,
    updated_at = now();

-- name: ApplyReview :exec
-- Adds one review to each of the assignments and to their reviews of day:
-- seen is 1 when the card left New, learned +1 on entering Review and -1 on
-- leaving it.
WITH a AS (SELECT unnest(@assignment_ids::uuid[]) AS id),
progress AS (
    INSERT INTO assignment_progress (assignment_id, learner_id, cards_seen, cards_learned, reviews)
    SELECT a.id, @learner_id::uuid, @seen::integer, @learned::integer, 1 FROM a
    ON CONFLICT (assignment_id) DO UPDATE SET
        cards_seen = assignment_progress.cards_seen + excluded.cards_seen,
        cards_learned = assignment_progress.cards_learned + excluded.cards_learned,
        reviews = assignment_progress.reviews + 1,
        updated_at = now())
INSERT INTO assignment_daily_reviews (assignment_id, day, reviews)
SELECT a.id, @day::date, 1 FROM a
ON CONFLICT (assignment_id, day) DO UPDATE SET reviews = assignment_daily_reviews.reviews + 1;
