package functions

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/consumers"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// devVerifier accepts the development issuer's tokens.
func devVerifier(t testing.TB) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(context.Background(), auth.Config{Project: "lexora-dev", Dev: true}, clock.System{})
	require.NoError(t, err)
	return v
}

// bearer returns an Authorization header value for the user whose
// auth_subject is id (the fixtures and the seed use the user id), or none
// for uuid.Nil.
func bearer(t testing.TB, id uuid.UUID) string {
	t.Helper()
	if id == uuid.Nil {
		return ""
	}
	tok, err := auth.DevToken("lexora-dev", id.String(), "", time.Hour)
	require.NoError(t, err)
	return "Bearer " + tok
}

// resources are one of each thing the functions name, for the tests that
// call every function (the role matrix, the hostile run): the learner's
// assignment (assign) and its first card, an operator, the teacher's class,
// an endpoint the teacher registered and a library deck.
type resources struct {
	assignment, card, op, class, library uuid.UUID
	endpoint                             string
}

func (f fixture) resources(t testing.TB) resources {
	t.Helper()
	ctx := context.Background()
	r := resources{assignment: f.assign(t), card: f.cards(t)[0], op: f.operator(t)}
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&r.class))
	_, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"https://school.example/h"}`)
	r.endpoint = body["id"].(string)
	require.NoError(t, f.pool.QueryRow(ctx, "INSERT INTO decks (title, level) VALUES ('Library', 1) RETURNING id").Scan(&r.library))
	return r
}

// refusal is a case of a table of requests a function refuses: the
// request body an actor sends (uuid.Nil: none) and the status expected.
type refusal struct {
	name   string
	actor  uuid.UUID
	body   string
	status int
}

// fixture is one teacher with a class holding one learner, a second teacher
// and learner outside it, and a deck of three lexemes.
type fixture struct {
	pool                  *pgxpool.Pool
	svc                   *Service
	clock                 *clocktest.Stub
	teacher, otherTeacher uuid.UUID
	learner, otherLearner uuid.UUID
	// class is teacher's, with learner; otherClass is otherTeacher's, with otherLearner.
	class, otherClass uuid.UUID
	deck              uuid.UUID
}

// setup marks the test parallel and returns a background context with the
// fixture, as pgtest.Setup does.
func setup(t *testing.T) (context.Context, fixture) {
	t.Helper()
	t.Parallel()
	return context.Background(), newFixture(t)
}

// newFixture seeds a database with the fixture; tests that must not run in
// parallel (tracing) and fuzz targets call it directly.
func newFixture(t testing.TB) fixture {
	t.Helper()
	pool := pgtest.New(t)
	f := fixture{pool: pool, clock: clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))}
	var err error
	f.svc, err = NewService(pool, devVerifier(t), f.clock, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	ctx := context.Background()
	user := func(email string, role account.Role) uuid.UUID {
		return pgtest.User(t, pool, email, email, role, "Europe/Paris")
	}
	f.teacher, f.otherTeacher = user("t@example.com", "teacher"), user("t2@example.com", "teacher")
	f.learner, f.otherLearner = user("l@example.com", "learner"), user("l2@example.com", "learner")
	_, err = pool.Exec(ctx, "UPDATE users SET auth_subject = id::text")
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `
		WITH c1 AS (INSERT INTO classes (teacher_id, name) VALUES ($1, 'A') RETURNING id),
		     c2 AS (INSERT INTO classes (teacher_id, name) VALUES ($2, 'B') RETURNING id)
		INSERT INTO class_members (class_id, learner_id)
		SELECT id, $3::uuid FROM c1 UNION ALL SELECT id, $4::uuid FROM c2`, f.teacher, f.otherTeacher, f.learner, f.otherLearner)
	require.NoError(t, err)
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT id FROM classes WHERE teacher_id = $1), (SELECT id FROM classes WHERE teacher_id = $2)`,
		f.teacher, f.otherTeacher).Scan(&f.class, &f.otherClass))
	require.NoError(t, pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (owner_id, title) VALUES ($1, 'Deck') RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, example, source)
		           VALUES ('cat', 'noun', 'a feline', 'the cat sat', 'test'),
		                  ('run', 'verb', 'move fast', 'run home', 'test'),
		                  ('red', 'adjective', 'of the colour red', 'a red hat', 'test') RETURNING id, lemma),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position)
		           SELECT d.id, l.id, row_number() OVER (ORDER BY l.lemma) FROM d, l)
		SELECT id FROM d`, f.teacher).Scan(&f.deck))
	return f
}

func (f fixture) call(t testing.TB, h func(*Service, http.ResponseWriter, *http.Request), method, target string, actor uuid.UUID, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if actor != uuid.Nil {
		req.Header.Set("Authorization", bearer(t, actor))
	}
	rec := httptest.NewRecorder()
	h(f.svc, rec, req)
	var out map[string]any
	if strings.HasPrefix(rec.Header().Get("Content-Type"), "text/csv") { // ExportDeck, ExportClassProgress
		return rec.Code, map[string]any{"csv": rec.Body.String()}
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	if rec.Code >= 400 {
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
		require.NotEmpty(t, out["type"])
		require.NotEmpty(t, out["title"])
	}
	return rec.Code, out
}

// operator adds an operator (ops@example.com) whose token subject is its
// id, as bearer signs it, and returns its id.
func (f fixture) operator(t testing.TB) uuid.UUID {
	t.Helper()
	var op uuid.UUID
	require.NoError(t, f.pool.QueryRow(context.Background(), `INSERT INTO users (id, email, display_name, role, auth_subject)
		SELECT id, 'ops@example.com', 'Ops', 'operator', id::text FROM (SELECT gen_random_uuid() AS id) n RETURNING id`).Scan(&op))
	return op
}

// drainer returns a drainer, until idle, of the named subscribers' consumers
// (consumers.Handlers on the fixture's database).
func (f fixture) drainer(t testing.TB, subscribers ...string) *outbox.Drainer {
	t.Helper()
	handlers := consumers.Handlers(consumers.Deps{Pool: f.pool})
	chosen := make(map[string]outbox.Handler, len(subscribers))
	for _, s := range subscribers {
		chosen[s] = handlers[s]
	}
	d, err := outbox.NewDrainer(f.pool, chosen, outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	return d
}

func (f fixture) count(t testing.TB, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, f.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

// snapshot counts the rows every write could touch, to prove a rejected
// request changed nothing.
func (f fixture) snapshot(t testing.TB) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range []string{"assignments", "class_decks", "cards", "review_log", "outbox_events", "outbox_deliveries"} {
		out[table] = f.count(t, "SELECT count(*) FROM "+table)
	}
	out["reviewed cards"] = f.count(t, "SELECT count(*) FROM cards WHERE reps > 0")
	return out
}

func (f fixture) topics(t testing.TB) []string {
	t.Helper()
	return pgtest.Column[string](t, f.pool, "SELECT topic FROM outbox_events ORDER BY id")
}

// assign assigns the deck to the class of the teacher (its one learner) and
// answers the assignment's id.
func (f fixture) assign(t testing.TB) uuid.UUID {
	t.Helper()
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
	return assignmentID(t, body)
}

// assignmentID is the id of the one learner's new assignment in a
// CreateAssignment answer.
func assignmentID(t testing.TB, body map[string]any) uuid.UUID {
	t.Helper()
	learners := body["learners"].([]any)
	require.Len(t, learners, 1, body)
	return uuid.MustParse(learners[0].(map[string]any)["assignment"].(map[string]any)["id"].(string))
}

func TestCreateAssignmentStoresCardsAndOneEvent(t *testing.T) {
	ctx, f := setup(t)
	id := f.assign(t)

	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM cards WHERE learner_id = $1 AND state = 0 AND due = $2", f.learner, f.clock.Now()))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM assignments WHERE id = $1 AND teacher_id = $2", id, f.teacher))
	require.Equal(t, []string{events.AssignmentCreated, events.ReminderDueSoon}, f.topics(t))
	require.Equal(t, 2, f.count(t, `SELECT count(*) FROM outbox_deliveries WHERE subscriber IN ('progress', 'email')`))
	var notBefore time.Time
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT not_before FROM outbox_events WHERE topic = $1",
		events.ReminderDueSoon).Scan(&notBefore))
	require.True(t, notBefore.Equal(time.Date(2026, 3, 19, 18, 0, 0, 0, time.UTC)), "24 hours before the due date, got %s", notBefore)
	var payload events.AssignmentCreatedPayload
	var key string
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT payload, ordering_key FROM outbox_events").Scan(&payload, &key))
	require.Equal(t, id, payload.AssignmentID)
	require.Equal(t, 3, payload.Cards)
	require.Equal(t, f.learner.String(), key)
}

func TestCreateAssignmentRejectsBadInputAndChangesNothing(t *testing.T) {
	_, f := setup(t)
	before := f.snapshot(t)
	valid := func(class, deck uuid.UUID, due string) string {
		return `{"class_id":"` + class.String() + `","deck_id":"` + deck.String() + `","due_at":"` + due + `"}`
	}
	one := func(class, learner uuid.UUID) string {
		return `{"class_id":"` + class.String() + `","learner_id":"` + learner.String() + `","deck_id":"` + f.deck.String() + `","due_at":"2026-03-20T18:00:00Z"}`
	}
	for _, tc := range []struct {
		name   string
		actor  uuid.UUID
		body   string
		status int
		field  string
	}{
		{"malformed JSON", f.teacher, `{"class_id":`, http.StatusBadRequest, ""},
		{"missing deck", f.teacher, `{"class_id":"` + f.class.String() + `","due_at":"2026-03-20T18:00:00Z"}`, http.StatusBadRequest, "deck_id"},
		{"missing class", f.teacher, `{"learner_id":"` + f.learner.String() + `","deck_id":"` + f.deck.String() + `","due_at":"2026-03-20T18:00:00Z"}`, http.StatusBadRequest, "class_id"},
		{"wrong type", f.teacher, `{"class_id":"` + f.class.String() + `","deck_id":"` + f.deck.String() + `","due_at":17}`, http.StatusBadRequest, "due_at"},
		{"class not a uuid", f.teacher, `{"class_id":"c1","deck_id":"` + f.deck.String() + `","due_at":"2026-03-20T18:00:00Z"}`, http.StatusBadRequest, "class_id"},
		{"learner not a uuid", f.teacher, `{"class_id":"` + f.class.String() + `","learner_id":"bob","deck_id":"` + f.deck.String() + `","due_at":"2026-03-20T18:00:00Z"}`, http.StatusBadRequest, "learner_id"},
		{"unknown field", f.teacher, `{"class_id":"` + f.class.String() + `","deck_id":"` + f.deck.String() + `","due_at":"2026-03-20T18:00:00Z","x":1}`, http.StatusBadRequest, "x"},
		{"due in the past", f.teacher, valid(f.class, f.deck, "2026-03-01T00:00:00Z"), http.StatusBadRequest, "due_at"},
		{"due too far ahead", f.teacher, valid(f.class, f.deck, "9999-12-31T23:59:59-23:59"), http.StatusBadRequest, "due_at"},
		{"no acting user", uuid.Nil, valid(f.class, f.deck, "2026-03-20T18:00:00Z"), http.StatusUnauthorized, ""},
		{"unknown acting user", uuid.New(), valid(f.class, f.deck, "2026-03-20T18:00:00Z"), http.StatusUnauthorized, ""},
		{"learner as actor", f.learner, valid(f.class, f.deck, "2026-03-20T18:00:00Z"), http.StatusNotFound, ""},
		{"unknown class", f.teacher, valid(uuid.New(), f.deck, "2026-03-20T18:00:00Z"), http.StatusNotFound, ""},
		{"class of another teacher", f.teacher, valid(f.otherClass, f.deck, "2026-03-20T18:00:00Z"), http.StatusNotFound, ""},
		{"learner of another class", f.teacher, one(f.class, f.otherLearner), http.StatusNotFound, ""},
		{"deck of another teacher", f.otherTeacher, valid(f.otherClass, f.deck, "2026-03-20T18:00:00Z"), http.StatusNotFound, ""},
		{"unknown deck", f.teacher, valid(f.class, uuid.New(), "2026-03-20T18:00:00Z"), http.StatusNotFound, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			if tc.field != "" {
				require.Contains(t, body["errors"], map[string]any{"field": tc.field, "reason": body["errors"].([]any)[0].(map[string]any)["reason"]})
			}
			require.Equal(t, before, f.snapshot(t))
		})
	}

	f.assign(t)
	after := f.snapshot(t)
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.teacher,
		valid(f.class, f.deck, "2026-03-21T18:00:00Z"))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "already_assigned", body["status"])
	require.Equal(t, "2026-03-20T18:00:00Z", body["due_at"], "the due date kept, not the one asked for")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM class_decks WHERE class_id = $1 AND due_at = '2026-03-20T18:00:00Z'", f.class))
	require.Equal(t, []any{map[string]any{"learner_id": f.learner.String(), "status": "already_assigned", "assignment": nil}}, body["learners"])
	require.Equal(t, after, f.snapshot(t))
}

func (f fixture) cards(t testing.TB) []uuid.UUID {
	t.Helper()
	return pgtest.Column[uuid.UUID](t, f.pool, "SELECT id FROM cards WHERE learner_id = $1 ORDER BY id", f.learner)
}

func (f fixture) review(t testing.TB, card uuid.UUID, rating int) map[string]any {
	t.Helper()
	code, body := f.call(t, (*Service).SubmitReview, http.MethodPost, "/SubmitReview", f.learner,
		`{"card_id":"`+card.String()+`","rating":`+string(rune('0'+rating))+`}`)
	require.Equal(t, http.StatusOK, code, body)
	return body
}

func TestSubmitReviewUpdatesStateAndCompletesAssignmentOnce(t *testing.T) {
	ctx, f := setup(t)
	assignment := f.assign(t)
	cards := f.cards(t)
	require.Len(t, cards, 3)

	body := f.review(t, cards[0], 3)
	card := body["card"].(map[string]any)
	require.Equal(t, "learning", card["state"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM review_log WHERE card_id = $1 AND rating = 3 AND state_before = 0 AND state_after = 1", cards[0]))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM cards WHERE id = $1 AND reps = 1 AND state = 1 AND due > $2", cards[0], f.clock.Now()))
	require.Equal(t, []string{events.AssignmentCreated, events.ReminderDueSoon, events.ReviewSubmitted}, f.topics(t))
	var p events.ReviewSubmittedPayload
	require.NoError(t, f.pool.QueryRow(ctx,
		"SELECT payload FROM outbox_events WHERE topic = $1", events.ReviewSubmitted).Scan(&p))
	require.Equal(t, []uuid.UUID{assignment}, p.AssignmentIDs)
	require.Equal(t, "2026-03-02", p.StudyDay)

	// Easy graduates a card to Review at once; the last one completes the assignment.
	require.Empty(t, f.review(t, cards[0], 4)["completed_assignments"])
	require.Empty(t, f.review(t, cards[1], 4)["completed_assignments"])
	require.Zero(t, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.AssignmentCompleted))
	done := f.review(t, cards[2], 4)
	require.Equal(t, []any{assignment.String()}, done["completed_assignments"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.AssignmentCompleted))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM assignments WHERE completed_at IS NOT NULL"))

	// Reviewing again later never completes it twice.
	f.clock.Set(f.clock.Now().Add(30 * 24 * time.Hour))
	f.review(t, cards[2], 3)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.AssignmentCompleted))
	require.Equal(t, 5, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReviewSubmitted))
}

func TestSubmitReviewRejectsBadInputAndChangesNothing(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	card := f.cards(t)[0].String()
	before := f.snapshot(t)
	for _, tc := range []refusal{
		{"malformed JSON", f.learner, `{"card_id":"` + card + `",`, http.StatusBadRequest},
		{"missing rating", f.learner, `{"card_id":"` + card + `"}`, http.StatusBadRequest},
		{"missing card", f.learner, `{"rating":3}`, http.StatusBadRequest},
		{"rating as a word", f.learner, `{"card_id":"` + card + `","rating":"good"}`, http.StatusBadRequest},
		{"rating 0", f.learner, `{"card_id":"` + card + `","rating":0}`, http.StatusBadRequest},
		{"rating 5", f.learner, `{"card_id":"` + card + `","rating":5}`, http.StatusBadRequest},
		{"fractional rating", f.learner, `{"card_id":"` + card + `","rating":2.5}`, http.StatusBadRequest},
		{"two objects", f.learner, `{"card_id":"` + card + `","rating":3}{}`, http.StatusBadRequest},
		{"empty body", f.learner, ``, http.StatusBadRequest},
		{"another learner's card", f.otherLearner, `{"card_id":"` + card + `","rating":3}`, http.StatusNotFound},
		{"teacher reviewing", f.teacher, `{"card_id":"` + card + `","rating":3}`, http.StatusNotFound},
		{"unknown card", f.learner, `{"card_id":"` + uuid.NewString() + `","rating":3}`, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).SubmitReview, http.MethodPost, "/SubmitReview", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			require.Equal(t, before, f.snapshot(t))
		})
	}
	// A well-formed body is still a 415 when it is not plain UTF-8 JSON.
	for _, header := range [][2]string{{"Content-Type", "text/plain"}, {"Content-Type", "application/json; charset=iso-8859-1"},
		{"Content-Encoding", "gzip"}} {
		req := httptest.NewRequest(http.MethodPost, "/SubmitReview", strings.NewReader(`{"card_id":"`+card+`","rating":3}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(header[0], header[1])
		req.Header.Set("Authorization", bearer(t, f.learner))
		rec := httptest.NewRecorder()
		f.svc.SubmitReview(rec, req)
		require.Equal(t, http.StatusUnsupportedMediaType, rec.Code, header)
		if header[0] == "Content-Encoding" {
			require.Equal(t, "identity", rec.Header().Get("Accept-Encoding"), "the codings a body may have (RFC 9110 section 12.5.3)")
		} else {
			require.Empty(t, rec.Header().Values("Accept-Encoding"), "a 415 that is not about the coding must not carry it")
		}
		require.Equal(t, before, f.snapshot(t), header)
	}
}

