package decks

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// bundle is a teacher with a class (join code JOIN1) of two learners,
// another teacher with a class of one learner, and a library deck of two
// WordNet lexemes.
type bundle struct {
	pool                  *pgxpool.Pool
	clock                 *clocktest.Stub
	decks                 Decks
	classroom             classroom.Classroom
	study                 study.Study
	teacher, otherTeacher uuid.UUID
	learners              []uuid.UUID
	otherLearner          uuid.UUID
	class, otherClass     uuid.UUID
	library               uuid.UUID
	// codes are the join codes race tests' learners use.
	codes map[uuid.UUID]string
}

// setup marks the test parallel and returns a background context and the
// bundle, on a database of the test's own.
func setup(t *testing.T) (context.Context, bundle) {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	b := bundle{pool: pgtest.New(t), clock: clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)), codes: map[uuid.UUID]string{}}
	sched, err := learning.NewScheduler(learning.DefaultParams(), b.clock)
	require.NoError(t, err)
	b.decks = New(b.clock, sched)
	b.classroom = classroom.New(events.NewOutbox(), b.clock, sched)
	b.study = study.New(b.clock, sched)
	user := func(email string, role account.Role) uuid.UUID {
		return pgtest.User(t, b.pool, email, email, role, "UTC")
	}
	b.teacher, b.otherTeacher = user("t@example.com", account.Teacher), user("t2@example.com", account.Teacher)
	b.learners = []uuid.UUID{user("l1@example.com", account.Learner), user("l2@example.com", account.Learner)}
	b.otherLearner = user("o@example.com", account.Learner)
	b.class = b.newClass(t, b.teacher, "JOIN1", b.learners...)
	b.otherClass = b.newClass(t, b.otherTeacher, "JOIN2", b.otherLearner)
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (title, level) VALUES ('Core English 01', 1) RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, example, source)
		           VALUES ('bank', 'noun', 'sloping land beside a river', '', 'wordnet-3.0'),
		                  ('run', 'verb', 'move fast by using one''s feet', 'he ran home', 'wordnet-3.0') RETURNING id, lemma),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position)
		           SELECT d.id, l.id, row_number() OVER (ORDER BY l.lemma) FROM d, l)
		SELECT id FROM d`).Scan(&b.library))
	return ctx, b
}

func (b bundle) newClass(t *testing.T, teacher uuid.UUID, code string, learners ...uuid.UUID) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, b.pool.QueryRow(context.Background(), `
		WITH c AS (INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, $2, $2) RETURNING id),
		     m AS (INSERT INTO class_members (class_id, learner_id) SELECT c.id, l FROM c, unnest($3::uuid[]) l)
		SELECT id FROM c`, teacher, code, learners).Scan(&id))
	return id
}

// enqueued runs op in one transaction on b's pool and enqueues the events
// it returns in that transaction; op's error (or the enqueue's) rolls back,
// as a request's does.
func enqueued[T any](b bundle, op func(context.Context, pgx.Tx) (T, events.Batch, error)) (T, error) {
	var out T
	err := pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		var batch events.Batch
		var err error
		if out, batch, err = op(context.Background(), tx); err != nil {
			return err
		}
		return enqueue(tx, batch)
	})
	return out, err
}

func enqueue(tx pgx.Tx, batch events.Batch) error {
	evs, err := batch.Events()
	if err != nil {
		return err
	}
	return events.NewOutbox().Enqueue(context.Background(), tx, evs...)
}

func (b bundle) create(t *testing.T, teacher uuid.UUID, title string, entries ...EntryInput) (Deck, error) {
	t.Helper()
	return enqueued(b, func(ctx context.Context, tx pgx.Tx) (Deck, events.Batch, error) {
		return b.decks.Create(ctx, tx, teacher, NewDeck{DeckInfo: DeckInfo{Title: title, TermLanguage: "es", MeaningLanguage: "en"}, Entries: entries})
	})
}

func (b bundle) edit(teacher, deck uuid.UUID, edit EntriesEdit) (EntriesResult, error) {
	return enqueued(b, func(ctx context.Context, tx pgx.Tx) (EntriesResult, events.Batch, error) {
		return b.decks.EditEntries(ctx, tx, teacher, deck, edit)
	})
}

func (b bundle) assign(teacher, class, deck uuid.UUID) (classroom.ClassAssignment, error) {
	return enqueued(b, func(ctx context.Context, tx pgx.Tx) (classroom.ClassAssignment, events.Batch, error) {
		return b.classroom.Assign(ctx, tx, teacher, classroom.AssignRequest{ClassID: class, DeckID: deck, DueAt: b.clock.Now().Add(7 * 24 * time.Hour)})
	})
}

// words is n entries "word<i>" meaning "meaning <i>".
func words(n int) []EntryInput {
	out := make([]EntryInput, n)
	for i := range out {
		out[i] = EntryInput{Term: fmt.Sprintf("word%d", i), Meaning: fmt.Sprintf("meaning %d", i)}
	}
	return out
}

// due lists what the learner's schedule shows now: term, meaning, card id.
func (b bundle) due(t *testing.T, learner uuid.UUID) map[string]store.DueCardsRow {
	t.Helper()
	rows, err := store.On(b.pool).DueCards(context.Background(), store.DueCardsParams{LearnerID: learner, Now: b.clock.Now(),
		NewState: int16(learning.New), NewLeft: math.MaxInt32, MaxCards: 10000})
	require.NoError(t, err)
	out := map[string]store.DueCardsRow{}
	for _, r := range rows {
		out[r.Lemma] = r
	}
	return out
}

// snapshot counts the rows a deck's operations write.
func (b bundle) snapshot(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT concat_ws(',',
		(SELECT count(*) FROM decks), (SELECT count(*) FROM lexemes), (SELECT count(*) FROM deck_items),
		(SELECT count(*) FROM cards), (SELECT count(*) FROM outbox_events), (SELECT count(*) FROM outbox_deliveries),
		(SELECT count(*) FROM assignments), (SELECT md5(string_agg(l.id::text || l.lemma || l.definition || l.version || coalesce(l.removed_at::text, ''), ',' ORDER BY l.id)) FROM lexemes l),
		(SELECT md5(string_agg(d.id::text || d.title || d.version || d.description, ',' ORDER BY d.id)) FROM decks d))`).Scan(&s))
	return s
}

