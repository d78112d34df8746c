package functions

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/events"
)

// deckState is every row an own-deck function could write, as text (a
// count and a digest of each table's rows), so that a refused request is
// shown to change none of them: no deck, entry, deck item, card,
// assignment or outbox row, and no entry's text.
func (f fixture) deckState(t testing.TB) map[string]string {
	t.Helper()
	out := map[string]string{}
	for table, row := range map[string]string{
		"decks":             "id::text || title || description || term_language || meaning_language || version || coalesce(archived_at::text, '')",
		"lexemes":           "id::text || lemma || definition || example || part_of_speech || version || coalesce(removed_at::text, '')",
		"deck_items":        "deck_id::text || lexeme_id::text || position",
		"cards":             "id::text || learner_id::text || lexeme_id::text || state || due::text",
		"assignments":       "id::text || deck_id::text",
		"class_decks":       "class_id::text || deck_id::text",
		"outbox_events":     "id::text || topic",
		"outbox_deliveries": "id::text",
	} {
		var s string
		require.NoError(t, f.pool.QueryRow(context.Background(),
			"SELECT count(*)::text || ' ' || md5(coalesce(string_agg("+row+", ',' ORDER BY "+row+"), '')) FROM "+table).Scan(&s))
		out[table] = s
	}
	return out
}

// send calls h with body as the request's bytes and answers the recorder
// (for answers that are not JSON, and bodies too large to build as a
// string comfortably).
func (f fixture) send(t testing.TB, h func(*Service, http.ResponseWriter, *http.Request), method, target string, actor uuid.UUID, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if actor != uuid.Nil {
		req.Header.Set("Authorization", bearer(t, actor))
	}
	rec := httptest.NewRecorder()
	h(f.svc, rec, req)
	return rec
}

// jsonOf is v as JSON text.
func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// ownDeck creates a deck of teacher's titled title with entries (term,
// meaning pairs) through CreateDeck and answers its id and entries by term
// (id and version).
func (f fixture) ownDeck(t testing.TB, teacher uuid.UUID, title string, entries ...[2]string) (uuid.UUID, map[string]map[string]any) {
	t.Helper()
	in := []map[string]string{}
	for _, e := range entries {
		in = append(in, map[string]string{"term": e[0], "meaning": e[1]})
	}
	fields := map[string]any{"title": title, "term_language": "es", "meaning_language": "en"}
	if len(in) > 0 {
		fields["entries"] = in // [] would be a 400: a field is given a value or left out
	}
	code, body := f.call(t, (*Service).CreateDeck, http.MethodPost, "/", teacher, jsonOf(t, fields))
	require.Equal(t, http.StatusCreated, code, body)
	byTerm := map[string]map[string]any{}
	for _, e := range body["entries"].([]any) {
		byTerm[e.(map[string]any)["term"].(string)] = e.(map[string]any)
	}
	return uuid.MustParse(body["deck"].(map[string]any)["id"].(string)), byTerm
}

// assignOwn assigns deck to the fixture's class (its one learner).
func (f fixture) assignOwn(t testing.TB, deck uuid.UUID) {
	t.Helper()
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
}

// learnerCards answers the learner's due cards of deck's entries, term to
// the card as GetSchedule answers it.
func (f fixture) learnerCards(t testing.TB) map[string]map[string]any {
	t.Helper()
	code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/?limit=200", f.learner, "")
	require.Equal(t, http.StatusOK, code, body)
	out := map[string]map[string]any{}
	for _, c := range body["due"].([]any) {
		out[c.(map[string]any)["lemma"].(string)] = c.(map[string]any)
	}
	return out
}

