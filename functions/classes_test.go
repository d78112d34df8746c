package functions

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
)

// signedIn POSTs body to CreateClass with a token for subject and email (a
// verified email when not empty) and, when key is set, an Idempotency-Key.
func (f fixture) signedIn(t *testing.T, subject, email, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	return f.signedInTo(t, (*Service).CreateClass, auth.Claims{Subject: subject, Email: email}, key, body)
}

// signedInTo POSTs body to h with a token of c's subject, email (verified
// when not empty) and name and, when key is set, an Idempotency-Key.
func (f fixture) signedInTo(t *testing.T, h func(*Service, http.ResponseWriter, *http.Request), c auth.Claims, key, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h(f.svc, rec, signedInRequest(t, c, key, body))
	return rec
}

// signedInRequest is the POST of signedInTo.
func signedInRequest(t *testing.T, c auth.Claims, key, body string) *http.Request {
	t.Helper()
	tok, err := auth.DevNamedToken("lexora-dev", c.Subject, c.Email, c.Name, time.Hour)
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	if key != "" {
		req.Header.Set(IdempotencyKeyHeader, key)
	}
	return req
}

// A newcomer's first request sent several times at once with one
// Idempotency-Key (a client retrying while the first is still running): every
// copy waits for the first and gets its answer; one account, one effect.
func TestANewcomersParallelFirstRequestsGetOneAnswer(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	_, err := f.pool.Exec(ctx, "UPDATE classes SET join_code = 'JOIN42' WHERE teacher_id = $1", f.teacher)
	require.NoError(t, err)
	for _, c := range []struct {
		name, subject, body string
		h                   func(*Service, http.ResponseWriter, *http.Request)
		effects             string
	}{
		{"a join", "par-join-uid", `{"join_code":"JOIN42","display_name":"Par Join"}`, (*Service).EnrollLearner,
			"SELECT count(*) FROM class_members m JOIN users u ON u.id = m.learner_id WHERE u.auth_subject = $1"},
		{"a first class", "par-class-uid", `{"name":"Par class"}`, (*Service).CreateClass,
			"SELECT count(*) FROM classes c JOIN users u ON u.id = c.teacher_id WHERE u.auth_subject = $1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			claims := auth.Claims{Subject: c.subject, Email: c.subject + "@example.com"}
			reqs := make([]*http.Request, 6)
			recs := make([]*httptest.ResponseRecorder, len(reqs))
			for i := range reqs {
				reqs[i], recs[i] = signedInRequest(t, claims, "pj", c.body), httptest.NewRecorder()
			}
			var wg sync.WaitGroup
			for i := range reqs {
				wg.Go(func() { c.h(f.svc, recs[i], reqs[i]) })
			}
			wg.Wait()
			for _, rec := range recs {
				require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
				require.JSONEq(t, recs[0].Body.String(), rec.Body.String())
			}
			require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE auth_subject = $1", c.subject))
			require.Equal(t, 1, f.count(t, c.effects, c.subject))
			require.Equal(t, 1, f.count(t, "SELECT count(*) FROM idempotency_keys WHERE key = 'pj'"+
				" AND scope LIKE '% ' || (SELECT id::text FROM users WHERE auth_subject = $1)", c.subject))
			var id string
			require.NoError(t, f.pool.QueryRow(ctx, "SELECT id::text FROM users WHERE auth_subject = $1", c.subject).Scan(&id))
			require.Equal(t, 0, f.count(t, `SELECT count(*) FROM (SELECT topic FROM outbox_events WHERE ordering_key = $1
				GROUP BY topic HAVING count(*) > 1) twice`, id), "one set of events")
			if c.name == "a join" {
				require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = 'learner.enrolled' AND ordering_key = $1", id))
			}
		})
	}
}

// accounts counts users and classes.
func (f fixture) accounts(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, f.pool.QueryRow(context.Background(),
		"SELECT concat_ws(',', (SELECT count(*) FROM users), (SELECT count(*) FROM classes), (SELECT count(*) FROM idempotency_keys))").Scan(&s))
	return s
}

