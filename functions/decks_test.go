package functions

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// libraryDeck adds a deck of the shared library (no owner) holding cat, an
// existing word, and two new ones.
func (f fixture) libraryDeck(t *testing.T, title string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, f.pool.QueryRow(context.Background(), `
		WITH d AS (INSERT INTO decks (title, level) VALUES ($1, 1) RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, example, source)
		           VALUES ($1 || ' sun', 'noun', 'a star', 'the sun rose', 'test'), ($1 || ' moon', 'noun', 'a satellite', 'the moon', 'test')
		           RETURNING id),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position)
		           SELECT d.id, w.id, row_number() OVER () FROM d, (SELECT id FROM l UNION ALL SELECT id FROM lexemes WHERE lemma = 'cat') w)
		SELECT id FROM d`, title).Scan(&id))
	return id
}

// decks is ListDecks as who: started by deck title.
func (f fixture) decks(t *testing.T, who uuid.UUID) map[string]bool {
	t.Helper()
	code, body := f.call(t, (*Service).ListDecks, http.MethodGet, "/ListDecks", who, "")
	require.Equal(t, http.StatusOK, code, body)
	out := map[string]bool{}
	for _, d := range body["decks"].([]any) {
		out[d.(map[string]any)["title"].(string)] = d.(map[string]any)["started"].(bool)
	}
	return out
}