func TestGetScheduleListsDueCardsAndForecast(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	cards := f.cards(t)
	f.review(t, cards[0], 4) // due in a few days

	code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?days=30", f.learner, "")
	require.Equal(t, http.StatusOK, code, body)
	require.EqualValues(t, 2, body["due_count"])
	require.Len(t, body["due"], 2)
	forecast := body["forecast"].([]any)
	require.Len(t, forecast, 30)
	total := 0
	for _, d := range forecast {
		total += int(d.(map[string]any)["due"].(float64))
	}
	require.Equal(t, 3, total)
	require.EqualValues(t, 2, forecast[0].(map[string]any)["due"])
	require.Equal(t, "2026-03-02", forecast[0].(map[string]any)["date"])

	code, _ = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?learner_id="+f.learner.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code)
	code, _ = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?learner_id="+f.learner.String(), f.otherTeacher, "")
	require.Equal(t, http.StatusNotFound, code)
	code, _ = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?learner_id="+f.learner.String(), f.otherLearner, "")
	require.Equal(t, http.StatusNotFound, code)
	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?days=0&limit=x", f.learner, "")
	require.Equal(t, http.StatusBadRequest, code)
	require.Len(t, body["errors"], 2)
	for _, id := range []string{"urn:uuid:" + f.learner.String(), "{" + f.learner.String() + "}", strings.ReplaceAll(f.learner.String(), "-", "")} {
		for _, fn := range []func(*Service, http.ResponseWriter, *http.Request){(*Service).GetSchedule, (*Service).GetProgress} {
			code, _ = f.call(t, fn, http.MethodGet, "/?learner_id="+url.QueryEscape(id), f.learner, "")
			require.Equal(t, http.StatusBadRequest, code, "only the canonical form, as in bodies: %s", id)
		}
	}
	code, _ = f.call(t, (*Service).GetSchedule, http.MethodPost, "/GetSchedule", f.learner, "")
	require.Equal(t, http.StatusMethodNotAllowed, code)
}

