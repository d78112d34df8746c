package store

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/schema"
)

// TestEmailSkeletonIsTextSkeleton: the database's email_skeleton (schema
// 00026), which its trigger writes into users.email_skeleton, is
// text.Skeleton, which the look-up is given: on every character of the
// table, alone and between letters, and on addresses.
func TestEmailSkeletonIsTextSkeleton(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	inputs := []string{"sam@example.com", "sa\u1e43@example.com", "s\u0430m@example.com", "jos\u00e9@example.com",
		"zo\u0065\u0308@example.com", "\u0440\u0430\u0443@example.com", "\u6771\u4eac\u3059\u3057@example.jp", "", "a"}
	for r := range text.Prototypes() {
		inputs = append(inputs, string(r), "a"+string(r)+"b")
	}
	rows, err := pool.Query(ctx, `SELECT s, email_skeleton(s) FROM unnest($1::text[]) AS s`, inputs)
	require.NoError(t, err)
	defer rows.Close()
	n := 0
	for rows.Next() {
		var in, skeleton string
		require.NoError(t, rows.Scan(&in, &skeleton))
		require.Equal(t, text.Skeleton(in), skeleton, "%+q", in)
		n++
	}
	require.NoError(t, rows.Err())
	require.Len(t, inputs, n)
}

// TestEmailSkeletonWrittenOnEveryWrite: the trigger fills
// users.email_skeleton on an insert that leaves it out, corrects one that
// gives it wrong, and follows an update of the email.
func TestEmailSkeletonWrittenOnEveryWrite(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	var skeleton string
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role) VALUES ('sam@example.com', 'Sam', 'learner')
		RETURNING email_skeleton`).Scan(&skeleton))
	require.Equal(t, text.Skeleton("sam@example.com"), skeleton)
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role, email_skeleton) VALUES ('kim@example.com', 'Kim', 'learner', 'x')
		RETURNING email_skeleton`).Scan(&skeleton))
	require.Equal(t, text.Skeleton("kim@example.com"), skeleton)
	require.NoError(t, pool.QueryRow(ctx, `UPDATE users SET email = $1 WHERE email = 'kim@example.com'
		RETURNING email_skeleton`, "jos\u00e9@example.com").Scan(&skeleton))
	require.Equal(t, text.Skeleton("jos\u00e9@example.com"), skeleton)
	require.NoError(t, pool.QueryRow(ctx, `UPDATE users SET email_skeleton = 'x' WHERE email = 'sam@example.com'
		RETURNING email_skeleton`).Scan(&skeleton))
	require.Equal(t, text.Skeleton("sam@example.com"), skeleton)
}

// TestEmailHasLookalike: a new address with another account's skeleton is
// a look-alike unless both are ASCII; the address of an account is not;
// the look-up uses users_email_skeleton.
func TestEmailHasLookalike(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	q := On(pool)
	_, err := pool.Exec(ctx, `INSERT INTO users (email, display_name, role) VALUES ('sam@example.com', 'Sam', 'learner'), ('modern@example.com', 'M', 'teacher')`)
	require.NoError(t, err)
	for email, want := range map[string]bool{
		"sa\u1e43@example.com": true, "s\u0430m@example.com": true, "sam@example.com": false, "tam@example.com": false,
		"rnodern@example.com":       false, // both ASCII
		"rnodern@example.com\u0301": true,
		"jos\u00e9@example.com":     false, // no jose@
	} {
		got, err := q.EmailHasLookalike(ctx, text.Skeleton(email), email)
		require.NoError(t, err)
		require.Equal(t, want, got, email)
	}
	_, err = pool.Exec(ctx, `INSERT INTO users (email, display_name, role) VALUES ($1, 'Sam', 'learner')`, "sa\u1e43@example.com")
	require.NoError(t, err)
	got, err := q.EmailHasLookalike(ctx, text.Skeleton("sa\u1e43@example.com"), "sa\u1e43@example.com")
	require.NoError(t, err)
	require.False(t, got, "an address that has an account is that account, not a new look-alike")

	// The look-up itself reads the index (seqscan off: the table is tiny).
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { require.NoError(t, tx.Rollback(ctx)) }()
	_, err = tx.Exec(ctx, `SET LOCAL enable_seqscan = off`)
	require.NoError(t, err)
	rows, err := tx.Query(ctx, "EXPLAIN "+emailHasLookalike, text.Skeleton("sa\u1e43@example.com"), "sa\u1e43@example.com")
	require.NoError(t, err)
	var plan strings.Builder
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan.WriteString(line + "\n")
	}
	require.NoError(t, rows.Err())
	require.Contains(t, plan.String(), "users_email_skeleton", plan.String())
}

// TestSkeletonMigration: schema 00026 fills the skeleton of every address
// stored before it, unquotes a stored quoted local part that needs no
// quoting unless that merges two accounts, and its Down removes what it
// added.
func TestSkeletonMigration(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	db := stdlib.OpenDBFromPool(pool)
	defer func() { require.NoError(t, db.Close()) }()
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 25)
	require.NoError(t, err)
	require.Zero(t, count(t, pool, `SELECT count(*) FROM information_schema.columns WHERE table_name = 'users' AND column_name = 'email_skeleton'`))
	_, err = pool.Exec(ctx, `INSERT INTO users (email, display_name, role) VALUES
		('sa'||U&'\1E43'||'@example.com', 'a', 'learner'), ('"kim.lee"@example.com', 'b', 'learner'),
		('"sam"@example.com', 'c', 'learner'), ('sam@example.com', 'd', 'learner'), ('"kim@lee"@example.com', 'e', 'learner')`)
	require.NoError(t, err)
	_, err = p.Up(ctx)
	require.NoError(t, err)

	rows, err := pool.Query(ctx, `SELECT email, email_skeleton FROM users ORDER BY display_name`)
	require.NoError(t, err)
	defer rows.Close()
	var emails []string
	for rows.Next() {
		var email, skeleton string
		require.NoError(t, rows.Scan(&email, &skeleton))
		require.Equal(t, text.Skeleton(email), skeleton, email)
		emails = append(emails, email)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"sa\u1e43@example.com", "kim.lee@example.com", `"sam"@example.com`, "sam@example.com", `"kim@lee"@example.com`}, emails,
		"unquoted when that merges no accounts; a quoted string that needs quotes is kept for a person to decide")
}

// count is the one integer sql answers.
func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}
