package decks

import (
	"testing"

	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/schema"
)

// TestMigrationDownKeepsTeachersWords: migration 00027's Down refuses to
// run while own entries it cannot keep exist (a free part of speech), and
// runs, restoring the global title and lexeme keys, once they are gone; Up
// then applies again.
func TestMigrationDownKeepsTeachersWords(t *testing.T) {
	ctx, b := setup(t)
	db := stdlib.OpenDBFromPool(b.pool)
	defer func() { require.NoError(t, db.Close()) }()
	p, err := goose.NewProvider(goose.DialectPostgres, db, schema.FS)
	require.NoError(t, err)
	d, err := b.create(t, b.teacher, "Phrases", EntryInput{Term: "de nada", Meaning: "you're welcome", PartOfSpeech: "phrase"})
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 26)
	require.Error(t, err, "a teacher's entry with a free part of speech")
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM lexemes WHERE deck_id = $1`, d.ID), "kept")

	_, err = b.pool.Exec(ctx, `DELETE FROM decks WHERE id = $1`, d.ID)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 26)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `INSERT INTO decks (owner_id, title) VALUES ($1, 'Core English 01')`, b.teacher)
	require.Error(t, err, "titles are unique for everyone again")
	_, err = p.Up(ctx)
	require.NoError(t, err)
	_, err = b.create(t, b.teacher, "Core English 01")
	require.NoError(t, err)
}