// A second deck sharing words: its assignment starts from what the learner
// already knows, and completes at once when every word is learned.
func TestAssignmentOfKnownWordsStartsFromTheirState(t *testing.T) {
	ctx, f := setup(t)
	first := f.assign(t)
	for _, c := range f.cards(t) {
		f.review(t, c, 4)
	}
	var overlap uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (owner_id, title) VALUES ($1, 'Overlap') RETURNING id)
		INSERT INTO deck_items (deck_id, lexeme_id, position)
		SELECT d.id, di.lexeme_id, di.position FROM d, deck_items di WHERE di.deck_id = $2
		RETURNING deck_id`, f.teacher, f.deck).Scan(&overlap))

	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+overlap.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
	a := body["learners"].([]any)[0].(map[string]any)["assignment"].(map[string]any)
	require.EqualValues(t, 0, a["new_cards"])
	require.NotNil(t, a["completed_at"])
	var p events.AssignmentCreatedPayload
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT payload FROM outbox_events WHERE topic = $1 AND payload->>'deck_id' = $2",
		events.AssignmentCreated, overlap.String()).Scan(&p))
	require.Equal(t, []int{3, 3, 3}, []int{p.Cards, p.CardsSeen, p.CardsLearned})
	require.Equal(t, 2, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.AssignmentCompleted))

	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?assignment_id="+first.String(), f.learner, "")
	require.Equal(t, http.StatusOK, code)
	require.EqualValues(t, 0, body["due_count"])
	code, _ = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?assignment_id="+first.String(), f.otherLearner, "")
	require.Equal(t, http.StatusNotFound, code)
	code, _ = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?assignment_id="+uuid.NewString(), f.learner, "")
	require.Equal(t, http.StatusNotFound, code)
}

// TestDueDateBeyondMicrosecondsIsOneInstantEverywhere: a due date with
// nanoseconds is answered, stored and carried in the due-soon reminder as
// the same instant, so the reminder's check against the stored due date
// does not mistake it for a changed one and drop the email.
func TestDueDateBeyondMicrosecondsIsOneInstantEverywhere(t *testing.T) {
	ctx, f := setup(t)
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00.123456789Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, "2026-03-20T18:00:00.123456Z", body["due_at"])
	require.Equal(t, "2026-03-20T18:00:00.123456Z", body["learners"].([]any)[0].(map[string]any)["assignment"].(map[string]any)["due_at"])
	var stored time.Time
	var reminder events.ReminderDueSoonPayload
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT a.due_at, e.payload FROM assignments a, outbox_events e
		WHERE e.topic = $1`, events.ReminderDueSoon).Scan(&stored, &reminder))
	require.True(t, stored.Equal(reminder.DueAt), "stored %s, reminded %s", stored, reminder.DueAt)
}