func TestANewcomerBecomesATeacherWithTheirFirstClass(t *testing.T) {
	ctx, f := setup(t)
	first := f.signedIn(t, "cleo-uid", "Cleo@Example.com", "first-class", `{"name":"Morning class","timezone":"Europe/Rome"}`)
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	var class api.Class
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &class))
	require.Equal(t, "Morning class", class.Name)
	require.Regexp(t, `^[A-Z2-7]{8}$`, *class.JoinCode)
	require.Empty(t, class.Members)
	require.WithinDuration(t, f.clock.Now(), class.CreatedAt, 0, "created at the request's clock")

	var role account.Role
	var name, tz, teacher string
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT u.role, u.display_name, u.timezone, u.id::text FROM users u
		JOIN classes c ON c.teacher_id = u.id WHERE u.auth_subject = 'cleo-uid' AND u.email = 'cleo@example.com' AND c.id = $1`,
		class.Id).Scan(&role, &name, &tz, &teacher))
	require.Equal(t, account.Teacher, role)
	require.Equal(t, "cleo", name, "named after the email's local part")
	require.Equal(t, "Europe/Rome", tz)

	retry := f.signedIn(t, "cleo-uid", "cleo@example.com", "first-class", `{"name":"Morning class","timezone":"Europe/Rome"}`)
	require.Equal(t, http.StatusCreated, retry.Code, retry.Body.String())
	require.Equal(t, "true", retry.Header().Get("Idempotent-Replayed"), "the retry, made as the new teacher, finds the first answer")
	require.JSONEq(t, first.Body.String(), retry.Body.String())

	second := f.signedIn(t, "cleo-uid", "cleo@example.com", "", `{"name":"Evening class"}`)
	require.Equal(t, http.StatusCreated, second.Code, second.Body.String())
	require.Equal(t, 2, f.count(t, "SELECT count(*) FROM classes WHERE teacher_id = $1", teacher))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email = 'cleo@example.com'"))
}

func TestCreateClassRefusesWithoutChangingAnything(t *testing.T) {
	ctx, f := setup(t)
	// A learner added by email who never signed in: a first sign-in with
	// that email links the account, which is a learner's.
	_, err := f.pool.Exec(ctx, "INSERT INTO users (email, display_name, role) VALUES ('sam@example.com', 'Sam', 'learner')")
	require.NoError(t, err)
	before := f.accounts(t)
	for _, c := range []struct {
		name           string
		subject, email string
		body           string
		want           int
	}{
		{"no name", f.teacher.String(), "", `{}`, http.StatusBadRequest},
		{"blank name", f.teacher.String(), "", `{"name":"  "}`, http.StatusBadRequest},
		{"two-line name", f.teacher.String(), "", `{"name":"A\nB"}`, http.StatusBadRequest},
		{"name too long", f.teacher.String(), "", `{"name":"` + strings.Repeat("a", 201) + `"}`, http.StatusBadRequest},
		{"unknown field", f.teacher.String(), "", `{"name":"A","teacher_id":"` + f.otherTeacher.String() + `"}`, http.StatusBadRequest},
		{"a newcomer's bad zone", "new-uid", "new@example.com", `{"name":"A","timezone":"Mars/Olympus"}`, http.StatusBadRequest},
		{"a learner", f.learner.String(), "", `{"name":"A"}`, http.StatusNotFound},
		{"a newcomer without a verified email", "new-uid", "", `{"name":"A"}`, http.StatusUnauthorized},
		{"a learner's first sign-in", "sam-uid", "sam@example.com", `{"name":"A"}`, http.StatusNotFound},
		{"another sign-in with a linked account's email", "new-uid", "t@example.com", `{"name":"A"}`, http.StatusConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := f.signedIn(t, c.subject, c.email, "", c.body)
			require.Equal(t, c.want, rec.Code, rec.Body.String())
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			require.Equal(t, before, f.accounts(t), "a refused request changes nothing")
		})
	}
}

func TestATeacherListsClassesAndDecks(t *testing.T) {
	ctx, f := setup(t)
	_, err := f.pool.Exec(ctx, `INSERT INTO decks (title, level) VALUES ('Library B', 2), ('Library A', 1)`)
	require.NoError(t, err)
	_, created := f.call(t, (*Service).CreateClass, http.MethodPost, "/", f.teacher, `{"name":"Second"}`)

	code, body := f.call(t, (*Service).ListClasses, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	classes := body["classes"].([]any)
	require.Len(t, classes, 2)
	// Oldest first: the new class was made at the stub clock's instant, months
	// before the fixture's own class (the database's now()).
	second, first := classes[0].(map[string]any), classes[1].(map[string]any)
	require.Equal(t, "A", first["name"])
	require.Nil(t, first["join_code"], "the fixture's class predates join codes")
	members := first["members"].([]any)
	require.Len(t, members, 1)
	require.Equal(t, f.learner.String(), members[0].(map[string]any)["learner_id"])
	require.Equal(t, "l@example.com", members[0].(map[string]any)["email"])
	require.Equal(t, created["join_code"], second["join_code"])
	require.Equal(t, []any{}, second["members"])

	code, body = f.call(t, (*Service).ListClasses, http.MethodGet, "/", f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Len(t, body["classes"].([]any), 1, "another teacher sees only their own class")

	code, body = f.call(t, (*Service).ListDecks, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	var titles []string
	for _, d := range body["decks"].([]any) {
		titles = append(titles, d.(map[string]any)["title"].(string))
	}
	require.Equal(t, []string{"Library A", "Library B", "Deck"}, titles, "the library by level, then the teacher's own")
	own := body["decks"].([]any)[2].(map[string]any)
	require.Equal(t, map[string]any{"id": f.deck.String(), "title": "Deck", "description": "", "words": 3.0, "level": nil, "library": false,
		"started": false}, own)

	code, body = f.call(t, (*Service).ListDecks, http.MethodGet, "/", f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Len(t, body["decks"].([]any), 2, "another teacher's own deck is not listed")
	code, _ = f.call(t, (*Service).ListDecks, http.MethodGet, "/?level=1", f.teacher, "")
	require.Equal(t, http.StatusBadRequest, code, "an unknown parameter")
}

func TestClassProgressIsTheProjectionWithItsTime(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	progress := func() map[string]any {
		t.Helper()
		code, body := f.call(t, (*Service).GetClassProgress, http.MethodGet, "/?class_id="+class.String(), f.teacher, "")
		require.Equal(t, http.StatusOK, code, body)
		return body
	}
	body := progress()
	require.Nil(t, body["progress_updated_at"])
	require.Equal(t, []any{}, body["hardest_words"])
	row := body["learners"].([]any)[0].(map[string]any)
	require.Equal(t, f.learner.String(), row["learner_id"])
	require.Equal(t, []any{}, row["assignments"])

	assignment := f.assign(t)
	cell := progress()["learners"].([]any)[0].(map[string]any)["assignments"].([]any)[0].(map[string]any)
	require.Equal(t, assignment.String(), cell["assignment_id"])
	require.Equal(t, "Deck", cell["deck_title"])
	require.Equal(t, 3.0, cell["cards_due"], "every new card is due at once")
	require.Nil(t, cell["progress"], "the drain has not counted the assignment yet: no pretended zeros")

	// What the progress consumer writes, and a lapse of "cat" by the learner.
	_, err := f.pool.Exec(ctx, `WITH p AS (INSERT INTO assignment_progress (assignment_id, learner_id, cards_total, cards_seen, cards_learned, reviews, updated_at)
		    VALUES ($1, $2, 3, 2, 1, 4, '2026-03-02T09:00:05Z')),
		d AS (INSERT INTO assignment_daily_reviews (assignment_id, day, reviews) VALUES ($1, '2026-03-01', 3), ($1, '2026-03-02', 1))
		UPDATE cards SET lapses = 2, suspended = true, due = '2026-03-09T00:00:00Z'
		WHERE learner_id = $2 AND lexeme_id = (SELECT id FROM lexemes WHERE lemma = 'cat')`, assignment, f.learner)
	require.NoError(t, err)
	body = progress()
	require.Equal(t, "2026-03-02T09:00:05Z", body["progress_updated_at"])
	cell = body["learners"].([]any)[0].(map[string]any)["assignments"].([]any)[0].(map[string]any)
	require.Equal(t, 2.0, cell["cards_due"], "the suspended card is not due")
	require.Equal(t, map[string]any{"cards_total": 3.0, "cards_seen": 2.0, "cards_learned": 1.0, "reviews": 4.0,
		"last_study_day": "2026-03-02", "updated_at": "2026-03-02T09:00:05Z"}, cell["progress"])
	require.Equal(t, []any{map[string]any{"lexeme_id": body["hardest_words"].([]any)[0].(map[string]any)["lexeme_id"],
		"lemma": "cat", "part_of_speech": "noun", "lapses": 2.0, "learners": 1.0, "leeches": 1.0}}, body["hardest_words"])

	for name, c := range map[string]struct {
		actor  uuid.UUID
		target string
		want   int
	}{
		"another teacher's class": {f.otherTeacher, "/?class_id=" + class.String(), http.StatusNotFound},
		"an unknown class":        {f.teacher, "/?class_id=" + uuid.NewString(), http.StatusNotFound},
		"no class_id":             {f.teacher, "/", http.StatusBadRequest},
		"a malformed class_id":    {f.teacher, "/?class_id=c1", http.StatusBadRequest},
		"a learner":               {f.learner, "/?class_id=" + class.String(), http.StatusNotFound},
	} {
		t.Run(name, func(t *testing.T) {
			code, body := f.call(t, (*Service).GetClassProgress, http.MethodGet, c.target, c.actor, "")
			require.Equal(t, c.want, code, body)
		})
	}
}
