package seed

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/webhooks"
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

// seeded is a database of the test's own, seeded as the seed command does
// (Load, then StartFirstLearner) at the instant of the clock it returns.
func seeded(t *testing.T) (context.Context, *pgxpool.Pool, *clocktest.Stub) {
	t.Helper()
	ctx, pool := pgtest.Setup(t)
	seededAt := clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	_, err := Load(ctx, pool, seededAt)
	require.NoError(t, err)
	require.NoError(t, StartFirstLearner(ctx, pool, seededAt))
	return ctx, pool, seededAt
}

// TestTheFirstLearnerHasCardsDueAndAnAssignment: the README's first
// session signs in as Mia, opens Today and starts reviewing. After the seed
// command's Load and StartFirstLearner she has a library deck of her own
// started, and the demo class has AssignedDeck as a class (class_decks),
// due SeededAssignmentDueDays later: each of its learners (Mia, Noah, Yui)
// has it from Ada, once, with every card due at the seed's instant and the
// assignment's events in the outbox. Noah, also in Ben's Evening class,
// has it only through the demo class: Ben's grid shows none of it.
func TestTheFirstLearnerHasCardsDueAndAnAssignment(t *testing.T) {
	ctx, pool, seededAt := seeded(t)
	mia := Learners[0]
	require.Equal(t, "Mia Laurent", mia.Name, "the learner README.md signs in as")
	require.Equal(t, []User{mia, Learners[1], Learners[2]}, Classes[0].Learners, "the demo class's learners")
	due := seededDue(seededAt.Now())
	// Ada's zone is London: on 16 March 2026 (GMT) the end of the day is 23:59:59Z, 11:59 PM on her screen.
	require.Equal(t, time.Date(2026, 3, 16, 23, 59, 59, 0, time.UTC), due)

	var classDue time.Time
	var retention float64
	require.NoError(t, pool.QueryRow(ctx, `SELECT cd.due_at, cd.desired_retention FROM class_decks cd JOIN decks d ON d.id = cd.deck_id
		WHERE cd.class_id = $1 AND d.title = $2`, ClassID, AssignedDeck).Scan(&classDue, &retention))
	require.Equal(t, due, classDue.UTC(), "the demo class has %s as a class", AssignedDeck)
	require.Equal(t, AssignedDeckRetention, retention, "a newcomer sees the class deck's chosen retention")
	var retentionEvents int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM outbox_events WHERE topic = 'deck.retention_changed'").Scan(&retentionEvents))
	require.Equal(t, 1, retentionEvents, "the seed's change of retention is announced once")
	var classDecks int
	require.NoError(t, pool.QueryRow(ctx, "SELECT count(*) FROM class_decks").Scan(&classDecks))
	require.Equal(t, 2, classDecks, "the demo class has AssignedDeck and OwnDeck; the Evening class has no deck")

	for _, l := range Classes[0].Learners {
		decks := 1
		if l.ID == mia.ID {
			decks = 2 // and SelfStudyDeck
		}
		requireAssigned(ctx, t, pool, l, seededAt.Now(), decks)
	}
	var started int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM learner_decks ld JOIN decks d ON d.id = ld.deck_id
		WHERE ld.learner_id = $1 AND d.title = $2`, mia.ID, SelfStudyDeck).Scan(&started))
	require.Equal(t, 1, started, "Mia has started %s", SelfStudyDeck)

	evening, err := classroom.ClassProgressOf(ctx, pool, SecondTeacher.ID, SecondClassID, seededAt.Now())
	require.NoError(t, err)
	require.Empty(t, evening.Decks, "Ben assigned nothing to his class")
	require.Len(t, evening.Learners, 1)
	require.Equal(t, Learners[1].ID, evening.Learners[0].LearnerID)
	require.Empty(t, evening.Learners[0].Assignments, "Ben does not see Ada's assignment to Noah")
}

// seededDue is the due time of the seed's assignment when it ran at
// seededAt: the end of the day SeededAssignmentDueDays later in the
// teacher's zone (classroom.EndOfDay), as her assignment form sets it.
func seededDue(seededAt time.Time) time.Time {
	london, err := time.LoadLocation(Teacher.Timezone)
	if err != nil {
		panic(err)
	}
	return classroom.EndOfDay(seededAt.AddDate(0, 0, SeededAssignmentDueDays), london).UTC()
}

// TestTheSeedShowsAFailingEndpointAndAClasssOwnName: a newcomer signing in
// as Ben finds an endpoint whose receiver failed three times in a row after
// a 2xx, and his evening class showing Noah by the name it gave him while
// Ada's class and Noah's account keep "Noah Brooks". Loading again changes
// neither.
func TestTheSeedShowsAFailingEndpointAndAClasssOwnName(t *testing.T) {
	ctx, pool, seededAt := seeded(t)
	_, err := Load(ctx, pool, seededAt)
	require.NoError(t, err)
	eps, err := webhooks.Endpoints{Clock: seededAt}.List(ctx, pool, SecondTeacher.ID)
	require.NoError(t, err)
	require.Len(t, eps, 1)
	require.Equal(t, FailingEndpoint.URL, eps[0].URL)
	h := eps[0].Health
	require.Equal(t, webhooks.StateFailing, h.State)
	require.Equal(t, 3, h.FailuresInRow)
	require.Equal(t, "status 404 Not Found", *h.LastError)
	require.True(t, h.LastAcceptedAt.Equal(seededAt.Now().Add(-48*time.Hour)))
	require.NotEmpty(t, h.Action)

	evening, err := classroom.ClassProgressOf(ctx, pool, SecondTeacher.ID, SecondClassID, seededAt.Now())
	require.NoError(t, err)
	require.Equal(t, EveningName, evening.Learners[0].DisplayName)
	demo, err := classroom.ClassProgressOf(ctx, pool, TeacherID, ClassID, seededAt.Now())
	require.NoError(t, err)
	var names []string
	for _, l := range demo.Learners {
		names = append(names, l.DisplayName)
	}
	require.Contains(t, names, Learners[1].Name, "Ada's class shows Noah's own name")
}

// requireAssigned checks that l has AssignedDeck from Ada through the demo
// class, once, due SeededAssignmentDueDays after seededAt, announced by one
// assignment.created, and that each of the cards of their decks (a card for
// each word) is due at seededAt.
func requireAssigned(ctx context.Context, t *testing.T, pool *pgxpool.Pool, l User, seededAt time.Time, decks int) {
	t.Helper()
	var assigned, all, due, cards, created int
	var dueAt time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM assignments a JOIN decks d ON d.id = a.deck_id
		  WHERE a.learner_id = $1 AND a.class_id = $2 AND a.teacher_id = $3 AND d.title = $4 AND a.completed_at IS NULL),
		(SELECT count(*) FROM assignments WHERE learner_id = $1),
		(SELECT max(due_at) FROM assignments WHERE learner_id = $1),
		(SELECT count(*) FROM cards WHERE learner_id = $1 AND due <= $5 AND NOT suspended),
		(SELECT count(*) FROM cards WHERE learner_id = $1),
		(SELECT count(*) FROM outbox_events WHERE topic = 'assignment.created' AND payload->>'learner_id' = $1::text)`,
		l.ID, ClassID, TeacherID, AssignedDeck, seededAt).Scan(&assigned, &all, &dueAt, &due, &cards, &created))
	require.Equal(t, 1, assigned, "Ada assigned %s to %s through the demo class", AssignedDeck, l.Email)
	require.Equal(t, 2, all, "%s has %s and OwnDeck, no other assignment", l.Email, AssignedDeck)
	require.Equal(t, seededDue(seededAt), dueAt.UTC())
	require.Equal(t, decks*DeckSize+len(OwnDeckEntries), cards, "%s has a card for each word of their decks", l.Email)
	require.Equal(t, cards, due, "every card of %s is due when the seed ran", l.Email)
	require.Equal(t, 2, created, "each assignment to %s was announced once", l.Email)
}