// selfStudy counts what StartDeck writes, and what it must not.
func (f fixture) selfStudy(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT concat_ws(',', (SELECT count(*) FROM learner_decks),
		(SELECT count(*) FROM cards), (SELECT count(*) FROM assignments), (SELECT count(*) FROM outbox_events),
		(SELECT count(*) FROM idempotency_keys))`).Scan(&s))
	return s
}

func TestALearnerStartsALibraryDeck(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t) // cat, run and red, of the teacher's own deck
	library, assigned := f.libraryDeck(t, "Sky"), f.libraryDeck(t, "Sea")
	_, err := f.pool.Exec(ctx, `INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
		VALUES ($1, $2, $3, $4, $5)`, f.class, assigned, f.learner, f.teacher, f.clock.Now().AddDate(0, 0, 7))
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"Sky": false, "Sea": true}, f.decks(t, f.learner),
		"a learner sees the library, not a teacher's own deck; an assigned deck counts as started")
	require.Equal(t, map[string]bool{"Sky": false, "Sea": false, "Deck": false}, f.decks(t, f.teacher))

	before := f.selfStudy(t)
	first := f.keyedCall(t, (*Service).StartDeck, "start-sky", f.learner, `{"deck_id":"`+library.String()+`"}`)
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	var start map[string]any
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &start))
	require.Equal(t, map[string]any{"deck_id": library.String(), "title": "Sky", "words": 3.0, "cards_created": 2.0,
		"started_at": "2026-03-02T09:00:00Z", "already_started": false}, start, "cat was a card already")
	require.Equal(t, 5, f.count(t, "SELECT count(*) FROM cards WHERE learner_id = $1 AND due = $2 AND state = 0 AND reps = 0",
		f.learner, f.clock.Now()), "the assignment's three cards and two new ones, due now")
	require.NotEqual(t, before, f.selfStudy(t))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM learner_decks WHERE learner_id = $1 AND deck_id = $2", f.learner, library))
	require.Equal(t, 0, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic NOT IN ('assignment.created', 'reminder.due_soon')"),
		"starting a deck concerns no one else: no event")
	require.Equal(t, map[string]bool{"Sky": true, "Sea": true}, f.decks(t, f.learner))
	code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?limit=10", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	require.EqualValues(t, 5, body["due_count"], "the deck's words joined the schedule")

	replay := f.keyedCall(t, (*Service).StartDeck, "start-sky", f.learner, `{"deck_id":"`+library.String()+`"}`)
	require.Equal(t, http.StatusCreated, replay.Code)
	require.Equal(t, "true", replay.Header().Get("Idempotent-Replayed"))
	after := f.selfStudy(t)
	f.clock.Set(f.clock.Now().Add(time.Hour))
	code, again := f.call(t, (*Service).StartDeck, http.MethodPost, "/StartDeck", f.learner, `{"deck_id":"`+library.String()+`"}`)
	require.Equal(t, http.StatusOK, code, again)
	require.Equal(t, true, again["already_started"])
	require.EqualValues(t, 0, again["cards_created"])
	require.Equal(t, "2026-03-02T09:00:00Z", again["started_at"], "the first start")
	require.Equal(t, after, f.selfStudy(t), "starting a deck again changes nothing")
}

func TestStartDeckRefusesWithoutChangingAnything(t *testing.T) {
	_, f := setup(t)
	library := f.libraryDeck(t, "Sky")
	before := f.selfStudy(t)
	for _, tc := range []refusal{
		{"malformed JSON", f.learner, `{"deck_id":`, http.StatusBadRequest},
		{"no deck", f.learner, `{}`, http.StatusBadRequest},
		{"not a uuid", f.learner, `{"deck_id":"Sky"}`, http.StatusBadRequest},
		{"unknown field", f.learner, `{"deck_id":"` + library.String() + `","due_at":"2026-03-20T18:00:00Z"}`, http.StatusBadRequest},
		{"no acting user", uuid.Nil, `{"deck_id":"` + library.String() + `"}`, http.StatusUnauthorized},
		{"a teacher", f.teacher, `{"deck_id":"` + library.String() + `"}`, http.StatusNotFound},
		{"an unknown deck", f.learner, `{"deck_id":"` + uuid.NewString() + `"}`, http.StatusNotFound},
		{"a teacher's own deck", f.learner, `{"deck_id":"` + f.deck.String() + `"}`, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.keyedCall(t, (*Service).StartDeck, "k-"+strings.NewReplacer(" ", "-", "'", "").Replace(tc.name), tc.actor, tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			require.Equal(t, before, f.selfStudy(t))
		})
	}
}

// TestGetProgressAnswersTheStartedDecks: the library decks a learner
// started on their own come with their progress beside the assignments,
// read from the cards as committed (no drain ran): words, seen, learned,
// due now and reviews since the start, an undone one left out. A started
// deck the learner also has an assignment of is read as the assignment; a
// teacher sees no self-study.
func TestGetProgressAnswersTheStartedDecks(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t) // cat, run and red, of the teacher's own deck
	sky, sea := f.libraryDeck(t, "Sky"), f.libraryDeck(t, "Sea")
	_, err := f.pool.Exec(ctx, `INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
		VALUES ($1, $2, $3, $4, $5)`, f.class, sea, f.learner, f.teacher, f.clock.Now().AddDate(0, 0, 7))
	require.NoError(t, err)
	for _, deck := range []uuid.UUID{sky, sea} {
		code, body := f.call(t, (*Service).StartDeck, http.MethodPost, "/StartDeck", f.learner, `{"deck_id":"`+deck.String()+`"}`)
		require.Equal(t, http.StatusCreated, code, body)
	}
	card := func(lemma string) uuid.UUID {
		var id uuid.UUID
		require.NoError(t, f.pool.QueryRow(ctx, `SELECT c.id FROM cards c JOIN lexemes l ON l.id = c.lexeme_id
			WHERE c.learner_id = $1 AND l.lemma = $2`, f.learner, lemma).Scan(&id))
		return id
	}
	f.clock.Advance(time.Minute)
	f.review(t, card("Sky sun"), 3) // learning, due in minutes
	f.review(t, card("cat"), 4)     // learned, due in days; it counts for the assignment too
	f.review(t, card("Sky moon"), 1)
	code, body := f.call(t, (*Service).UndoReview, http.MethodPost, "/UndoReview", f.learner, `{"card_id":"`+card("Sky moon").String()+`"}`)
	require.Equal(t, http.StatusOK, code, body)

	code, body = f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress", f.learner, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{map[string]any{"deck_id": sky.String(), "deck": "Sky", "started_at": "2026-03-02T09:00:00Z",
		"cards_total": 3.0, "cards_seen": 2.0, "cards_learned": 1.0, "cards_due": 1.0, "reviews": 2.0}}, body["started_decks"])
	require.Len(t, body["assignments"], 2, "the teacher's deck and Sea, started and assigned, are assignments")

	code, body = f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress?learner_id="+f.learner.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{}, body["started_decks"], "self-study concerns no one but the learner")
}
