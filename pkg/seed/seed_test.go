package seed

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/pgtest"
)

func TestWordsAreCompleteRows(t *testing.T) {
	t.Parallel()
	words, err := Words()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(words), 500)
	for _, w := range words {
		require.NotEmpty(t, w.Lemma)
		require.Contains(t, []string{"noun", "verb", "adjective", "adverb"}, w.PartOfSpeech, w.Lemma)
		require.NotEmpty(t, w.Definition, w.Lemma)
		require.NotEmpty(t, w.Example, w.Lemma)
	}
}

func TestLoadIsIdempotent(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := context.Background()
	words, err := Words()
	require.NoError(t, err)

	rep, err := Load(ctx, pool)
	require.NoError(t, err)
	require.EqualValues(t, len(words), rep.Lexemes)
	require.EqualValues(t, (len(words)+DeckSize-1)/DeckSize, rep.Decks)
	require.EqualValues(t, 5, rep.Users)

	var items, members int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM deck_items").Scan(&items))
	require.Equal(t, len(words), items)
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM class_members WHERE class_id = $1", ClassID).Scan(&members))
	require.Equal(t, len(Learners), members)

	rep, err = Load(ctx, pool)
	require.NoError(t, err)
	require.Equal(t, Report{}, rep)
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM deck_items").Scan(&items))
	require.Equal(t, len(words), items)
}
