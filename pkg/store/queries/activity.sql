-- Study days, streaks and achievements (the activity subscriber's
-- projection): the subscriber's writes, then GetProgress's reads.

-- name: CountStudyDay :one
-- Counts one review on the learner's study day and returns the day's count
-- so far (1 for the day's first review).
INSERT INTO learner_daily_activity (learner_id, day, reviews) VALUES (@learner_id, @day, 1)
ON CONFLICT (learner_id, day) DO UPDATE SET reviews = learner_daily_activity.reviews + 1
RETURNING reviews;

-- name: CountCardsInState :one
-- Counts the learner's cards in state (a learning.State).
SELECT count(*) FROM cards WHERE learner_id = @learner_id AND state = @state;

-- name: LockStreak :one
-- Reads the learner's streak and locks it until the transaction ends.
SELECT current, longest, last_day FROM learner_streaks WHERE learner_id = @learner_id FOR UPDATE;

-- name: SaveStreak :exec
INSERT INTO learner_streaks (learner_id, current, longest, last_day) VALUES (@learner_id, @current, @longest, @last_day)
ON CONFLICT (learner_id) DO UPDATE SET current = excluded.current, longest = excluded.longest, last_day = excluded.last_day;

-- name: EarnAchievement :execrows
-- Records an achievement, with the review that earned it (review_id, NULL
-- when none did); 0 rows when the learner already has it.
INSERT INTO learner_achievements (learner_id, code, earned_at, event_id, review_id)
VALUES (@learner_id, @code, @earned_at, @event_id, sqlc.narg(review_id))
ON CONFLICT (learner_id, code) DO NOTHING;

-- name: UncountStudyDay :exec
-- Takes one review off the learner's study day (an undo): a day left with
-- none is deleted, as it is no longer a study day. The two statements see
-- the same row and exclude each other.
WITH dropped AS (
    DELETE FROM learner_daily_activity d WHERE d.learner_id = @learner_id AND d.day = @day AND d.reviews <= 1)
UPDATE learner_daily_activity a SET reviews = a.reviews - 1
WHERE a.learner_id = @learner_id AND a.day = @day AND a.reviews > 1;

-- name: StudyDays :many
-- The learner's study days, oldest first.
SELECT day FROM learner_daily_activity WHERE learner_id = @learner_id AND reviews > 0 ORDER BY day;

-- name: DeleteStreak :exec
DELETE FROM learner_streaks WHERE learner_id = @learner_id;

-- name: RevokeAchievement :exec
-- Revokes the learner's achievement code; when review_id is set, only if
-- that review earned it.
DELETE FROM learner_achievements
WHERE learner_id = @learner_id AND code = @code
  AND (sqlc.narg(review_id)::bigint IS NULL OR review_id = sqlc.narg(review_id));

-- name: Streak :one
SELECT current, longest, last_day FROM learner_streaks WHERE learner_id = $1;

-- name: Achievements :many
SELECT code, earned_at FROM learner_achievements WHERE learner_id = $1 ORDER BY earned_at, code;