// TestANewcomerWhoJoinsTheDemoClassGetsItsDeck: the README's newcomer joins
// with JoinCode after the seed ran and has AssignedDeck at once, due with
// the class's, every card due.
func TestANewcomerWhoJoinsTheDemoClassGetsItsDeck(t *testing.T) {
	ctx, pool, seededAt := seeded(t)

	joinedAt := clocktest.New(seededAt.Now().Add(3 * 24 * time.Hour))
	sched, err := learning.NewScheduler(learning.DefaultParams(), joinedAt)
	require.NoError(t, err)
	kai := User{ID: uuid.New(), Email: "kai@example.com", Name: "Kai Berg", Timezone: "Europe/Oslo"}
	var out classroom.Outcome
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		out, _, err = classroom.New(events.NewOutbox(), joinedAt, sched).Enroll(ctx, tx, classroom.Actor{}, classroom.EnrolRequest{
			JoinCode: strings.ToLower(JoinCode), Newcomer: &classroom.Newcomer{ID: kai.ID, Subject: "kai-uid", Email: kai.Email,
				DisplayName: kai.Name, Timezone: kai.Timezone}})
		return err
	}))
	require.NotNil(t, out.Enrollment)
	require.Equal(t, ClassID, out.Enrollment.ClassID)
	require.Len(t, out.Enrollment.Assignments, 2, "the newcomer gets the demo class's decks on joining")
	a := out.Enrollment.Assignments[0]
	if a.Cards != DeckSize {
		a = out.Enrollment.Assignments[1]
	}
	require.Equal(t, TeacherID, a.TeacherID)
	require.Equal(t, seededDue(seededAt.Now()), a.DueAt.UTC(), "due with the class's")
	require.Equal(t, DeckSize, a.Cards)
	var title string
	var due int
	require.NoError(t, pool.QueryRow(ctx, `SELECT d.title, (SELECT count(*) FROM cards WHERE learner_id = $1 AND due <= $3)
		FROM decks d WHERE d.id = $2`, kai.ID, a.DeckID, joinedAt.Now()).Scan(&title, &due))
	require.Equal(t, AssignedDeck, title)
	require.Equal(t, DeckSize+len(OwnDeckEntries), due, "every card of the newcomer is due")
	perDay, reviewed, err := study.NewCardBudget(ctx, store.On(pool), kai.ID, joinedAt.Now(), learning.Zone(kai.Timezone))
	require.NoError(t, err)
	require.Equal(t, []int{DemoNewCardsPerDay, 0}, []int{perDay, reviewed}, "the demo class's daily limit of new cards")
	require.Less(t, DemoNewCardsPerDay, DeckSize, "the newcomer sees the limit at work")
}

