package functions

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestRoleMatrix calls every function as every role: the resource's owner,
// a user of the same role from another class (a foreign tenant), the other
// roles, and no one. A denial for a foreign resource is 404, never 403, and
// no denial changes the database.
func TestRoleMatrix(t *testing.T) {
	ctx, f := setup(t)
	r := f.resources(t)
	assignment, card, op, class, endpoint, library := r.assignment, r.card, r.op, r.class, r.endpoint, r.library
	// A dead letter, so that a denied replay or skip would have something to change.
	_, err := f.pool.Exec(ctx, "UPDATE outbox_deliveries SET state = 'dead', finished_at = now() WHERE id = (SELECT min(id) FROM outbox_deliveries)")
	require.NoError(t, err)

	// A second learner, whom the class chores' rows rename and remove: they
	// join the class when those rows start (each body is built before the
	// database is fingerprinted), after CreateAssignment's row, which
	// expects every learner of the class to have its deck already.
	extra := pgtest.User(t, f.pool, "extra@example.com", "extra@example.com", "learner", "UTC")
	member := func() string {
		_, err := f.pool.Exec(ctx, "INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", class, extra)
		require.NoError(t, err)
		return `{"class_id":"` + class.String() + `","learner_id":"` + extra.String() + `"}`
	}
	own, _ := f.ownDeck(t, f.teacher, "Own", [2]string{"uno", "one"})
	scratch, _ := f.ownDeck(t, f.teacher, "Scratch")
	ownQuery := "/?deck_id=" + own.String()
	version := func() string { return fmt.Sprint(f.count(t, "SELECT version FROM decks WHERE id = $1", own)) }
	order := func() string {
		return `["` + strings.Join(pgtest.Column[string](t, f.pool, "SELECT lexeme_id::text FROM deck_items WHERE deck_id = $1 ORDER BY position", own), `","`) + `"]`
	}
	roles := map[string]uuid.UUID{"learner": f.learner, "foreign learner": f.otherLearner, "teacher": f.teacher,
		"foreign teacher": f.otherTeacher, "operator": op, "anonymous": uuid.Nil}
	const ok, no, gone, anon = 200, 404, 404, 401
	covered := map[string]bool{}
	for _, c := range []struct {
		name   string
		method string
		path   string
		body   func() string
		want   map[string]int // status by role; anonymous is always 401
	}{
		{"GetSchedule", http.MethodGet, "/?learner_id=" + f.learner.String(), nil,
			map[string]int{"learner": ok, "foreign learner": no, "teacher": ok, "foreign teacher": no, "operator": no}},
		{"GetProgress", http.MethodGet, "/?learner_id=" + f.learner.String(), nil,
			map[string]int{"learner": ok, "foreign learner": no, "teacher": ok, "foreign teacher": no, "operator": no}},
		{"GetSchedule", http.MethodGet, "/?assignment_id=" + assignment.String(), nil,
			map[string]int{"learner": ok, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": no}},
		{"SubmitReview", http.MethodPost, "/", func() string { return `{"card_id":"` + card.String() + `","rating":3}` },
			map[string]int{"learner": ok, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": no}},
		{"UndoReview", http.MethodPost, "/", func() string { return `{"card_id":"` + card.String() + `"}` },
			map[string]int{"learner": ok, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": no}},
		{"StartDeck", http.MethodPost, "/", func() string { return `{"deck_id":"` + library.String() + `"}` },
			map[string]int{"learner": 201, "foreign learner": 201, "teacher": no, "foreign teacher": no, "operator": no}},
		{"Me", http.MethodGet, "/", nil,
			map[string]int{"learner": ok, "foreign learner": ok, "teacher": ok, "foreign teacher": ok, "operator": ok}},
		{"CreateAssignment", http.MethodPost, "/", func() string {
			return `{"class_id":"` + f.class.String() + `","deck_id":"` + f.deck.String() + `","due_at":"2026-04-20T18:00:00Z"}`
		}, map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": no, "operator": no}}, // ok: already assigned
		{"EnrollLearner", http.MethodPost, "/", func() string { return `{"class_id":"` + class.String() + `","email":"l@example.com"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": 409, "foreign teacher": no, "operator": no}},
		{"CreateClass", http.MethodPost, "/", func() string { return `{"name":"New class"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": 201, "foreign teacher": 201, "operator": no}},
		{"CreateLearnerAccount", http.MethodPost, "/", func() string { return `{}` }, // a learner's account exists
			map[string]int{"learner": 409, "foreign learner": 409, "teacher": no, "foreign teacher": no, "operator": no}},
		{"SetNewCardsPerDay", http.MethodPost, "/", func() string { return `{"class_id":"` + class.String() + `","new_cards_per_day":5}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ListClasses", http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": ok, "operator": no}},
		{"ListDecks", http.MethodGet, "/", nil,
			map[string]int{"learner": ok, "foreign learner": ok, "teacher": ok, "foreign teacher": ok, "operator": no}},
		{"GetClassProgress", http.MethodGet, "/?class_id=" + class.String(), nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"SetDeckRetention", http.MethodPost, "/", func() string {
			return `{"class_id":"` + class.String() + `","deck_id":"` + f.deck.String() + `","desired_retention":0.85}`
		}, map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"GetDeckWorkload", http.MethodGet, "/?class_id=" + class.String() + "&deck_id=" + f.deck.String(), nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"RegisterWebhookEndpoint", http.MethodPost, "/", func() string { return `{"url":"https://school.example/m"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": 201, "foreign teacher": 201, "operator": no}},
		{"ListWebhookEndpoints", http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": ok, "operator": no}},
		{"RotateWebhookSecret", http.MethodPost, "/", func() string { return `{"id":"` + endpoint + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"EnableWebhookEndpoint", http.MethodPost, "/", func() string { return `{"id":"` + endpoint + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"DeleteWebhookEndpoint", http.MethodPost, "/", func() string { return `{"id":"` + endpoint + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ListOwnDecks", http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": ok, "operator": no}},
		{"GetDeck", http.MethodGet, ownQuery, nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"CreateDeck", http.MethodPost, "/", func() string { return `{"title":"Row","term_language":"es","meaning_language":"en"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": 201, "foreign teacher": 201, "operator": no}},
		{"CopyDeck", http.MethodPost, "/", func() string { return `{"source_id":"` + own.String() + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": 201, "foreign teacher": gone, "operator": no}},
		{"UpdateDeck", http.MethodPost, "/", func() string {
			return `{"deck_id":"` + own.String() + `","version":` + version() + `,"title":"Own","term_language":"es","meaning_language":"en"}`
		}, map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"EditDeckEntries", http.MethodPost, "/", func() string { return `{"deck_id":"` + own.String() + `","add":[{"term":"dos","meaning":"two"}]}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ReorderDeckEntries", http.MethodPost, "/", func() string {
			return `{"deck_id":"` + own.String() + `","version":` + version() + `,"order":` + order() + `}`
		}, map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"PreviewDeckImport", http.MethodPost, "/", func() string { return `{"deck_id":"` + own.String() + `","text":"tres\tthree"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ImportDeckEntries", http.MethodPost, "/", func() string { return `{"deck_id":"` + own.String() + `","text":"cuatro\tfour"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ExportDeck", http.MethodGet, ownQuery, nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ExportClassProgress", http.MethodGet, "/?class_id=" + class.String(), nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"ArchiveDeck", http.MethodPost, "/", func() string { return `{"deck_id":"` + own.String() + `","archived":false}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"DeleteDeck", http.MethodPost, "/", func() string { return `{"deck_id":"` + scratch.String() + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"LookupLibraryTerm", http.MethodGet, "/?term=cat", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": ok, "operator": no}},
		{"OutboxHealth", http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{"ListDeadLetters", http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{"ReplayDeadLetters", http.MethodPost, "/", func() string { return `{"all":true,"reason":"test"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{"SkipDeadLetters", http.MethodPost, "/", func() string { return `{"all":true,"reason":"test"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{"SetLearnerName", http.MethodPost, "/", func() string {
			return strings.TrimSuffix(member(), "}") + `,"display_name":"Extra"}`
		}, map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"UpdateClass", http.MethodPost, "/", func() string { return `{"class_id":"` + class.String() + `","name":"A, renamed"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"NewJoinCode", http.MethodPost, "/", func() string { return `{"class_id":"` + class.String() + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{"RemoveLearner", http.MethodPost, "/", member, // the teacher's removal is the last: then the learner is gone
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
	} {
		covered[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			// The teacher last: a removal (or any write) it makes cannot
			// turn another role's denial into a different one.
			order := slices.DeleteFunc(slices.Sorted(maps.Keys(roles)), func(r string) bool { return r == "teacher" })
			for _, role := range append(order, "teacher") {
				who := roles[role]
				body := ""
				if c.body != nil {
					body = c.body()
				}
				before := f.writes(t)
				code, _ := f.call(t, Functions[c.name], c.method, c.path, who, body)
				want := anon
				if role != "anonymous" {
					want = c.want[role]
				}
				require.Equal(t, want, code, "%s%s as %s", c.name, c.path, role)
				if code >= 400 {
					require.Equal(t, before, f.writes(t), "%s as %s was denied but changed the database", c.name, role)
				}
			}
		})
	}
	// Every registered function has a row.
	for name := range Functions {
		require.True(t, covered[name], "%s has no row in the role matrix", name)
	}
}

// writes fingerprints every table a function writes: row counts, plus the
// secrets and states a rotation or a replay changes in place.
func (f fixture) writes(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT concat_ws(',',
		(SELECT count(*) FROM classes), (SELECT string_agg(coalesce(new_cards_per_day, -1)::text, ' ' ORDER BY id) FROM classes),
		(SELECT count(*) FROM class_members), (SELECT count(*) FROM users), (SELECT count(*) FROM assignments),
		(SELECT count(*) FROM cards), (SELECT count(*) FROM review_log), (SELECT count(*) FROM review_undo),
		(SELECT count(*) FROM learner_decks), (SELECT string_agg(concat(state, due, reps), ' ' ORDER BY id) FROM cards),
		(SELECT count(*) FROM outbox_events),
		(SELECT string_agg(concat(class_id, deck_id, desired_retention), ' ' ORDER BY class_id, deck_id) FROM class_decks),
		(SELECT count(*) FROM outbox_audit), (SELECT count(*) FROM idempotency_keys),
		(SELECT string_agg(secret, ' ' ORDER BY id) FROM webhook_endpoints),
		(SELECT string_agg(concat(name, archived_at, join_code), ' ' ORDER BY id) FROM classes),
		(SELECT string_agg(concat(learner_id, display_name), ' ' ORDER BY class_id, learner_id) FROM class_members),
		(SELECT string_agg(state || attempts, ' ' ORDER BY id) FROM outbox_deliveries),
		(SELECT string_agg(concat(id, version, archived_at), ' ' ORDER BY id) FROM decks),
		(SELECT string_agg(concat(id, version, definition, removed_at), ' ' ORDER BY id) FROM lexemes WHERE deck_id IS NOT NULL),
		(SELECT string_agg(concat(deck_id, lexeme_id, position), ' ' ORDER BY deck_id, lexeme_id) FROM deck_items))`).Scan(&s))
	return s
}

// TestCallerIsCheckedBeforeTheRequest: a caller without a token gets 401,
// and a caller of the wrong role 404, whatever the body or the query holds;
// neither learns from a 400 what a valid request looks like.
func TestCallerIsCheckedBeforeTheRequest(t *testing.T) {
	_, f := setup(t)
	op := f.operator(t)
	gets := map[string]bool{"Me": true, "GetSchedule": true, "GetProgress": true, "ListWebhookEndpoints": true,
		"OutboxHealth": true, "ListDeadLetters": true, "ListClasses": true, "ListDecks": true, "GetClassProgress": true,
		"ListOwnDecks": true, "GetDeck": true, "ExportDeck": true, "ExportClassProgress": true, "LookupLibraryTerm": true,
		"GetDeckWorkload": true}
	const teacher, learner, operator = "teacher", "learner", "operator"
	roles := map[string]uuid.UUID{teacher: f.teacher, learner: f.learner, operator: op}
	webhooks, outbox, reads := []string{teacher}, []string{operator}, []string{teacher, learner}
	allowed := map[string][]string{"CreateAssignment": {teacher}, "SubmitReview": {learner}, "EnrollLearner": reads,
		"UndoReview": {learner}, "StartDeck": {learner}, "Me": {teacher, learner, operator},
		"CreateClass": {teacher}, "CreateLearnerAccount": {learner}, "SetNewCardsPerDay": {teacher}, "ListClasses": {teacher}, "ListDecks": reads, "GetClassProgress": {teacher},
		"SetDeckRetention": {teacher}, "GetDeckWorkload": {teacher},
		"GetSchedule": reads, "GetProgress": reads,
		"RegisterWebhookEndpoint": webhooks, "ListWebhookEndpoints": webhooks, "RotateWebhookSecret": webhooks,
		"EnableWebhookEndpoint": webhooks, "DeleteWebhookEndpoint": webhooks,
		"OutboxHealth": outbox, "ListDeadLetters": outbox, "ReplayDeadLetters": outbox, "SkipDeadLetters": outbox,
		"RemoveLearner": {teacher}, "UpdateClass": {teacher}, "NewJoinCode": {teacher}, "SetLearnerName": {teacher},
		"ListOwnDecks": webhooks, "GetDeck": webhooks, "CreateDeck": webhooks, "CopyDeck": webhooks, "UpdateDeck": webhooks,
		"EditDeckEntries": webhooks, "ReorderDeckEntries": webhooks, "PreviewDeckImport": webhooks, "ImportDeckEntries": webhooks,
		"ExportDeck": webhooks, "ExportClassProgress": webhooks, "ArchiveDeck": webhooks, "DeleteDeck": webhooks,
		"LookupLibraryTerm": webhooks}
	for name, fn := range Functions {
		require.Contains(t, allowed, name)
		method := http.MethodPost
		if gets[name] {
			method = http.MethodGet
		}
		const badQuery, badBody = "/?limit=0&learner_id=x&since=never", `{"url":"ftp://x","rating":9,"unknown":1}`
		code, _ := f.call(t, fn, method, badQuery, uuid.Nil, badBody)
		require.Equal(t, http.StatusUnauthorized, code, "%s without a token", name)
		for role, who := range roles {
			if !slices.Contains(allowed[name], role) {
				code, _ = f.call(t, fn, method, badQuery, who, badBody)
				require.Equal(t, http.StatusNotFound, code, "%s as a %s", name, role)
			}
		}
	}
}

// TestRoleMatrixSharedLearner is the role matrix's "shared learner" row for
// every read function: a learner in two teachers' classes, each teacher with
// a deck assigned to them, a leech and an early finish in the second
// teacher's deck. The first teacher reads the learner and finds none of the
// second teacher's data: not only a 200, but the absence of each item.
func TestRoleMatrixSharedLearner(t *testing.T) {
	ctx, f := setup(t)
	_, err := f.pool.Exec(ctx, "INSERT INTO class_members (class_id, learner_id) SELECT id, $2 FROM classes WHERE teacher_id = $1", f.otherTeacher, f.learner)
	require.NoError(t, err)
	var secretDeck uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (owner_id, title) VALUES ($1, 'Secret deck') RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, example, source)
		           VALUES ('clandestine', 'adjective', 'secret', 'a clandestine meeting', 'test'),
		                  ('furtive', 'adjective', 'sly', 'a furtive glance', 'test') RETURNING id, lemma),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position)
		           SELECT d.id, l.id, row_number() OVER (ORDER BY l.lemma) FROM d, l)
		SELECT id FROM d`, f.otherTeacher).Scan(&secretDeck))
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/", f.otherTeacher,
		`{"class_id":"`+f.otherClass.String()+`","learner_id":"`+f.learner.String()+`","deck_id":"`+secretDeck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
	secretAssignment := assignmentID(t, body).String()
	f.assign(t)
	card := func(lemma string) uuid.UUID {
		var id uuid.UUID
		require.NoError(t, f.pool.QueryRow(ctx, "SELECT c.id FROM cards c JOIN lexemes l ON l.id = c.lexeme_id WHERE l.lemma = $1 AND c.learner_id = $2",
			lemma, f.learner).Scan(&id))
		return id
	}
	leech := card("clandestine")
	f.review(t, card("cat"), 4)
	f.review(t, leech, 4)
	for lapse := 1; lapse <= learning.LeechLapses; lapse++ {
		f.clock.Set(f.clock.Now().Add(time.Hour))
		f.review(t, leech, 1)
		if lapse < learning.LeechLapses {
			f.clock.Set(f.clock.Now().Add(time.Hour))
			f.review(t, leech, 4)
		}
	}
	f.review(t, card("furtive"), 4) // completes the secret assignment early
	f.clock.Set(f.clock.Now().Add(time.Hour))
	f.review(t, card("cat"), 1) // a lapse in the first teacher's deck: its hardest word
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	_, body = f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.otherTeacher, `{"url":"https://secret.example/h"}`)
	secretEndpoint := body["id"].(string)

	d := f.drainer(t, events.SubscriberActivity, events.SubscriberFeed, events.SubscriberProgress)
	_, err = d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM learner_feed WHERE kind = 'leech'"))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM learner_feed WHERE message LIKE '%finished early%'"))

	secrets := []string{"clandestine", "furtive", "Secret deck", "finished early", secretDeck.String(), secretAssignment,
		leech.String(), card("furtive").String(), secretEndpoint, "secret.example"}
	learnerQuery := "/?learner_id=" + f.learner.String()
	for _, c := range []struct {
		name, path string
		fn         func(*Service, http.ResponseWriter, *http.Request)
		// shows is what the first teacher does see, so that an empty
		// answer cannot pass.
		shows []string
	}{
		{"GetProgress", learnerQuery, (*Service).GetProgress, []string{"First review", "Deck"}},
		{"GetSchedule", learnerQuery, (*Service).GetSchedule, []string{"run"}},
		{"GetSchedule", learnerQuery + "&days=30&limit=100", (*Service).GetSchedule, []string{"red"}},
		{"ListWebhookEndpoints", "/", (*Service).ListWebhookEndpoints, []string{}},
		{"ListClasses", "/", (*Service).ListClasses, []string{"l@example.com"}},
		{"ListDecks", "/", (*Service).ListDecks, []string{"Deck"}},
		{"GetClassProgress", "/?class_id=" + class.String(), (*Service).GetClassProgress, []string{"Deck", "cat"}},
		{"ListOwnDecks", "/", (*Service).ListOwnDecks, []string{"Deck"}},
		{"GetDeck", "/?deck_id=" + f.deck.String(), (*Service).GetDeck, []string{"cat", "run"}},
		{"GetDeckWorkload", "/?class_id=" + class.String() + "&deck_id=" + f.deck.String(), (*Service).GetDeckWorkload,
			[]string{f.deck.String(), "reviews_per_day"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := f.call(t, c.fn, http.MethodGet, c.path, f.teacher, "")
			require.Equal(t, http.StatusOK, code, "%s%s: %v", c.name, c.path, body)
			raw, err := json.Marshal(body)
			require.NoError(t, err)
			for _, s := range secrets {
				require.NotContains(t, string(raw), s, "%s%s shows the other teacher's %q", c.name, c.path, s)
			}
			for _, s := range c.shows {
				require.Contains(t, string(raw), s, "%s%s", c.name, c.path)
			}
			// The other teacher, and the learner, do see it.
			if c.name == "GetProgress" {
				for _, who := range []uuid.UUID{f.otherTeacher, f.learner} {
					_, body := f.call(t, c.fn, http.MethodGet, c.path, who, "")
					raw, err := json.Marshal(body)
					require.NoError(t, err)
					require.Contains(t, string(raw), "clandestine")
					require.Contains(t, string(raw), "finished early")
				}
			}
		})
	}
	// Every read function a teacher may call has a shared-learner row.
	// (ListDeadLetters and OutboxHealth are the operators' alone: a
	// teacher's call is the 404 of the role matrix.)
	for name := range Functions {
		if strings.HasPrefix(name, "Get") || strings.HasPrefix(name, "List") {
			require.Contains(t, []string{"GetProgress", "GetSchedule", "ListWebhookEndpoints", "ListDeadLetters",
				"ListClasses", "ListDecks", "GetClassProgress", "ListOwnDecks", "GetDeck",
				"GetDeckWorkload"}, name)
		}
	}
}
