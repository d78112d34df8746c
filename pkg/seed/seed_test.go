package seed

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
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

	seededAt := clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	rep, err := Load(ctx, pool, seededAt)
	require.NoError(t, err)
	require.EqualValues(t, len(words), rep.Lexemes)
	require.EqualValues(t, (len(words)+DeckSize-1)/DeckSize, rep.Decks)
	require.EqualValues(t, 6, rep.Users)

	var items, members int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM deck_items").Scan(&items))
	require.Equal(t, len(words), items)
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM class_members WHERE class_id = $1", ClassID).Scan(&members))
	require.Equal(t, len(Learners), members)
	var shared int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM class_members m JOIN classes c ON c.id = m.class_id
		WHERE m.learner_id = $1`, Learners[1].ID).Scan(&shared))
	require.Equal(t, 2, shared, "two teachers share a learner")
	for _, l := range Learners {
		var next time.Time
		require.NoError(t, pool.QueryRow(ctx, "SELECT next_at FROM learner_reminders WHERE learner_id = $1", l.ID).Scan(&next))
		require.Equal(t, learning.NextDailyReminder(seededAt.Now(), learning.Zone(l.Timezone)).UTC(), next.UTC(),
			"%s's chain starts after the seed's clock", l.Email)
	}

	rep, err = Load(ctx, pool, seededAt)
	require.NoError(t, err)
	require.Equal(t, Report{}, rep)
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM deck_items").Scan(&items))
	require.Equal(t, len(words), items)
}

func TestAddTeacherCreatesATeacherAndAClassOnce(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	ctx := context.Background()
	nt, err := AddTeacher(ctx, pool, "Cleo@Example.com", "Cleo Martin", "Europe/Rome", "Morning class")
	require.NoError(t, err)
	require.Equal(t, "cleo@example.com", nt.Email)
	require.Regexp(t, `^[A-Z0-9]{8}$`, nt.JoinCode)
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM users u JOIN classes c ON c.teacher_id = u.id
		WHERE u.id = $1 AND u.role = 'teacher' AND u.auth_subject IS NULL AND c.id = $2 AND c.join_code = $3`,
		nt.TeacherID, nt.ClassID, nt.JoinCode).Scan(&n))
	require.Equal(t, 1, n)
	for _, bad := range [][4]string{
		{"cleo@example.com", "Cleo", "Europe/Rome", "Again"},
		{"cleo@example.com\u200b", "Cleo", "Europe/Rome", "X"},
		{"dan@example.com", "Dan\u2028", "Europe/Rome", "X"},
		{"dan@example.com", "Dan", "Mars/Olympus", "X"},
		{"dan@example.com", "Dan", "UTC", ""},
	} {
		_, err := AddTeacher(ctx, pool, bad[0], bad[1], bad[2], bad[3])
		require.Error(t, err, "%q", bad)
	}
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM users").Scan(&n))
	require.Equal(t, 1, n, "refusals change nothing")
}
