package seed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
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
	ctx, pool := pgtest.Setup(t)
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

// TestTheFirstLearnerHasCardsDueAndAnAssignment: the README's first
// session signs in as Mia, opens Today and starts reviewing. After the seed
// command's Load and StartFirstLearner she has a library deck of her own started and an assignment of the demo
// teacher's, due SeededAssignmentDueDays later, whose cards are all due at
// the seed's instant, the assignment's events in the outbox; loading again
// adds none of it twice.
func TestTheFirstLearnerHasCardsDueAndAnAssignment(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	seededAt := clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	mia := Learners[0]
	require.Equal(t, "Mia Laurent", mia.Name, "the learner README.md signs in as")
	for range 2 {
		_, err := Load(ctx, pool, seededAt)
		require.NoError(t, err)
		require.NoError(t, StartFirstLearner(ctx, pool, seededAt))

		var started, assignments, due, cards, created int
		var dueAt time.Time
		require.NoError(t, pool.QueryRow(ctx, `SELECT
			(SELECT count(*) FROM learner_decks ld JOIN decks d ON d.id = ld.deck_id WHERE ld.learner_id = $1 AND d.title = $2),
			(SELECT count(*) FROM assignments a JOIN decks d ON d.id = a.deck_id
			  WHERE a.learner_id = $1 AND a.teacher_id = $3 AND d.title = $4 AND a.completed_at IS NULL),
			(SELECT max(due_at) FROM assignments WHERE learner_id = $1),
			(SELECT count(*) FROM cards WHERE learner_id = $1 AND due <= $5 AND NOT suspended),
			(SELECT count(*) FROM cards WHERE learner_id = $1),
			(SELECT count(*) FROM outbox_events WHERE topic = 'assignment.created' AND payload->>'learner_id' = $1::text)`,
			mia.ID, SelfStudyDeck, TeacherID, AssignedDeck, seededAt.Now()).Scan(&started, &assignments, &dueAt, &due, &cards, &created))
		require.Equal(t, 1, started, "Mia has started %s", SelfStudyDeck)
		require.Equal(t, 1, assignments, "Ada assigned %s to Mia", AssignedDeck)
		require.Equal(t, seededAt.Now().AddDate(0, 0, SeededAssignmentDueDays).UTC(), dueAt.UTC())
		require.Equal(t, 2*DeckSize, cards, "a card for each word of both decks")
		require.Equal(t, cards, due, "every card is due when the seed ran")
		require.Equal(t, 1, created, "the assignment was announced once")
	}
	var others int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM cards WHERE learner_id <> $1)
		+ (SELECT count(*) FROM assignments WHERE learner_id <> $1)`, mia.ID).Scan(&others))
	require.Zero(t, others, "the other learners start empty")
}

func TestAddTeacherCreatesATeacherAndAClassOnce(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
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