// A teacher sets up a class's decks before anyone joins (it was a 409
// "Class without learners"): the deck is the class's, shown by
// GetClassProgress, with no assignment, card or event until a learner
// joins; the learner who joins gets it at once.
func TestCreateAssignmentToAClassWithoutLearners(t *testing.T) {
	ctx, f := setup(t)
	var empty uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx,
		`INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, 'Empty', 'EMPTY1') RETURNING id`, f.teacher).Scan(&empty))
	before := f.snapshot(t)
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.teacher,
		`{"class_id":"`+empty.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, "assigned", body["status"])
	require.Equal(t, []any{}, body["learners"])
	before["class_decks"]++
	require.Equal(t, before, f.snapshot(t), "the class's deck, and nothing else")

	code, body = f.call(t, (*Service).GetClassProgress, http.MethodGet, "/?class_id="+empty.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{}, body["learners"])
	require.Equal(t, []any{map[string]any{"deck_id": f.deck.String(), "deck_title": "Deck",
		"due_at": "2026-03-20T18:00:00Z", "assigned_at": "2026-03-02T09:00:00Z", "desired_retention": 0.9}}, body["decks"])

	code, body = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.otherLearner, `{"join_code":"EMPTY1"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Len(t, body["assignments"], 1)
	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM cards WHERE learner_id = $1", f.otherLearner))
}
