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
-- Records an achievement; 0 rows when the learner already has it.
INSERT INTO learner_achievements (learner_id, code, earned_at, event_id) VALUES (@learner_id, @code, @earned_at, @event_id)
ON CONFLICT (learner_id, code) DO NOTHING;

-- name: Streak :one
SELECT current, longest, last_day FROM learner_streaks WHERE learner_id = $1;

-- name: Achievements :many
SELECT code, earned_at FROM learner_achievements WHERE learner_id = $1 ORDER BY earned_at, code;