func count(t *testing.T, b bundle, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// payload decodes the payload of the deck's last event of topic.
func payload[T any](t *testing.T, b bundle, deck uuid.UUID, topic string) T {
	t.Helper()
	var raw []byte
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT payload FROM outbox_events WHERE topic = $1 AND ordering_key = $2
		ORDER BY id DESC LIMIT 1`, topic, deck.String()).Scan(&raw))
	var out T
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

func TestCreateStoresTheDeckAndItsEntries(t *testing.T) {
	ctx, b := setup(t)
	d, err := enqueued(b, func(ctx context.Context, tx pgx.Tx) (Deck, events.Batch, error) {
		return b.decks.Create(ctx, tx, b.teacher, NewDeck{
			DeckInfo: DeckInfo{Title: "  Unit 3 ", Description: "Food\r\nand drink", TermLanguage: "fr-ca", MeaningLanguage: "EN"},
			Entries: []EntryInput{
				{Term: "pomme", Meaning: "apple", Example: "Une pomme rouge.", PartOfSpeech: "nom féminin"},
				{Term: "manger", Meaning: "<script>alert(1)</script> to eat"},
			}})
	})
	require.NoError(t, err)
	require.Equal(t, DeckInfo{Title: "Unit 3", Description: "Food\nand drink", TermLanguage: "fr-CA", MeaningLanguage: "en"}, d.DeckInfo)
	require.Equal(t, 2, d.Entries)

	got, entries, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	require.Equal(t, d.DeckInfo, got.DeckInfo)
	require.False(t, got.Library)
	require.Equal(t, []Entry{
		{ID: entries[0].ID, EntryInput: EntryInput{Term: "pomme", Meaning: "apple", Example: "Une pomme rouge.", PartOfSpeech: "nom féminin"}, Version: 1, Position: 1},
		{ID: entries[1].ID, EntryInput: EntryInput{Term: "manger", Meaning: "<script>alert(1)</script> to eat"}, Version: 1, Position: 2},
	}, entries, "markup is stored as text")

	created := payload[events.DeckCreatedPayload](t, b, d.ID, events.DeckCreated)
	require.Equal(t, events.DeckCreatedPayload{DeckID: d.ID, TeacherID: b.teacher, Title: "Unit 3", Entries: 2}, created)
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM outbox_deliveries r JOIN outbox_events e ON e.id = r.event_id
		WHERE e.topic = 'deck.created' AND r.subscriber = 'webhook'`), "teachers' webhooks subscribe to it")

	list, err := List(ctx, b.pool, b.teacher, false)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Equal(t, d.ID, list[0].ID)
	require.False(t, list[0].Assigned)
}

