-- The development sign-in (functions/cmd/server/devsignin.go; AUTH_DEV
-- only, never on Cloud Run): the accounts it offers, and the account and
-- token subject a sign-in names (a linked account's subject, else its id).

-- DevUsers lists at most max_users accounts: operators, teachers, then
-- learners, each by name.
-- name: DevUsers :many
SELECT id, display_name, email, role FROM users
ORDER BY array_position(ARRAY['operator', 'teacher', 'learner'], role), display_name, id
LIMIT sqlc.arg(max_users);

-- DevUser is the account with the id, or with the (canonical) email: give
-- one, the other null.
-- name: DevUser :one
SELECT id, display_name, email, role, coalesce(auth_subject, id::text)::text AS subject FROM users
WHERE id = sqlc.narg(id) OR email = sqlc.narg(email);