func TestCreateDeckStoresItsEntriesAsTextAndDeckCreated(t *testing.T) {
	ctx, f := setup(t)
	script := `<script>alert("x")</script> a dog & <b>friend</b>`
	code, body := f.call(t, (*Service).CreateDeck, http.MethodPost, "/", f.teacher, jsonOf(t, map[string]any{
		"title": "Unit 3", "description": "Animals", "term_language": "es-mx", "meaning_language": "en",
		"entries": []map[string]string{{"term": "gato", "meaning": "cat", "example": "el gato duerme", "part_of_speech": "noun"},
			{"term": "perro", "meaning": script}}}))
	require.Equal(t, http.StatusCreated, code, body)
	deck := body["deck"].(map[string]any)
	require.Equal(t, "es-MX", deck["term_language"], "stored in canonical form")
	require.EqualValues(t, 1, deck["version"])
	require.EqualValues(t, 2, deck["entries"])
	require.Equal(t, f.teacher.String(), deck["owner_id"])
	entries := body["entries"].([]any)
	require.Len(t, entries, 2)
	require.Equal(t, script, entries[1].(map[string]any)["meaning"], "markup is answered as written, as text")
	var stored string
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT definition FROM lexemes WHERE deck_id = $1 AND lemma = 'perro'", deck["id"]).Scan(&stored))
	require.Equal(t, script, stored, "and stored as written")
	require.Equal(t, []string{events.DeckCreated}, f.topics(t))
	var p events.DeckCreatedPayload
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT payload FROM outbox_events").Scan(&p))
	require.Equal(t, events.DeckCreatedPayload{DeckID: uuid.MustParse(deck["id"].(string)), TeacherID: f.teacher, Title: "Unit 3", Entries: 2}, p)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 'webhook'"), "teachers' webhooks may subscribe to it")

	// Titles are unique per teacher, not across Lexora.
	code, body = f.call(t, (*Service).CreateDeck, http.MethodPost, "/", f.otherTeacher,
		`{"title":"Unit 3","term_language":"fr","meaning_language":"en"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, []any{}, body["entries"])

	code, body = f.call(t, (*Service).ListOwnDecks, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Len(t, body["decks"], 2, "the fixture's deck and Unit 3")
}

// An edit of an assigned deck reaches its learner: a new entry is a new
// card due at once, a changed meaning shows on the same card, a stale
// version is a 409 that changes nothing, a removed entry leaves the
// schedule; the assigned deck cannot be deleted, and archiving it keeps
// the learner's cards.
func TestEditOfAnAssignedDeckReachesItsLearners(t *testing.T) {
	ctx, f := setup(t)
	deck, entries := f.ownDeck(t, f.teacher, "Weather", [2]string{"lluvia", "rain"}, [2]string{"sol", "sun"})
	f.assignOwn(t, deck)
	require.Len(t, f.learnerCards(t), 2, "a card of each entry")

	edit := func(body string) (int, map[string]any) {
		return f.call(t, (*Service).EditDeckEntries, http.MethodPost, "/", f.teacher, body)
	}
	code, body := edit(`{"deck_id":"` + deck.String() + `","add":[{"term":"nieve","meaning":"snow"}]}`)
	require.Equal(t, http.StatusOK, code, body)
	require.EqualValues(t, 1, body["cards_created"])
	require.EqualValues(t, 3, body["entries"])
	cards := f.learnerCards(t)
	require.Contains(t, cards, "nieve", "due at once")
	sun := cards["sol"]["card_id"]

	change := func(meaning string) string {
		return `{"deck_id":"` + deck.String() + `","change":[{"id":"` + entries["sol"]["id"].(string) + `","version":1,"term":"sol","meaning":"` + meaning + `"}]}`
	}
	code, body = edit(change("the sun"))
	require.Equal(t, http.StatusOK, code, body)
	require.EqualValues(t, 2, body["changed"].([]any)[0].(map[string]any)["version"])
	cards = f.learnerCards(t)
	require.Equal(t, sun, cards["sol"]["card_id"], "the same card")
	require.Equal(t, "the sun", cards["sol"]["definition"], "with the new meaning")

	// A second edit based on version 1 would undo the first: refused.
	before := f.deckState(t)
	code, body = edit(change("sunshine"))
	require.Equal(t, http.StatusConflict, code, body)
	require.Equal(t, "https://lexora.app/problems/stale-version", body["type"])
	require.Contains(t, body["detail"], "now version 2")
	require.Equal(t, before, f.deckState(t))
	code, body = f.call(t, (*Service).UpdateDeck, http.MethodPost, "/", f.teacher,
		`{"deck_id":"`+deck.String()+`","version":7,"title":"Weather words","term_language":"es","meaning_language":"en"}`)
	require.Equal(t, http.StatusConflict, code, body)
	require.Equal(t, "https://lexora.app/problems/stale-version", body["type"])
	require.Equal(t, before, f.deckState(t))

	code, body = edit(`{"deck_id":"` + deck.String() + `","remove":[{"id":"` + entries["lluvia"]["id"].(string) + `","version":1}]}`)
	require.Equal(t, http.StatusOK, code, body)
	require.NotContains(t, f.learnerCards(t), "lluvia", "a removed entry leaves the schedule")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM cards c JOIN lexemes l ON l.id = c.lexeme_id WHERE l.lemma = 'lluvia'"),
		"its card (and history) is kept")
	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.DeckEntriesChanged))

	// An assigned deck cannot vanish: delete is refused; archive keeps the cards.
	before = f.deckState(t)
	code, body = f.call(t, (*Service).DeleteDeck, http.MethodPost, "/", f.teacher, `{"deck_id":"`+deck.String()+`"}`)
	require.Equal(t, http.StatusConflict, code, body)
	require.Equal(t, "https://lexora.app/problems/deck-in-use", body["type"])
	require.Equal(t, before, f.deckState(t))
	code, body = f.call(t, (*Service).ArchiveDeck, http.MethodPost, "/", f.teacher, `{"deck_id":"`+deck.String()+`","archived":true}`)
	require.Equal(t, http.StatusOK, code, body)
	require.NotNil(t, body["archived_at"])
	require.Len(t, f.learnerCards(t), 2, "the learner keeps the archived deck's cards (sol and nieve)")
	code, body = f.call(t, (*Service).CreateAssignment, http.MethodPost, "/", f.teacher,
		`{"class_id":"`+f.otherClassOf(t)+`","deck_id":"`+deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(t, http.StatusConflict, code, "an archived deck is not assigned again: %v", body)

	// A deck nobody had is deleted with its entries.
	empty, _ := f.ownDeck(t, f.teacher, "Scratch", [2]string{"uno", "one"})
	code, body = f.call(t, (*Service).DeleteDeck, http.MethodPost, "/", f.teacher, `{"deck_id":"`+empty.String()+`"}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Zero(t, f.count(t, "SELECT count(*) FROM lexemes WHERE deck_id = $1", empty))
	var left int
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT count(*) FROM decks WHERE id = $1", empty).Scan(&left))
	require.Zero(t, left)
}

// otherClassOf adds a second class of the fixture's teacher, with no
// learner, and answers its id.
func (f fixture) otherClassOf(t testing.TB) string {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, f.pool.QueryRow(context.Background(),
		"INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, 'Second', 'SECOND') RETURNING id", f.teacher).Scan(&id))
	return id.String()
}

// The preview shows every row, its duplicates and every refusal, and
// writes nothing; the import saves nothing while a line is refused, then
// saves as the teacher chose.
func TestImportPreviewsThenSavesAsChosen(t *testing.T) {
	_, f := setup(t)
	deck, _ := f.ownDeck(t, f.teacher, "Animals", [2]string{"gato", "cat"})
	f.assignOwn(t, deck)
	list := "gato\ta cat\nPerro\tdog\nperro\ta dog\n\tno term here\n"
	before := f.deckState(t)

	code, body := f.call(t, (*Service).PreviewDeckImport, http.MethodPost, "/", f.teacher, jsonOf(t, map[string]any{"deck_id": deck, "text": list}))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "list", body["format"])
	require.Equal(t, "\t", body["separator"])
	rows := body["rows"].([]any)
	require.Len(t, rows, 3)
	require.Equal(t, true, rows[0].(map[string]any)["in_deck"], "gato is in the deck")
	require.EqualValues(t, 2, rows[2].(map[string]any)["same_as"], "perro on line 3 is Perro of line 2")
	require.Equal(t, []any{map[string]any{"line": 4.0, "field": "term", "reason": "the term is empty"}}, body["refused"])
	require.Equal(t, before, f.deckState(t), "a preview writes nothing")

	code, body = f.call(t, (*Service).ImportDeckEntries, http.MethodPost, "/", f.teacher, jsonOf(t, map[string]any{"deck_id": deck, "text": list}))
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Equal(t, "https://lexora.app/problems/import-refused", body["type"])
	require.Equal(t, "1 line is refused: fix it, or choose to leave it out", body["detail"])
	require.Equal(t, []any{map[string]any{"field": "line 4: term", "reason": "the term is empty"}}, body["errors"])
	require.Equal(t, before, f.deckState(t))

	code, body = f.call(t, (*Service).ImportDeckEntries, http.MethodPost, "/", f.teacher,
		jsonOf(t, map[string]any{"deck_id": deck, "text": list, "duplicates": "update", "leave_out_refused": true}))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{2.0, 4.0}, body["left"], "Perro overridden by perro, and the refused line")
	result := body["result"].(map[string]any)
	require.EqualValues(t, 1, result["cards_created"])
	require.Equal(t, "a dog", result["added"].([]any)[0].(map[string]any)["meaning"])
	require.Equal(t, "a cat", result["changed"].([]any)[0].(map[string]any)["meaning"])
	cards := f.learnerCards(t)
	require.Equal(t, "a cat", cards["gato"]["definition"], "the update shows on the learner's card")
	require.Contains(t, cards, "perro", "the last row of the term, at the first one's place")
}

// ExportDeck writes CSV, formulas neutralised, that ImportDeckEntries reads
// back to the same entries; ExportClassProgress neutralises a learner's
// name too.
func TestExportImportsBackUnchanged(t *testing.T) {
	ctx, f := setup(t)
	code, body := f.call(t, (*Service).CreateDeck, http.MethodPost, "/", f.teacher, jsonOf(t, map[string]any{
		"title": "Tricky/\"cells\"", "term_language": "en", "meaning_language": "en",
		"entries": []map[string]string{
			{"term": "-ing", "meaning": "=1+1", "example": "@home, \"quoted\"", "part_of_speech": "noun"},
			{"term": "line", "meaning": "first\nsecond", "example": "+sign"},
			{"term": "café", "meaning": "coffee; a small restaurant"},
			// The editor's free text comes back as typed (issue 26: "it imports back unchanged").
			{"term": "give up", "meaning": "to stop trying", "part_of_speech": "phrasal verb"},
			{"term": "Haus", "meaning": "house", "part_of_speech": "-noun, neuter (pl. Häuser)"}}}))
	require.Equal(t, http.StatusCreated, code, body)
	source := body["deck"].(map[string]any)["id"].(string)

	rec := f.send(t, (*Service).ExportDeck, http.MethodGet, "/?deck_id="+source, f.teacher, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	require.Equal(t, "text/csv; charset=utf-8", rec.Header().Get("Content-Type"))
	require.Equal(t, "attachment; filename=Tricky--cells.csv", rec.Header().Get("Content-Disposition"))
	csv := rec.Body.String()
	require.Contains(t, csv, "'-ing,'=1+1,\"'@home, \"\"quoted\"\"\",noun\r\n", "formulas neutralised")

	copyID, _ := f.ownDeck(t, f.teacher, "Round trip")
	code, body = f.call(t, (*Service).ImportDeckEntries, http.MethodPost, "/", f.teacher, jsonOf(t, map[string]any{
		"deck_id": copyID, "file": base64.StdEncoding.EncodeToString(rec.Body.Bytes())}))
	require.Equal(t, http.StatusOK, code, body)
	texts := func(deck string) []string {
		var out []string
		rows, err := f.pool.Query(ctx, `SELECT l.lemma || '|' || l.definition || '|' || l.example || '|' || l.part_of_speech
			FROM deck_items di JOIN lexemes l ON l.id = di.lexeme_id WHERE di.deck_id = $1 ORDER BY di.position`, deck)
		require.NoError(t, err)
		defer rows.Close()
		for rows.Next() {
			var s string
			require.NoError(t, rows.Scan(&s))
			out = append(out, s)
		}
		return out
	}
	require.Equal(t, texts(source), texts(copyID.String()))
	require.Len(t, texts(source), 5)
	require.Contains(t, texts(copyID.String()), "Haus|house||-noun, neuter (pl. Häuser)")

	_, err := f.pool.Exec(ctx, "UPDATE users SET display_name = '=HYPERLINK(\"http://x\")' WHERE id = $1", f.learner)
	require.NoError(t, err)
	f.assignOwn(t, uuid.MustParse(source))
	rec = f.send(t, (*Service).ExportClassProgress, http.MethodGet, "/?class_id="+f.class.String(), f.teacher, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	lines := strings.Split(strings.TrimPrefix(rec.Body.String(), "\ufeff"), "\r\n")
	require.Equal(t, `learner,"Tricky/""cells"": seen","Tricky/""cells"": learned","Tricky/""cells"": total","Tricky/""cells"": completed"`, lines[0])
	require.True(t, strings.HasPrefix(lines[1], `"'=HYPERLINK(""http://x"")",`), lines[1])
	rec = f.send(t, (*Service).ExportClassProgress, http.MethodGet, "/?class_id="+f.otherClass.String(), f.teacher, nil)
	require.Equal(t, http.StatusNotFound, rec.Code)
}

// Every bad input of issue 26 gets a problem naming the line or the field,
// and changes nothing: no deck, entry, card, assignment or outbox row.
func TestOwnDeckBadInputChangesNothing(t *testing.T) {
	_, f := setup(t)
	deck, entries := f.ownDeck(t, f.teacher, "Unit 3", [2]string{"gato", "cat"})
	f.assignOwn(t, deck)
	foreign, _ := f.ownDeck(t, f.otherTeacher, "Theirs", [2]string{"chien", "dog"})
	d := deck.String()
	entry := func(term string) string { return `{"term":` + jsonOf(t, term) + `,"meaning":"m"}` }
	create := func(entries ...string) string {
		return `{"title":"New","term_language":"es","meaning_language":"en","entries":[` + strings.Join(entries, ",") + `]}`
	}
	many := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = entry(fmt.Sprintf("w%d", i))
		}
		return out
	}
	imp := func(fields map[string]any) string {
		if _, ok := fields["deck_id"]; !ok {
			fields["deck_id"] = d
		}
		return jsonOf(t, fields)
	}
	file := func(b []byte) map[string]any { return map[string]any{"file": b} } // []byte: base64 on the wire
	table := "term,meaning\n" + "a,1\n" + "b,2\n" + "c,3\n" + "d,4\n" + "e,5\n" + "f,\"6\n" + "g,7\n"
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "w%d\tm\n", i)
		}
		return b.String()
	}
	fn := map[string]func(*Service, http.ResponseWriter, *http.Request){
		"CreateDeck": (*Service).CreateDeck, "EditDeckEntries": (*Service).EditDeckEntries, "ImportDeckEntries": (*Service).ImportDeckEntries,
		"PreviewDeckImport": (*Service).PreviewDeckImport, "UpdateDeck": (*Service).UpdateDeck, "CopyDeck": (*Service).CopyDeck,
		"ArchiveDeck": (*Service).ArchiveDeck, "DeleteDeck": (*Service).DeleteDeck, "ReorderDeckEntries": (*Service).ReorderDeckEntries,
	}
	library := f.libraryDeck(t, "Library words").String()
	before := f.deckState(t)
	for _, tc := range []struct {
		name, function, body string
		status               int
		field, reason        string // a field error expected (reason: a part of it)
	}{
		{"empty paste", "ImportDeckEntries", imp(map[string]any{"text": " \n\t\n"}), 400, "text", "empty"},
		{"2,001 entries in a deck", "CreateDeck", create(many(2001)...), 413, "", ""},
		{"2,001 lines of a list", "ImportDeckEntries", imp(map[string]any{"text": rows(2001)}), 413, "text", "more than 2000"},
		{"binary file", "ImportDeckEntries", imp(file([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))), 415, "file", "not text"},
		{"UTF-16 file", "ImportDeckEntries", imp(file([]byte("\xff\xfet\x00e\x00r\x00m\x00"))), 415, "file", "UTF-16"},
		{"Latin-1 file", "ImportDeckEntries", imp(file([]byte("caf\xe9\tcoffee\n"))), 415, "file", "line 1"},
		{"unbalanced quote on line 7", "ImportDeckEntries", imp(map[string]any{"text": table}), 400, "line 7: line", "unbalanced quote"},
		{"a third column in a tab list without a header", "ImportDeckEntries", imp(map[string]any{"text": "perro\tdog\nGato\tcat\tEl gato duerme.\n"}), 400, "line 2: line", "line 2 has 3 columns separated by tabs"},
		{"more columns than the header", "ImportDeckEntries", imp(map[string]any{"text": "term,meaning\ncat,chat,extra\n"}), 400, "line 2: line", "the header names 2"},
		{"a term of 10,000 characters", "CreateDeck", create(entry(strings.Repeat("a", 10000))), 400, "entries[0].term", "at most 200"},
		{"a term of 10,000 characters, imported", "ImportDeckEntries", imp(map[string]any{"text": strings.Repeat("a", 10000) + "\tm\n"}), 400, "line 1: term", "at most 200"},
		{"right-to-left override in a term", "CreateDeck", create(entry("gat\u202eo")), 400, "entries[0].term", "U+202E"},
		{"zero-width space in a term", "EditDeckEntries", `{"deck_id":"` + d + `","add":[` + entry("ga\u200bto") + `]}`, 400, "add[0].term", "U+200B"},
		{"the same term in two cases", "CreateDeck", create(entry("Perro"), entry("PERRO")), 400, "entries[1].term", "ignoring case"},
		{"a term the deck has, in another case", "EditDeckEntries", `{"deck_id":"` + d + `","add":[` + entry("GATO") + `]}`, 400, "add[0].term", "ignoring case"},
		{"a language that is not a tag", "CreateDeck", `{"title":"New","term_language":"español","meaning_language":"en"}`, 400, "term_language", "BCP 47"},
		{"a title the teacher has", "CreateDeck", `{"title":"Unit 3","term_language":"es","meaning_language":"en"}`, 409, "title", ""},
		{"a stale entry version", "EditDeckEntries", `{"deck_id":"` + d + `","change":[{"id":"` + entries["gato"]["id"].(string) + `","version":2,"term":"gato","meaning":"kitty"}]}`, 409, "", ""},
		{"a stale deck version", "ReorderDeckEntries", `{"deck_id":"` + d + `","version":2,"order":["` + entries["gato"]["id"].(string) + `"]}`, 409, "", ""},
		{"an order that leaves an entry out", "ReorderDeckEntries", `{"deck_id":"` + d + `","version":1,"order":["` + uuid.NewString() + `"]}`, 400, "order", ""},
		{"both text and file", "PreviewDeckImport", imp(map[string]any{"text": "a\tb", "file": []byte("a\tb")}), 400, "file", ""},
		{"another teacher's deck: edit", "EditDeckEntries", `{"deck_id":"` + foreign.String() + `","add":[` + entry("x") + `]}`, 404, "", ""},
		{"another teacher's deck: import", "ImportDeckEntries", imp(map[string]any{"deck_id": foreign, "text": "x\ty"}), 404, "", ""},
		{"another teacher's deck: preview", "PreviewDeckImport", imp(map[string]any{"deck_id": foreign, "text": "x\ty"}), 404, "", ""},
		{"another teacher's deck: update", "UpdateDeck", `{"deck_id":"` + foreign.String() + `","version":1,"title":"Mine","term_language":"es","meaning_language":"en"}`, 404, "", ""},
		{"another teacher's deck: copy", "CopyDeck", `{"source_id":"` + foreign.String() + `"}`, 404, "", ""},
		{"another teacher's deck: archive", "ArchiveDeck", `{"deck_id":"` + foreign.String() + `","archived":true}`, 404, "", ""},
		{"another teacher's deck: delete", "DeleteDeck", `{"deck_id":"` + foreign.String() + `"}`, 404, "", ""},
		{"the library is read-only", "EditDeckEntries", `{"deck_id":"` + library + `","add":[` + entry("x") + `]}`, 404, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.send(t, fn[tc.function], http.MethodPost, "/", f.teacher, []byte(tc.body))
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			if tc.field != "" {
				var p struct {
					Errors []struct{ Field, Reason string }
				}
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
				require.NotEmpty(t, p.Errors, rec.Body.String())
				require.Equal(t, tc.field, p.Errors[0].Field, rec.Body.String())
				require.Contains(t, p.Errors[0].Reason, tc.reason)
			}
			require.Equal(t, before, f.deckState(t))
		})
	}

	t.Run("a stale entry is named by its term", func(t *testing.T) {
		id := entries["gato"]["id"].(string)
		code, body := f.call(t, (*Service).EditDeckEntries, http.MethodPost, "/", f.teacher,
			`{"deck_id":"`+d+`","remove":[{"id":"`+id+`","version":2}]}`)
		require.Equal(t, http.StatusConflict, code, body)
		require.Equal(t, `entry "gato" (`+id+`) changed since the version given (now version 1): reload it and make the change again`, body["detail"])
		require.Equal(t, before, f.deckState(t))
	})
	t.Run("a 10 MiB body", func(t *testing.T) {
		body := []byte(`{"deck_id":"` + d + `","text":"` + strings.Repeat("a\\tb\\n", 10<<20/6) + `"}`)
		rec := f.send(t, (*Service).ImportDeckEntries, http.MethodPost, "/", f.teacher, body)
		require.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, rec.Body.String())
		require.Equal(t, before, f.deckState(t))
	})
	t.Run("readers of another teacher's deck", func(t *testing.T) {
		for _, h := range []func(*Service, http.ResponseWriter, *http.Request){(*Service).GetDeck, (*Service).ExportDeck} {
			rec := f.send(t, h, http.MethodGet, "/?deck_id="+foreign.String(), f.teacher, nil)
			require.Equal(t, http.StatusNotFound, rec.Code)
			rec = f.send(t, h, http.MethodGet, "/?deck_id="+d, f.learner, nil)
			require.Equal(t, http.StatusNotFound, rec.Code, "a learner reads entries only as cards")
		}
	})
}

func TestLookupLibraryTermOffersWordNetsEntry(t *testing.T) {
	_, f := setup(t)
	code, body := f.call(t, (*Service).LookupLibraryTerm, http.MethodGet, "/?term=%20Cat%20", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{map[string]any{"term": "cat", "meaning": "a feline", "example": "the cat sat", "part_of_speech": "noun"}}, body["entries"])
	code, body = f.call(t, (*Service).LookupLibraryTerm, http.MethodGet, "/?term=zzz", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{}, body["entries"])
	code, _ = f.call(t, (*Service).LookupLibraryTerm, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusBadRequest, code)
	code, _ = f.call(t, (*Service).LookupLibraryTerm, http.MethodGet, "/?term=cat", f.learner, "")
	require.Equal(t, http.StatusNotFound, code)
}

// The same term in two of a learner's decks is two cards, each with its
// deck's meaning and title, so the learner can tell them apart; a library
// word names the learner's library deck that holds it.
func TestTheSameTermInTwoDecksIsTwoCardsNamingTheirDecks(t *testing.T) {
	_, f := setup(t)
	weather, _ := f.ownDeck(t, f.teacher, "Weather", [2]string{"sol", "sun"})
	music, _ := f.ownDeck(t, f.teacher, "Music", [2]string{"sol", "the note G"})
	f.assignOwn(t, weather)
	f.assignOwn(t, music)

	code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/?limit=200", f.learner, "")
	require.Equal(t, http.StatusOK, code, body)
	meanings := map[string]string{}
	cards := map[any]bool{}
	for _, c := range body["due"].([]any) {
		c := c.(map[string]any)
		if c["lemma"] == "sol" {
			meanings[c["deck_title"].(string)] = c["definition"].(string)
			cards[c["card_id"]] = true
		}
	}
	require.Equal(t, map[string]string{"Weather": "sun", "Music": "the note G"}, meanings)
	require.Len(t, cards, 2, "two cards")

	f.assignOwn(t, f.deck) // the fixture's library deck
	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/?limit=200", f.learner, "")
	require.Equal(t, http.StatusOK, code, body)
	var library string
	require.NoError(t, f.pool.QueryRow(context.Background(), "SELECT title FROM decks WHERE id = $1", f.deck).Scan(&library))
	libraryCards := 0
	for _, c := range body["due"].([]any) {
		if c := c.(map[string]any); c["lemma"] != "sol" {
			require.Equal(t, library, c["deck_title"], "a library word names its library deck: %v", c["lemma"])
			libraryCards++
		}
	}
	require.Positive(t, libraryCards, "the library deck's cards are due")
}

// The largest deck CreateDeck saves (2,000 entries of the longest texts in
// Latin script) exports to about 3.5 MB, and that file, as base64 in an
// import's body, previews and imports back whole.
func TestLargestDeckExportImportsBack(t *testing.T) {
	_, f := setup(t)
	long := func(prefix string, n int) string { return prefix + strings.Repeat("a", n-len(prefix)) }
	entries := make([]map[string]string, decks.MaxEntries)
	for i := range entries {
		entries[i] = map[string]string{"term": long(fmt.Sprintf("w%d ", i), decks.MaxTerm), "meaning": long("m ", decks.MaxMeaning),
			"example": long("e ", decks.MaxExample), "part_of_speech": long("p ", decks.MaxPartOfSpeech)}
	}
	rec := f.send(t, (*Service).CreateDeck, http.MethodPost, "/", f.teacher, []byte(jsonOf(t, map[string]any{
		"title": "Largest", "term_language": "en", "meaning_language": "en", "entries": entries})))
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String()[:min(rec.Body.Len(), 500)])
	var created struct{ Deck struct{ ID string } }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &created))

	rec = f.send(t, (*Service).ExportDeck, http.MethodGet, "/?deck_id="+created.Deck.ID, f.teacher, nil)
	require.Equal(t, http.StatusOK, rec.Code)
	require.InDelta(t, 3.5e6, rec.Body.Len(), 0.02e6)
	file := base64.StdEncoding.EncodeToString(rec.Body.Bytes())

	rec = f.send(t, (*Service).PreviewDeckImport, http.MethodPost, "/", f.teacher, []byte(jsonOf(t, map[string]any{"file": file})))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String()[:min(rec.Body.Len(), 500)])
	var preview struct{ Rows, Refused []any }
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &preview))
	require.Len(t, preview.Rows, decks.MaxEntries)
	require.Empty(t, preview.Refused)

	copyID, _ := f.ownDeck(t, f.teacher, "Largest, imported")
	rec = f.send(t, (*Service).ImportDeckEntries, http.MethodPost, "/", f.teacher, []byte(jsonOf(t, map[string]any{
		"deck_id": copyID, "file": file})))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String()[:min(rec.Body.Len(), 500)])
	var n int
	require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT count(*) FROM deck_items di JOIN lexemes l ON l.id = di.lexeme_id
		WHERE di.deck_id = $1 AND l.definition = $2`, copyID, long("m ", decks.MaxMeaning)).Scan(&n))
	require.Equal(t, decks.MaxEntries, n)
}

// GetDeck and ListOwnDecks say alike whether an own deck is assigned; a
// library deck is never said to be.
func TestGetDeckAndListOwnDecksAgreeOnAssigned(t *testing.T) {
	_, f := setup(t)
	assigned, _ := f.ownDeck(t, f.teacher, "Assigned", [2]string{"gato", "cat"})
	f.assignOwn(t, assigned)
	unassigned, _ := f.ownDeck(t, f.teacher, "Unassigned", [2]string{"perro", "dog"})
	library := f.libraryDeck(t, "Library words")
	code, body := f.call(t, (*Service).ListOwnDecks, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	listed := map[string]any{}
	for _, d := range body["decks"].([]any) {
		listed[d.(map[string]any)["id"].(string)] = d.(map[string]any)["assigned"]
	}
	for deck, want := range map[uuid.UUID]bool{assigned: true, unassigned: false, library: false} {
		code, body := f.call(t, (*Service).GetDeck, http.MethodGet, "/?deck_id="+deck.String(), f.teacher, "")
		require.Equal(t, http.StatusOK, code, body)
		require.Equal(t, want, body["deck"].(map[string]any)["assigned"], deck)
		if deck != library {
			require.Equal(t, want, listed[deck.String()], deck)
		}
	}
}

// openAPIDescription is the description of path's GET in openapi.yaml.
func openAPIDescription(t testing.TB, path string) string {
	t.Helper()
	spec, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	var doc struct {
		Paths map[string]struct{ Get struct{ Description string } }
	}
	require.NoError(t, yaml.Unmarshal(spec, &doc))
	return doc.Paths[path].Get.Description
}

// The columns openapi.yaml says the class progress CSV begins with are
// the ones it has, before the deck columns.
func TestExportClassProgressColumnsAreDocumented(t *testing.T) {
	_, f := setup(t)
	deck, _ := f.ownDeck(t, f.teacher, "Unit 1", [2]string{"gato", "cat"})
	f.assignOwn(t, deck)
	rec := f.send(t, (*Service).ExportClassProgress, http.MethodGet, "/?class_id="+f.class.String(), f.teacher, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	header, _, _ := strings.Cut(strings.TrimPrefix(rec.Body.String(), "\ufeff"), "\r\n")
	var fixed []string
	for _, c := range strings.Split(header, ",") {
		if strings.HasPrefix(c, "Unit 1: ") {
			break
		}
		fixed = append(fixed, c)
	}
	desc := strings.Join(strings.Fields(openAPIDescription(t, "/ExportClassProgress")), " ")
	_, names, ok := strings.Cut(desc, "The header row names ")
	require.True(t, ok, desc)
	names, _, ok = strings.Cut(names, ", then for each deck")
	require.True(t, ok, desc)
	require.Equal(t, fixed, strings.Split(regexp.MustCompile(` \([^)]*\)`).ReplaceAllString(names, ""), ", "))
}