func TestTitlesAreUniquePerTeacher(t *testing.T) {
	_, b := setup(t)
	_, err := b.create(t, b.teacher, "Unit 3")
	require.NoError(t, err)
	_, err = b.create(t, b.otherTeacher, "Unit 3")
	require.NoError(t, err, "another teacher's deck may have the same title")
	_, err = b.create(t, b.teacher, "Core English 01")
	require.NoError(t, err, "a library deck's title is no teacher's")
	before := b.snapshot(t)
	_, err = b.create(t, b.teacher, "Unit 3", words(3)...)
	require.ErrorIs(t, err, ErrDuplicateTitle)
	require.Equal(t, before, b.snapshot(t))
}

// TestBadInputChangesNothing: every refusal, of a new deck or of an edit
// of an assigned deck, leaves no deck, entry, card or event behind, and
// names the field.
func TestBadInputChangesNothing(t *testing.T) {
	ctx, b := setup(t)
	d, err := b.create(t, b.teacher, "Assigned", EntryInput{Term: "gato", Meaning: "cat"})
	require.NoError(t, err)
	_, err = b.assign(b.teacher, b.class, d.ID)
	require.NoError(t, err)
	_, entries, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	gato := entries[0]

	long := strings.Repeat("a", 10000)
	tooMany := words(MaxEntries + 1)
	cases := []struct {
		name  string
		info  DeckInfo
		add   []EntryInput
		is    error
		field string // InputError.Path, when is is ErrInvalid or ErrDuplicateTerm
	}{
		{name: "empty title", info: DeckInfo{Title: " "}, is: ErrInvalid, field: "title"},
		{name: "title of 201", info: DeckInfo{Title: strings.Repeat("é", 201)}, is: ErrInvalid, field: "title"},
		{name: "no term language", info: DeckInfo{TermLanguage: ""}, is: ErrInvalid, field: "term_language"},
		{name: "undetermined language", info: DeckInfo{TermLanguage: "und"}, is: ErrInvalid, field: "term_language"},
		{name: "unknown language", info: DeckInfo{MeaningLanguage: "xx-!!"}, is: ErrInvalid, field: "meaning_language"},
		{name: "term of 10,000", add: []EntryInput{{Term: long, Meaning: "m"}}, is: ErrInvalid, field: "add[0].term"},
		{name: "empty term", add: []EntryInput{{Term: "ok", Meaning: "m"}, {Term: "", Meaning: "m"}}, is: ErrInvalid, field: "add[1].term"},
		{name: "empty meaning", add: []EntryInput{{Term: "perro", Meaning: "  "}}, is: ErrInvalid, field: "add[0].meaning"},
		{name: "meaning of 1,001", add: []EntryInput{{Term: "perro", Meaning: strings.Repeat("m", 1001)}}, is: ErrInvalid, field: "add[0].meaning"},
		{name: "example of 501", add: []EntryInput{{Term: "perro", Meaning: "dog", Example: strings.Repeat("e", 501)}}, is: ErrInvalid, field: "add[0].example"},
		{name: "right-to-left override", add: []EntryInput{{Term: "per\u202Ero", Meaning: "dog"}}, is: ErrInvalid, field: "add[0].term"},
		{name: "zero-width space", add: []EntryInput{{Term: "per\u200Bro", Meaning: "dog"}}, is: ErrInvalid, field: "add[0].term"},
		{name: "control in a meaning", add: []EntryInput{{Term: "perro", Meaning: "d\x00og"}}, is: ErrInvalid, field: "add[0].meaning"},
		{name: "line break in a term", add: []EntryInput{{Term: "per\nro", Meaning: "dog"}}, is: ErrInvalid, field: "add[0].term"},
		{name: "same term in two cases", add: []EntryInput{{Term: "Perro", Meaning: "dog"}, {Term: "perro", Meaning: "dog"}}, is: ErrDuplicateTerm, field: "add[1].term"},
		{name: "one word, folded", add: []EntryInput{{Term: "Straße", Meaning: "street"}, {Term: "STRASSE", Meaning: "street"}}, is: ErrDuplicateTerm, field: "add[1].term"},
		{name: "term the deck has", add: []EntryInput{{Term: "GATO", Meaning: "cat"}}, is: ErrDuplicateTerm, field: "add[0].term"},
		{name: "2,001 entries", add: tooMany, is: ErrTooManyEntries},
	}
	for _, c := range cases {
		before := b.snapshot(t)
		var err error
		if c.add == nil { // the deck's info
			info := DeckInfo{Title: "New", TermLanguage: "es", MeaningLanguage: "en"}
			switch c.field {
			case "title":
				info.Title = c.info.Title
			case "term_language":
				info.TermLanguage = c.info.TermLanguage
			case "meaning_language":
				info.MeaningLanguage = c.info.MeaningLanguage
			}
			_, err = enqueued(b, func(ctx context.Context, tx pgx.Tx) (Deck, events.Batch, error) {
				return b.decks.Create(ctx, tx, b.teacher, NewDeck{DeckInfo: info, Entries: words(2)})
			})
			require.ErrorIs(t, err, c.is, c.name)
			err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
				_, err := b.decks.UpdateInfo(ctx, tx, b.teacher, d.ID, 1, info)
				return err
			})
		} else {
			if c.name != "term the deck has" { // another deck may have it
				_, err = b.create(t, b.teacher, "New "+c.name, c.add...)
				require.ErrorIs(t, err, c.is, c.name)
			}
			_, err = b.edit(b.teacher, d.ID, EntriesEdit{Add: c.add})
		}
		require.ErrorIs(t, err, c.is, c.name)
		if c.field != "" {
			var ie *InputError
			require.ErrorAs(t, err, &ie, c.name)
			require.Equal(t, c.field, ie.Path(), c.name)
		}
		require.Equal(t, before, b.snapshot(t), "%s: nothing changed", c.name)
	}
	// A change and a removal are checked whole too.
	before := b.snapshot(t)
	_, err = b.edit(b.teacher, d.ID, EntriesEdit{Add: words(1), Change: []EntryChange{{ID: gato.ID, Version: 1, EntryInput: EntryInput{Term: "gato", Meaning: long}}}})
	var ie *InputError
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "change[0].meaning", ie.Path())
	_, err = b.edit(b.teacher, d.ID, EntriesEdit{Add: words(1), Remove: []EntryRemoval{{ID: uuid.New(), Version: 1}}})
	require.ErrorIs(t, err, ErrEntryNotFound)
	_, err = b.edit(b.teacher, d.ID, EntriesEdit{Change: []EntryChange{{ID: gato.ID, Version: 1, EntryInput: EntryInput{Term: "gato", Meaning: "a cat"}}},
		Remove: []EntryRemoval{{ID: gato.ID, Version: 1}}})
	require.ErrorAs(t, err, &ie)
	require.Equal(t, "remove[0].id", ie.Path())
	require.Equal(t, before, b.snapshot(t))
}

