-- Users: the acting user, learners found or created by email, and the
-- learner row lock that serialises one learner's writes (so the outbox ids
-- of one learner's events follow commit order).

-- name: UserBySubject :one
SELECT id, role, timezone FROM users WHERE auth_subject = sqlc.arg(subject)::text;

-- LinkSubject links a first sign-in's subject to the account with its
-- verified (canonical) email, unless that account is linked already (then
-- it changes nothing); UserBySubject then finds the account.
-- name: LinkSubject :exec
UPDATE users SET auth_subject = sqlc.arg(subject)::text
WHERE email = sqlc.arg(email) AND auth_subject IS NULL;

-- FindOrCreateUser returns the user with the email, creating one with the
-- role when there is none; created tells which. A concurrent call with the
-- same email waits for the first on the row and then finds it.
-- name: FindOrCreateUser :one
INSERT INTO users (email, display_name, role, timezone)
VALUES (sqlc.arg(email), sqlc.arg(display_name), sqlc.arg(role), sqlc.arg(timezone))
ON CONFLICT (email) DO UPDATE SET email = excluded.email
RETURNING id, role, (xmax = 0)::boolean AS created;

-- LockEmailSkeleton serialises, until the transaction ends, the writes of
-- new accounts whose addresses share the skeleton (text.Skeleton), so that
-- EmailHasLookalike and the insert after it are one step: two look-alike
-- addresses added at once are not both let in. Lock class 26 is schema
-- 00026's; the key is hashtext(skeleton), so unrelated skeletons rarely wait.
-- name: LockEmailSkeleton :exec
SELECT pg_advisory_xact_lock(26, hashtext(sqlc.arg(skeleton)::text));

-- EmailHasLookalike reports whether a new account with the (canonical)
-- email would look like another account's: no account has the email, and
-- one with another email has its skeleton (users.email_skeleton, schema
-- 00026), unless both addresses are ASCII (two ASCII addresses that differ
-- are both real mailboxes of what look-alikes ASCII has, such as "rn" and
-- "m"; it is a non-ASCII letter that makes a look-alike on purpose).
-- name: EmailHasLookalike :one
SELECT EXISTS (
    SELECT 1 FROM users u
    WHERE u.email_skeleton = sqlc.arg(skeleton)::text AND u.email <> sqlc.arg(email)::text
      AND (sqlc.arg(email)::text ~ '[^\x01-\x7f]' OR u.email ~ '[^\x01-\x7f]')
      AND NOT EXISTS (SELECT 1 FROM users e WHERE e.email = sqlc.arg(email)::text));

-- name: LockUser :exec
SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE;

-- Timezone is the user's IANA zone name (read with learning.Zone).
-- name: Timezone :one
SELECT timezone FROM users WHERE id = $1;

-- VisibleLearnerTimezone is the learner's zone if the viewer may see them:
-- the learner themself, or a teacher of one of their classes.
-- name: VisibleLearnerTimezone :one
SELECT u.timezone FROM users u
WHERE u.id = sqlc.arg(learner_id) AND u.role = sqlc.arg(learner_role)
  AND (u.id = sqlc.arg(viewer_id) OR EXISTS (
      SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id
      WHERE m.learner_id = u.id AND c.teacher_id = sqlc.arg(viewer_id)));

-- name: IsTaughtBy :one
SELECT EXISTS (SELECT 1 FROM class_members m JOIN classes c ON c.id = m.class_id
               WHERE m.learner_id = sqlc.arg(learner_id) AND c.teacher_id = sqlc.arg(teacher_id));

-- Profile is the user's own account, for Me.
-- name: Profile :one
SELECT id, email, display_name, role, timezone FROM users WHERE id = $1;

-- LearnersClasses lists the classes the learner is in, by join date, with
-- their teacher's name.
-- name: LearnersClasses :many
SELECT c.id, c.name, t.display_name AS teacher_name, m.joined_at
FROM class_members m JOIN classes c ON c.id = m.class_id JOIN users t ON t.id = c.teacher_id
WHERE m.learner_id = $1
ORDER BY m.joined_at, c.id;
