package classroom

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/schema"
)

// TestMigrationGivesAssignmentsTheirClass: migration 00022 puts each
// existing assignment in its teacher's earliest class that its learner is
// in (not a later one, not another teacher's), and its Down keeps one
// assignment per deck, learner and teacher.
func TestMigrationGivesAssignmentsTheirClass(t *testing.T) {
	ctx, b := setup(t)
	db := stdlib.OpenDBFromPool(b.pool)
	defer func() { require.NoError(t, db.Close()) }()
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 21)
	require.NoError(t, err)

	// The teacher's later class also holds the learner; the other teacher's
	// class (B, created in between) holds them too.
	later, created := uuid.New(), time.Date(2026, 1, 5, 8, 0, 0, 0, time.UTC)
	exec := func(sql string, args ...any) {
		_, err := b.pool.Exec(ctx, sql, args...)
		require.NoError(t, err, sql)
	}
	exec(`UPDATE classes SET created_at = $1 WHERE id = $2`, created, b.class)
	exec(`INSERT INTO class_members (class_id, learner_id) SELECT id, $2 FROM classes WHERE teacher_id = $1`, b.otherTeacher, b.learner)
	exec(`INSERT INTO classes (id, teacher_id, name, created_at) VALUES ($1, $2, 'Later', $3)`, later, b.teacher, created.Add(24*time.Hour))
	exec(`INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)`, later, b.learner)
	exec(`INSERT INTO assignments (deck_id, learner_id, teacher_id, due_at) VALUES ($1, $2, $3, $4)`,
		b.deck, b.learner, b.teacher, b.clock.Now().Add(7*24*time.Hour))
	_, err = p.Up(ctx)
	require.NoError(t, err)
	var class uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT class_id FROM assignments WHERE learner_id = $1`, b.learner).Scan(&class))
	require.Equal(t, b.class, class, "the teacher's earliest class the learner is in")

	// The same deck through the later class too: Down keeps the first.
	_, err = b.assign(t, b.teacher, AssignRequest{ClassID: later, DeckID: b.deck, DueAt: b.clock.Now().Add(24 * time.Hour)})
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 21)
	require.NoError(t, err)
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM assignments`).Scan(&n))
	require.Equal(t, 1, n)
	_, err = p.Up(ctx)
	require.NoError(t, err)
}