// TestEditReachesEveryLearner: the deck is assigned to the class; an edit
// of a meaning shows on the same cards, which keep their FSRS state; an
// added entry is a new card, due now, for each learner; a removed one
// leaves the schedules and keeps its review history.
func TestEditReachesEveryLearner(t *testing.T) {
	ctx, b := setup(t)
	d, err := b.create(t, b.teacher, "Unit 3", EntryInput{Term: "gato", Meaning: "cta"}, EntryInput{Term: "perro", Meaning: "dog"})
	require.NoError(t, err)
	_, err = b.assign(b.teacher, b.class, d.ID)
	require.NoError(t, err)
	l1, l2 := b.learners[0], b.learners[1]
	before := b.due(t, l1)
	require.Len(t, before, 2)
	// The first learner reviews both cards (Good): they leave New.
	for _, c := range before {
		_, err := enqueued(b, func(ctx context.Context, tx pgx.Tx) (study.ReviewResult, events.Batch, error) {
			return b.study.Review(ctx, tx, study.Learner{ID: l1, Timezone: "UTC"}, study.ReviewRequest{CardID: c.ID, Rating: learning.Easy})
		})
		require.NoError(t, err)
	}
	type fsrs struct {
		State      learning.State
		Stability  float64
		Difficulty float64
		Reps       int32
		Due        time.Time
	}
	stateOf := func(card uuid.UUID) fsrs {
		var s fsrs
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT state, stability, difficulty, reps, due FROM cards WHERE id = $1`, card).Scan(
			&s.State, &s.Stability, &s.Difficulty, &s.Reps, &s.Due))
		return s
	}
	gatoCard, perroCard := before["gato"].ID, before["perro"].ID
	gatoState := stateOf(gatoCard)
	require.Equal(t, int32(1), gatoState.Reps)

	_, entries, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	gato, perro := entries[0], entries[1]
	res, err := b.edit(b.teacher, d.ID, EntriesEdit{
		Add:    []EntryInput{{Term: "pájaro", Meaning: "bird"}},
		Change: []EntryChange{{ID: gato.ID, Version: gato.Version, EntryInput: EntryInput{Term: "gato", Meaning: "cat", Example: "El gato duerme."}}},
		Remove: []EntryRemoval{{ID: perro.ID, Version: perro.Version}},
	})
	require.NoError(t, err)
	require.Equal(t, 2, res.CardsCreated, "one new card per learner")
	require.Equal(t, 2, res.Entries)
	require.Equal(t, 2, res.Changed[0].Version)
	require.Equal(t, gato.Position, res.Changed[0].Position, "a change keeps its place, and says so")

	var gatoMeaning string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT definition FROM lexemes l JOIN cards c ON c.lexeme_id = l.id WHERE c.id = $1`, gatoCard).Scan(&gatoMeaning))
	require.Equal(t, "cat", gatoMeaning, "the same card shows the new meaning")
	require.Equal(t, gatoState, stateOf(gatoCard), "and keeps its FSRS state")
	// Reviewed at the clock's now, gato is not due now; the new word is.
	for _, l := range b.learners {
		due := b.due(t, l)
		require.Contains(t, due, "pájaro")
		require.Equal(t, "bird", due["pájaro"].Definition)
		require.Equal(t, "es", due["pájaro"].TermLanguage, "the deck's language, for the listen button")
		require.NotContains(t, due, "perro", "a removed entry leaves the schedule")
	}
	require.Equal(t, "cat", b.due(t, l2)["gato"].Definition, "the learner who has not reviewed it sees the new meaning")
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM cards WHERE id = $1`, perroCard), "the removed entry's card is kept")
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM review_log WHERE card_id = $1`, perroCard), "with its history")
	forecast, err := store.On(b.pool).Forecast(ctx, store.ForecastParams{LearnerID: l1, Now: b.clock.Now(), Zone: "UTC",
		RolloverHours: 4, EndAt: b.clock.Now().Add(365 * 24 * time.Hour)})
	require.NoError(t, err)
	total := 0
	for _, f := range forecast {
		total += int(f.Due)
	}
	require.Equal(t, 2, total, "the forecast counts gato and pájaro, not perro")

	changed := payload[events.DeckEntriesChangedPayload](t, b, d.ID, events.DeckEntriesChanged)
	require.Equal(t, 1, changed.Added)
	require.Equal(t, 1, changed.Changed)
	require.Equal(t, 1, changed.Removed)
	require.Equal(t, 2, changed.Entries)
	require.Equal(t, 2, changed.CardsCreated)
	deltas := map[uuid.UUID]events.DeckAssignmentChange{}
	for _, a := range changed.Assignments {
		deltas[a.LearnerID] = a
	}
	require.Equal(t, 0, deltas[l1].Total)
	require.Equal(t, -1, deltas[l1].Seen, "l1 had reviewed perro")
	require.Equal(t, -1, deltas[l1].Learned, "into Review (Easy)")
	require.Equal(t, 0, deltas[l2].Seen)

	// The class's progress counts the deck's live entries only.
	grid, err := store.On(b.pool).ClassAssignments(ctx, b.clock.Now(), b.class)
	require.NoError(t, err)
	for _, g := range grid {
		if g.LearnerID == l2 {
			require.Equal(t, int64(2), g.CardsDue, "gato and pájaro")
		}
	}

	// An edit that changes no text changes nothing and enqueues nothing.
	before2 := b.snapshot(t)
	res, err = b.edit(b.teacher, d.ID, EntriesEdit{Change: []EntryChange{{ID: gato.ID, Version: 2, EntryInput: EntryInput{Term: "gato", Meaning: "cat", Example: "El gato duerme."}}}})
	require.NoError(t, err)
	require.Empty(t, res.Changed)
	require.Equal(t, before2, b.snapshot(t))
	// A removed entry's term is free again: a new entry, a new card.
	res, err = b.edit(b.teacher, d.ID, EntriesEdit{Add: []EntryInput{{Term: "Perro", Meaning: "dog"}}})
	require.NoError(t, err)
	require.Equal(t, 2, res.CardsCreated)
	require.Equal(t, 3, res.Added[0].Position, "after the last position (gato 1, pájaro 2)")
}

