-- Classes, their members and invitations.

-- name: ClassByJoinCode :one
SELECT id, teacher_id FROM classes WHERE join_code = sqlc.arg(join_code)::text;

-- name: TeachersClass :one
SELECT id FROM classes WHERE id = sqlc.arg(class_id) AND teacher_id = sqlc.arg(teacher_id);

-- name: AddMember :exec
INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2);

-- Invite records an invitation at now (the database's now() when null)
-- unless one was recorded less than interval_secs before; it returns no row
-- then.
-- name: Invite :one
INSERT INTO class_invitations (class_id, learner_id, invited_at)
VALUES (sqlc.arg(class_id), sqlc.arg(learner_id), coalesce(sqlc.narg(now)::timestamptz, now()))
ON CONFLICT (class_id, learner_id) DO UPDATE SET invited_at = excluded.invited_at
WHERE class_invitations.invited_at < excluded.invited_at - make_interval(secs => sqlc.arg(interval_secs)::double precision)
RETURNING true;
