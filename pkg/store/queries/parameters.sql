-- A learner's FSRS-6 parameters and the fits that made them (schema 00028,
-- pkg/fitting). learner_parameters and parameter_fits are written only by
-- the fit; the review reads the current parameters in its transaction.

-- CurrentParameters is the learner's current parameter set: their
-- learner_parameters row with the highest id (none: the defaults, as
-- store.ErrNotFound). A review reads it after locking the learner's row,
-- and AdoptParameters writes under the same lock, so a review is scheduled
-- by the set current when it commits.
-- name: CurrentParameters :one
SELECT id, weights::double precision[] AS weights, optimizer_version, fitted_at
FROM learner_parameters
WHERE learner_id = sqlc.arg(learner_id)
ORDER BY id DESC
LIMIT 1;

-- CurrentParametersOf is the current parameter set of each of learner_ids
-- that has one (CurrentParameters for many learners; the others have the
-- defaults).
-- name: CurrentParametersOf :many
SELECT DISTINCT ON (learner_id) learner_id, weights::double precision[] AS weights
FROM learner_parameters
WHERE learner_id = ANY (sqlc.arg(learner_ids)::uuid[])
ORDER BY learner_id, id DESC;

-- ParametersByIDs returns the parameter sets of ids (a replay of review
-- logs reads the sets their reviews name).
-- name: ParametersByIDs :many
SELECT id, learner_id, weights::double precision[] AS weights
FROM learner_parameters WHERE id = ANY (sqlc.arg(ids)::bigint[]);

-- LockLearner locks the learner's row as every write of a learner does
-- (FOR NO KEY UPDATE), and returns their zone.
-- name: LockLearner :one
SELECT timezone FROM users WHERE id = sqlc.arg(learner_id) FOR NO KEY UPDATE;

-- FitReviews lists the learner's reviews that are not undone, in the order
-- they were made, for a fit: their card, rating and instant, and their id
-- (the last one is the fit's last_review_id).
-- name: FitReviews :many
SELECT r.id, r.card_id, r.rating, r.reviewed_at
FROM review_log r
WHERE r.learner_id = sqlc.arg(learner_id)
  AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = r.id)
ORDER BY r.reviewed_at, r.id;

-- LastFit is the learner's most recent fit (store.ErrNotFound: none yet).
-- name: LastFit :one
SELECT id, last_review_id, kept, fitted_at FROM parameter_fits
WHERE learner_id = sqlc.arg(learner_id) ORDER BY id DESC LIMIT 1;

-- AdoptParameters makes weights the learner's current parameters.
-- name: AdoptParameters :one
INSERT INTO learner_parameters (learner_id, weights, optimizer_version, fitted_at)
VALUES (sqlc.arg(learner_id), sqlc.arg(weights)::double precision[], sqlc.arg(optimizer_version),
        coalesce(sqlc.narg(now)::timestamptz, now()))
RETURNING id;

-- RecordFit records one fit, kept (parameters_id set) or refused.
-- name: RecordFit :one
INSERT INTO parameter_fits (learner_id, fitted_at, review_count, last_review_id, train_items, test_items, weights,
    outcome, optimizer_version, log_loss, rmse_bins, current_parameters_id, current_log_loss, current_rmse_bins,
    kept, reason, parameters_id)
VALUES (sqlc.arg(learner_id), coalesce(sqlc.narg(now)::timestamptz, now()), sqlc.arg(review_count),
    sqlc.arg(last_review_id), sqlc.arg(train_items), sqlc.arg(test_items), sqlc.narg(weights)::double precision[],
    sqlc.arg(outcome), sqlc.arg(optimizer_version), sqlc.narg(log_loss), sqlc.narg(rmse_bins),
    sqlc.narg(current_parameters_id), sqlc.narg(current_log_loss), sqlc.narg(current_rmse_bins),
    sqlc.arg(kept), sqlc.arg(reason), sqlc.narg(parameters_id))
RETURNING id, fitted_at;

-- LearnerTeachers lists the teachers of the learner's classes (the
-- receivers of the learner's learner.parameters_changed webhooks).
-- name: LearnerTeachers :many
SELECT DISTINCT c.teacher_id FROM class_members m JOIN classes c ON c.id = m.class_id
WHERE m.learner_id = sqlc.arg(learner_id) ORDER BY c.teacher_id;

-- LearnersDueForFit lists, among the learners of task task_index of
-- task_count (the hash of the learner id splits them, as the drain splits
-- its tasks), those with at least min_first cross-day reviews and no fit
-- yet, or at least min_new cross-day reviews after their last fit's last
-- review, most new reviews first, at most max_learners. A cross-day
-- review is one not undone on a later study day than the card's review
-- before it (study_day against before_last_review's study day in the
-- learner's zone: the items' labels, optimizer.BuildItems); reviews
-- recorded before schema 00019 have no before_last_review and do not count.
-- name: LearnersDueForFit :many
WITH last_fit AS (
    SELECT DISTINCT ON (f.learner_id) f.learner_id, f.last_review_id
    FROM parameter_fits f ORDER BY f.learner_id, f.id DESC)
SELECT r.learner_id, count(*) AS new_reviews
FROM review_log r
JOIN users u ON u.id = r.learner_id
LEFT JOIN last_fit f ON f.learner_id = r.learner_id
WHERE mod(abs(hashtext(r.learner_id::text)::bigint), sqlc.arg(task_count)::bigint) = sqlc.arg(task_index)::bigint
  AND r.id > coalesce(f.last_review_id, 0)
  AND r.before_last_review IS NOT NULL
  AND r.study_day > ((r.before_last_review AT TIME ZONE u.timezone) - make_interval(hours => sqlc.arg(rollover_hours)::integer))::date
  AND NOT EXISTS (SELECT 1 FROM review_undo un WHERE un.review_id = r.id)
GROUP BY r.learner_id, f.last_review_id
HAVING count(*) >= CASE WHEN f.last_review_id IS NULL THEN sqlc.arg(min_first)::bigint ELSE sqlc.arg(min_new)::bigint END
ORDER BY new_reviews DESC, r.learner_id
LIMIT sqlc.arg(max_learners);

-- TryLockFit takes the transaction-scoped advisory lock of the learner's
-- fit, without waiting: false when another fit of theirs (an overlapping
-- execution of the fit job) holds it. It does not lock the learner's row,
-- so their reviews go on while they are fitted.
-- name: TryLockFit :one
SELECT pg_try_advisory_xact_lock(hashtextextended('lexora.fit:' || sqlc.arg(learner_id)::uuid::text, 0)) AS locked;