// TestAnEditNeverUndoesAnother: two edits of one entry based on the same
// version: the later is refused with the version it must reload, and the
// first one's text stays; also when the two run at once.
func TestAnEditNeverUndoesAnother(t *testing.T) {
	ctx, b := setup(t)
	d, err := b.create(t, b.teacher, "Unit 3", EntryInput{Term: "gato", Meaning: "cat"}, EntryInput{Term: "perro", Meaning: "dog"})
	require.NoError(t, err)
	_, entries, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	gato, perro := entries[0], entries[1]
	fix := func(meaning string, version int) error {
		_, err := b.edit(b.teacher, d.ID, EntriesEdit{Change: []EntryChange{{ID: gato.ID, Version: version, EntryInput: EntryInput{Term: "gato", Meaning: meaning}}}})
		return err
	}
	require.NoError(t, fix("a cat", 1))
	before := b.snapshot(t)
	err = fix("the cat", 1)
	var conflict *ConflictError
	require.ErrorAs(t, err, &conflict)
	require.ErrorIs(t, err, ErrConflict)
	require.Equal(t, ConflictError{EntryID: gato.ID, Term: "gato", Version: 2}, *conflict)
	require.Equal(t, before, b.snapshot(t))
	_, err = b.edit(b.teacher, d.ID, EntriesEdit{Remove: []EntryRemoval{{ID: gato.ID, Version: 1}}})
	require.ErrorIs(t, err, ErrConflict, "a removal based on an old version too")
	// An edit of another entry is not a conflict.
	_, err = b.edit(b.teacher, d.ID, EntriesEdit{Change: []EntryChange{{ID: perro.ID, Version: 1, EntryInput: EntryInput{Term: "perro", Meaning: "a dog"}}}})
	require.NoError(t, err)

	// At once: the first holds the deck's lock; the second waits, then
	// finds version 3 and is refused.
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, _, err = b.decks.EditEntries(ctx, tx, b.teacher, d.ID, EntriesEdit{Change: []EntryChange{{ID: gato.ID, Version: 2, EntryInput: EntryInput{Term: "gato", Meaning: "one cat"}}}})
	require.NoError(t, err)
	second := make(chan error, 1)
	go func() { second <- fix("two cats", 2) }()
	b.waitForLock(t)
	require.NoError(t, tx.Commit(ctx))
	require.ErrorIs(t, <-second, ErrConflict)
	_, entries, err = Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	require.Equal(t, "one cat", entries[0].Meaning)
	require.Equal(t, 3, entries[0].Version)
}

// waitForLock returns once a backend of the test's database waits for a
// lock (the second of two racing transactions), the signal a race test
// waits on.
func (b bundle) waitForLock(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		var waiting bool
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock')`).Scan(&waiting))
		if waiting {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatal("no transaction waited for the lock")
		case <-time.After(5 * time.Millisecond):
		}
	}
}
