-- The progress projection: assignment_progress and assignment_daily_reviews.
-- Its updates are increments, applied once per event (outbox.HandleOnce),
-- each stamping updated_at with the consumer's clock (now: the database's
-- now() when null); AssignmentProgress is GetProgress's read of it.

-- name: AddToProgress :exec
-- Adds increments to each of the assignments: seen (1 when a card left
-- New), learned (+1 on entering Review, -1 on leaving it) and reviews, also
-- to their reviews of day. A review adds its own; an undo adds the opposite
-- (reviews -1; 0 for an assignment that did not count the review). The
-- creation event adds total, the assignment's number of cards at its
-- creation, and the cards' states at creation (reviews 0) to the
-- increments that reviews delivered before it left in the row; an edit of
-- the deck's entries (deck.entries_changed) adds its own total (entries
-- added less removed) and takes back the removed cards' seen and learned.
-- Totals are increments too (null adds nothing), so the creation and the
-- edits may be applied in any order.
-- Only assignments that still exist count: one deleted since the event was
-- enqueued (its learner was removed from its class, DeleteClassAssignments)
-- adds nothing, rather than failing on its foreign key.
WITH a AS (SELECT id FROM assignments WHERE id = ANY (@assignment_ids::uuid[])),
progress AS (
    INSERT INTO assignment_progress (assignment_id, learner_id, cards_total, cards_seen, cards_learned, reviews, updated_at)
    SELECT a.id, @learner_id::uuid, coalesce(sqlc.narg(total)::integer, 0), @seen::integer, @learned::integer,
           @reviews::integer, coalesce(sqlc.narg(now)::timestamptz, now()) FROM a
    ON CONFLICT (assignment_id) DO UPDATE SET
        cards_total = assignment_progress.cards_total + excluded.cards_total,
        cards_seen = assignment_progress.cards_seen + excluded.cards_seen,
        cards_learned = assignment_progress.cards_learned + excluded.cards_learned,
        reviews = assignment_progress.reviews + excluded.reviews,
        updated_at = excluded.updated_at)
INSERT INTO assignment_daily_reviews (assignment_id, day, reviews)
SELECT a.id, @day::date, @reviews::integer FROM a WHERE @reviews::integer <> 0
ON CONFLICT (assignment_id, day) DO UPDATE SET reviews = assignment_daily_reviews.reviews + excluded.reviews;

-- AssignmentProgress lists the learner's assignments (only teacher_id's
-- when set) with their progress row, zeros before the first. Pending: the
-- projection has not yet counted the assignment's creation (its
-- assignment.created, which adds the deck's size at the creation to
-- cards_total), so its figures are not yet the learner's, although
-- the learner's cards exist since the assignment's transaction. A review
-- delivered first leaves a row with cards_total 0; an empty deck has
-- nothing to count.
-- name: AssignmentProgress :many
SELECT a.id, d.title, a.due_at, a.completed_at, coalesce(p.cards_total, 0)::integer AS cards_total,
       coalesce(p.cards_seen, 0)::integer AS cards_seen, coalesce(p.cards_learned, 0)::integer AS cards_learned,
       coalesce(p.reviews, 0)::integer AS reviews,
       (coalesce(p.cards_total, 0) = 0 AND EXISTS (SELECT 1 FROM deck_items di WHERE di.deck_id = a.deck_id))::boolean AS pending
FROM assignments a JOIN decks d ON d.id = a.deck_id
LEFT JOIN assignment_progress p ON p.assignment_id = a.id
WHERE a.learner_id = sqlc.arg(learner_id) AND (sqlc.narg(teacher_id)::uuid IS NULL OR a.teacher_id = sqlc.narg(teacher_id))
ORDER BY a.due_at, a.id;
