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

-- FitLogExtent is the number of the learner's reviews that are not undone
-- and the id of the last (0: none): what a failed fit is recorded as having
-- seen, read apart from the fit that failed.
-- name: FitLogExtent :one
SELECT count(*) AS review_count, coalesce(max(r.id), 0)::bigint AS last_review_id
FROM review_log r
WHERE r.learner_id = sqlc.arg(learner_id)
  AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = r.id);

-- LastFit is the learner's most recent fit (store.ErrNotFound: none yet).
-- name: LastFit :one
SELECT id, last_review_id, kept, fitted_at FROM parameter_fits
WHERE learner_id = sqlc.arg(learner_id) ORDER BY id DESC LIMIT 1;

-- AdoptParameters makes weights the learner's current parameters, fitted
-- at now (NULL: clock_timestamp(), the adoption's instant at the end of the
-- fit's transaction, not now(), its start: a fit's transaction lasts up to
-- FIT_TIMEOUT, and reviews committed meanwhile were scheduled by the
-- parameters before).
-- name: AdoptParameters :one
INSERT INTO learner_parameters (learner_id, weights, optimizer_version, fitted_at)
VALUES (sqlc.arg(learner_id), sqlc.arg(weights)::double precision[], sqlc.arg(optimizer_version),
        coalesce(sqlc.narg(now)::timestamptz, clock_timestamp()))
RETURNING id;

-- RecordFit records one fit, kept (parameters_id set) or refused, at now
-- (NULL: clock_timestamp(), as AdoptParameters).
-- name: RecordFit :one
INSERT INTO parameter_fits (learner_id, fitted_at, review_count, last_review_id, train_items, test_items, weights,
    outcome, optimizer_version, log_loss, rmse_bins, current_parameters_id, current_log_loss, current_rmse_bins,
    kept, reason, parameters_id)
VALUES (sqlc.arg(learner_id), coalesce(sqlc.narg(now)::timestamptz, clock_timestamp()), sqlc.arg(review_count),
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
-- review, most new reviews first (counted up to min_first), then the
-- never fitted and the longest unfitted, at most max_learners. A cross-day
-- review is one not undone on a later study day than the card's review
-- before it (study_day against before_last_review's study day in the
-- learner's zone: the items' labels, optimizer.BuildItems); reviews
-- recorded before schema 00019 have no before_last_review and do not count.
-- last_fit_id is the last fit the selection counted from (0: none): a fit
-- starts only while it is still the last (pkg/fitting).
--
-- Bounded, not a scan of the review log: each learner's count stops at
-- min_first rows (LIMIT), and reads review_log_learner_reviewed from the
-- last fit's last review's reviewed_at less review_age_days (a later review
-- is made at most study.MaxReviewAge before it is recorded, so none with a
-- higher id is earlier). "r.id + 0" keeps the planner from ANDing in a
-- bitmap of review_log_pkey for id > last_review_id, which reads the ids
-- of every learner. On 54,896 reviews of 40 learners (20 never fitted,
-- 1,370 reviews each): 120-190 ms, a sequential scan of review_log and an
-- external sort, before; 18-25 ms, 1,278 buffers, after (EXPLAIN ANALYZE,
-- docs/architecture.md).
-- name: LearnersDueForFit :many
SELECT u.id AS learner_id, coalesce(f.id, 0)::bigint AS last_fit_id, n.new_reviews
FROM users u
LEFT JOIN LATERAL (
    SELECT pf.id, pf.last_review_id, lr.reviewed_at - make_interval(days => sqlc.arg(review_age_days)::integer) AS since
    FROM parameter_fits pf LEFT JOIN review_log lr ON lr.id = pf.last_review_id
    WHERE pf.learner_id = u.id ORDER BY pf.id DESC LIMIT 1) f ON true
CROSS JOIN LATERAL (
    SELECT count(*) AS new_reviews FROM (
        SELECT 1 FROM review_log r
        WHERE r.learner_id = u.id
          AND r.reviewed_at >= coalesce(f.since, '-infinity')
          AND r.id + 0 > coalesce(f.last_review_id, 0)
          AND r.before_last_review IS NOT NULL
          AND r.study_day > ((r.before_last_review AT TIME ZONE u.timezone) - make_interval(hours => sqlc.arg(rollover_hours)::integer))::date
          AND NOT EXISTS (SELECT 1 FROM review_undo un WHERE un.review_id = r.id)
        LIMIT sqlc.arg(min_first)::bigint) c) n
WHERE u.role = 'learner'
  AND mod(abs(hashtext(u.id::text)::bigint), sqlc.arg(task_count)::bigint) = sqlc.arg(task_index)::bigint
  AND n.new_reviews >= CASE WHEN f.id IS NULL THEN sqlc.arg(min_first)::bigint ELSE sqlc.arg(min_new)::bigint END
ORDER BY n.new_reviews DESC, f.id NULLS FIRST, u.id
LIMIT sqlc.arg(max_learners);

-- TryLockFit takes the transaction-scoped advisory lock of the learner's
-- fit, without waiting: false when another fit of theirs (an overlapping
-- execution of the fit job) holds it. It does not lock the learner's row,
-- so their reviews go on while they are fitted.
-- name: TryLockFit :one
SELECT pg_try_advisory_xact_lock(hashtextextended('lexora.fit:' || sqlc.arg(learner_id)::uuid::text, 0)) AS locked;

-- AdoptionInstant is the database clock's instant at the call
-- (clock_timestamp(), not now(): now() is the transaction's start), the
-- one instant a fit is recorded and adopted at.
-- name: AdoptionInstant :one
SELECT clock_timestamp()::timestamptz AS at;

-- LockFit takes the learner's fit lock as TryLockFit does, waiting for it:
-- for the short transaction that records a failed fit, whose own timed-out
-- transaction may hold the lock until its server process notices the
-- cancellation.
-- name: LockFit :exec
SELECT pg_advisory_xact_lock(hashtextextended('lexora.fit:' || sqlc.arg(learner_id)::uuid::text, 0));