// TestAdaHasHerOwnDeckAssignedToTheDemoClass: the seed shows a newcomer a
// teacher's own words (issue 26): Ada has OwnDeck, written by her (its
// entries are its own lexemes; OwnMeaningTerm's meaning is hers, not the
// library's), announced by deck.created, assigned to the demo class, and
// each demo learner has a card of each of its entries, due, showing her
// meaning.
func TestAdaHasHerOwnDeckAssignedToTheDemoClass(t *testing.T) {
	ctx, pool, seededAt := seeded(t)
	own, err := decks.List(ctx, pool, TeacherID, false)
	require.NoError(t, err)
	require.Len(t, own, 1)
	require.Equal(t, OwnDeck, own[0].Title)
	require.Equal(t, len(OwnDeckEntries), own[0].Entries)
	require.True(t, own[0].Assigned)
	require.GreaterOrEqual(t, len(OwnDeckEntries), 10)
	// Due as AssignedDeck is: 11:59 PM in Ada's zone, for the class and each learner.
	dues := pgtest.Column[time.Time](t, pool, `SELECT due_at FROM class_decks WHERE deck_id = $1
		UNION ALL SELECT due_at FROM assignments WHERE deck_id = $1`, own[0].ID)
	require.Len(t, dues, 1+len(Classes[0].Learners))
	for _, d := range dues {
		require.Equal(t, seededDue(seededAt.Now()), d.UTC())
	}

	var hers, library string
	require.NoError(t, pool.QueryRow(ctx, `SELECT
		(SELECT definition FROM lexemes WHERE deck_id = $1 AND lemma = $2),
		(SELECT definition FROM lexemes WHERE deck_id IS NULL AND lemma = $2 AND part_of_speech = 'noun')`,
		own[0].ID, OwnMeaningTerm).Scan(&hers, &library))
	require.NotEmpty(t, library, "the library has %s", OwnMeaningTerm)
	require.NotEqual(t, library, hers, "Ada wrote her own meaning of %s", OwnMeaningTerm)
	require.Equal(t, 1, pgtest.Column[int](t, pool, "SELECT count(*)::int FROM outbox_events WHERE topic = 'deck.created'")[0])

	for _, l := range Classes[0].Learners {
		var cards int
		require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM cards c JOIN lexemes x ON x.id = c.lexeme_id
			WHERE c.learner_id = $1 AND x.deck_id = $2 AND c.due <= $3`, l.ID, own[0].ID, seededAt.Now()).Scan(&cards))
		require.Equal(t, len(OwnDeckEntries), cards, "%s has a due card of each of Ada's words", l.Email)
	}
	var shown string
	require.NoError(t, pool.QueryRow(ctx, `SELECT x.definition FROM cards c JOIN lexemes x ON x.id = c.lexeme_id
		WHERE c.learner_id = $1 AND x.deck_id = $2 AND x.lemma = $3`, Learners[0].ID, own[0].ID, OwnMeaningTerm).Scan(&shown))
	require.Equal(t, hers, shown, "Mia's card shows Ada's meaning")
}

// TestSeedingAgainChangesNothing: `make run` seeds on every start; a second
// Load and StartFirstLearner before the class's deck is due changes no row
// and enqueues no event; one after it renews the class's deck alone.
func TestSeedingAgainChangesNothing(t *testing.T) {
	ctx, pool, seededAt := seeded(t)
	before := snapshot(ctx, t, pool)
	require.NotEmpty(t, before["class_decks"])

	againAt := clocktest.New(seededAt.Now().Add(24 * time.Hour))
	_, err := Load(ctx, pool, againAt)
	require.NoError(t, err)
	require.NoError(t, StartFirstLearner(ctx, pool, againAt))
	require.Equal(t, before, snapshot(ctx, t, pool))

	// Once the class's deck is due, a run renews it (so that newcomers get
	// it again) and changes nothing else: no assignment, no event.
	lateAt := clocktest.New(seededAt.Now().AddDate(0, 0, SeededAssignmentDueDays+1))
	require.NoError(t, StartFirstLearner(ctx, pool, lateAt))
	after := snapshot(ctx, t, pool)
	require.NotEqual(t, before["class_decks"], after["class_decks"], "the class's deck is renewed")
	delete(before, "class_decks")
	delete(after, "class_decks")
	require.Equal(t, before, after)
}

// snapshot is every row of every table of the test's schema, as text, by
// table name.
func snapshot(ctx context.Context, t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(ctx, `SELECT table_name::text FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	require.NoError(t, err)
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Contains(t, tables, "outbox_events")
	out := map[string]string{}
	for _, table := range tables {
		var text string
		require.NoError(t, pool.QueryRow(ctx, fmt.Sprintf(
			"SELECT coalesce(string_agg(r::text, E'\\n' ORDER BY r::text), '') FROM %s r", pgx.Identifier{table}.Sanitize())).Scan(&text))
		out[table] = text
	}
	return out
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
