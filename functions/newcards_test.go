package functions

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
)

// wordsDeck adds a library deck titled title of n words of its own and
// returns its id.
func (f fixture) wordsDeck(t *testing.T, title string, n int) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, f.pool.QueryRow(context.Background(), `
		WITH d AS (INSERT INTO decks (title, level) VALUES ($1, 1) RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		           SELECT $1 || ' word ' || i, 'noun', 'meaning ' || i, 'test' FROM generate_series(1, $2::integer) i
		           RETURNING id, lemma),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position)
		           SELECT d.id, l.id, row_number() OVER (ORDER BY l.lemma) FROM d, l)
		SELECT id FROM d`, title, n).Scan(&id))
	return id
}

// schedule is GetSchedule of the fixture's learner as read by the learner
// (limit 200): its counts and the ids of the new cards it serves.
type schedule struct {
	due, fresh, perDay, today, left int
	newCards                        []string
	reviews                         []string
}

func (f fixture) schedule(t *testing.T) schedule {
	t.Helper()
	code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?limit=200", f.learner, "")
	require.Equal(t, http.StatusOK, code, body)
	n := func(k string) int { return int(body[k].(float64)) }
	s := schedule{due: n("due_count"), fresh: n("new_count"), perDay: n("new_cards_per_day"), today: n("new_cards_today"),
		left: n("new_cards_left")}
	for _, c := range body["due"].([]any) {
		card := c.(map[string]any)
		if card["state"] == "new" {
			s.newCards = append(s.newCards, card["card_id"].(string))
		} else {
			s.reviews = append(s.reviews, card["card_id"].(string))
		}
	}
	return s
}

// setNewCardsPerDay sets class's limit as teacher and requires a 200.
func (f fixture) setNewCardsPerDay(t *testing.T, teacher, class uuid.UUID, n int) {
	t.Helper()
	code, body := f.call(t, (*Service).SetNewCardsPerDay, http.MethodPost, "/", teacher,
		`{"class_id":"`+class.String()+`","new_cards_per_day":`+strconv.Itoa(n)+`}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, map[string]any{"class_id": class.String(), "new_cards_per_day": float64(n)}, body)
}

// The schedule serves every due review and at most the new cards left of
// the learner's daily limit: the class's (20 until set), the largest of two
// classes', counted per study day in the learner's zone; an undone first
// review gives its new card back.
func TestTheScheduleServesNewCardsUpToTheDailyLimit(t *testing.T) {
	ctx, f := setup(t)
	deck := f.wordsDeck(t, "Sky", 25)
	code, body := f.call(t, (*Service).StartDeck, http.MethodPost, "/", f.learner, `{"deck_id":"`+deck.String()+`"}`)
	require.Equal(t, http.StatusCreated, code, body)

	s := f.schedule(t)
	require.Equal(t, schedule{due: 20, fresh: 20, perDay: 20, today: 0, left: 20, newCards: s.newCards}, s,
		"25 new cards due, 20 served: the default limit")
	first := s.newCards[:3]

	f.setNewCardsPerDay(t, f.teacher, f.class, 3)
	s = f.schedule(t)
	require.Equal(t, 3, s.due)
	require.Equal(t, first, s.newCards, "the first new cards, most overdue first")

	reviewed := f.review(t, uuid.MustParse(first[0]), 3)
	s = f.schedule(t)
	require.Equal(t, []int{2, 2, 3, 1, 2}, []int{s.due, s.fresh, s.perDay, s.today, s.left},
		"the reviewed card is in learning, not due for minutes; two new cards left")
	require.Equal(t, first[1:], s.newCards)

	// In a second class too: the largest of the two limits.
	_, err := f.pool.Exec(ctx, "INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)", f.otherClass, f.learner)
	require.NoError(t, err)
	s = f.schedule(t)
	require.Equal(t, []int{20, 19}, []int{s.perDay, s.left}, "the second class has the default, 20")
	f.setNewCardsPerDay(t, f.otherTeacher, f.otherClass, 5)
	s = f.schedule(t)
	require.Equal(t, []int{5, 1, 4, 4}, []int{s.perDay, s.today, s.left, s.fresh})

	code, body = f.call(t, (*Service).UndoReview, http.MethodPost, "/", f.learner,
		`{"card_id":"`+first[0]+`","review_id":`+strconv.Itoa(int(reviewed["review_id"].(float64)))+`}`)
	require.Equal(t, http.StatusOK, code, body)
	s = f.schedule(t)
	require.Equal(t, []int{0, 5, 5}, []int{s.today, s.left, s.fresh}, "the undone review's card is new again")
	require.Equal(t, first[0], s.newCards[0])

	// 09:00 UTC is 10:00 in Paris, the learner's zone. A first review at
	// 03:30 there (02:30 UTC the next morning) is still today's study day;
	// at 04:00 a new one begins.
	for _, c := range s.newCards {
		f.review(t, uuid.MustParse(c), 3)
	}
	require.Equal(t, []int{5, 0, 0}, []int{f.schedule(t).today, f.schedule(t).left, f.schedule(t).fresh})
	f.clock.Set(time.Date(2026, 3, 3, 2, 30, 0, 0, time.UTC))
	s = f.schedule(t)
	require.Equal(t, []int{5, 0, 0}, []int{s.today, s.left, s.fresh}, "03:30 in Paris: the same study day")
	require.NotEmpty(t, s.reviews, "due reviews are served whatever the limit")
	f.clock.Set(time.Date(2026, 3, 3, 3, 0, 0, 0, time.UTC))
	s = f.schedule(t)
	require.Equal(t, []int{0, 5, 5}, []int{s.today, s.left, s.fresh}, "04:00 in Paris: a new study day")

	// 0 in both classes: reviews only.
	f.setNewCardsPerDay(t, f.teacher, f.class, 0)
	f.setNewCardsPerDay(t, f.otherTeacher, f.otherClass, 0)
	s = f.schedule(t)
	require.Equal(t, []int{0, 0, 0}, []int{s.perDay, s.left, s.fresh})
	require.Len(t, s.reviews, 5, "the five cards reviewed yesterday are due")
	require.Equal(t, 5, s.due)
}

// Two sessions on two devices read the schedule at once: both are served
// the same first new cards, so reviewing all of them on both devices
// introduces no more new cards than the limit; a session that reads after
// the other's reviews gets only what is left.
func TestTwoSessionsAtOnceStayWithinTheDailyLimit(t *testing.T) {
	_, f := setup(t)
	deck := f.wordsDeck(t, "Sea", 10)
	code, body := f.call(t, (*Service).StartDeck, http.MethodPost, "/", f.learner, `{"deck_id":"`+deck.String()+`"}`)
	require.Equal(t, http.StatusCreated, code, body)
	f.setNewCardsPerDay(t, f.teacher, f.class, 4)

	phone, laptop := f.schedule(t), f.schedule(t)
	require.Equal(t, phone.newCards, laptop.newCards)
	require.Len(t, phone.newCards, 4)
	for _, c := range phone.newCards[:2] {
		f.review(t, uuid.MustParse(c), 3)
	}
	later := f.schedule(t)
	require.Equal(t, phone.newCards[2:], later.newCards, "a session read now gets the phone's two left")
	for _, c := range laptop.newCards { // the laptop reviews its four, two of them already reviewed on the phone
		f.review(t, uuid.MustParse(c), 3)
	}
	for _, c := range later.newCards {
		f.review(t, uuid.MustParse(c), 3)
	}
	require.Equal(t, 4, f.count(t, "SELECT count(*) FROM review_log WHERE learner_id = $1 AND state_before = 0", f.learner),
		"four cards reviewed for the first time: the limit")
	require.Equal(t, 0, f.schedule(t).fresh)
}

// classLimits is every class's stored new_cards_per_day, and the rows a
// write could add.
func (f fixture) classLimits(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT concat_ws(',',
		(SELECT string_agg(id::text || '=' || coalesce(new_cards_per_day::text, 'default'), ' ' ORDER BY id) FROM classes),
		(SELECT count(*) FROM idempotency_keys), (SELECT count(*) FROM outbox_events))`).Scan(&s))
	return s
}

func TestSetNewCardsPerDayRefusesWithoutChangingAnything(t *testing.T) {
	_, f := setup(t)
	class := f.class.String()
	body := func(limit string) string { return `{"class_id":"` + class + `","new_cards_per_day":` + limit + `}` }
	before := f.classLimits(t)
	for _, tc := range []refusal{
		{"negative", f.teacher, body("-1"), http.StatusBadRequest},
		{"over 9999", f.teacher, body("10000"), http.StatusBadRequest},
		{"not a whole number", f.teacher, body("2.5"), http.StatusBadRequest},
		{"a string", f.teacher, body(`"10"`), http.StatusBadRequest},
		{"null", f.teacher, body("null"), http.StatusBadRequest},
		{"left out", f.teacher, `{"class_id":"` + class + `"}`, http.StatusBadRequest},
		{"no class", f.teacher, `{"new_cards_per_day":10}`, http.StatusBadRequest},
		{"a teacher of another class", f.otherTeacher, body("10"), http.StatusNotFound},
		{"an unknown class", f.teacher, `{"class_id":"` + uuid.NewString() + `","new_cards_per_day":10}`, http.StatusNotFound},
		{"a learner of the class", f.learner, body("10"), http.StatusNotFound},
		{"no acting user", uuid.Nil, body("10"), http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.keyedCall(t, (*Service).SetNewCardsPerDay, "k-"+strings.ReplaceAll(tc.name, " ", "-"), tc.actor, tc.body)
			require.Equal(t, tc.status, rec.Code, rec.Body.String())
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			var p map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
			require.NotEmpty(t, p["type"])
			if tc.status == http.StatusBadRequest {
				field := "new_cards_per_day"
				if tc.name == "no class" {
					field = "class_id"
				}
				require.Contains(t, rec.Body.String(), `"field":"`+field+`"`, "the problem names the field")
			}
			require.Equal(t, before, f.classLimits(t), "a refused request changes nothing")
		})
	}
	f.setNewCardsPerDay(t, f.teacher, f.class, 9999)
	code, list := f.call(t, (*Service).ListClasses, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code)
	require.EqualValues(t, 9999, list["classes"].([]any)[0].(map[string]any)["new_cards_per_day"])
	code, list = f.call(t, (*Service).ListClasses, http.MethodGet, "/", f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code)
	require.EqualValues(t, 20, list["classes"].([]any)[0].(map[string]any)["new_cards_per_day"], "the default until set")
}

// callAs calls h with a token of c's subject and email (verified when not
// empty) and decodes the answer.
func (f fixture) callAs(t *testing.T, h func(*Service, http.ResponseWriter, *http.Request), method, target string, c auth.Claims, body string) (int, map[string]any) {
	t.Helper()
	tok, err := auth.DevNamedToken("lexora-dev", c.Subject, c.Email, c.Name, time.Hour)
	require.NoError(t, err)
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+tok)
	rec := httptest.NewRecorder()
	h(f.svc, rec, req)
	var out map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
	return rec.Code, out
}

// Someone without a class code studies on their own: their first request
// makes them a learner in no class, who starts a library deck and reviews
// it under the default daily limit.
func TestSomeoneWithoutAClassStudiesTheLibraryOnTheirOwn(t *testing.T) {
	ctx, f := setup(t)
	deck := f.wordsDeck(t, "Forest", 25)
	ana := auth.Claims{Subject: "ana-uid", Email: "Ana@Example.com", Name: "Ana Lima"}
	first := f.signedInTo(t, (*Service).CreateLearnerAccount, ana, "own", `{"timezone":"America/Sao_Paulo"}`)
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	var me map[string]any
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &me))
	require.Equal(t, "Ana Lima", me["display_name"])
	require.Equal(t, "ana@example.com", me["email"])
	require.Equal(t, []any{"learner"}, me["roles"])
	require.Equal(t, "America/Sao_Paulo", me["timezone"])
	require.Empty(t, me["classes"])
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM users WHERE auth_subject = 'ana-uid' AND role = $1
		AND email = 'ana@example.com' AND timezone = 'America/Sao_Paulo'`, account.Learner))
	require.Equal(t, 0, f.count(t, "SELECT count(*) FROM class_members m JOIN users u ON u.id = m.learner_id WHERE u.auth_subject = 'ana-uid'"))

	retry := f.signedInTo(t, (*Service).CreateLearnerAccount, ana, "own", `{"timezone":"America/Sao_Paulo"}`)
	require.Equal(t, http.StatusCreated, retry.Code, retry.Body.String())
	require.Equal(t, "true", retry.Header().Get("Idempotent-Replayed"))
	require.JSONEq(t, first.Body.String(), retry.Body.String())

	code, body := f.callAs(t, (*Service).Me, http.MethodGet, "/", ana, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, me["id"], body["id"])
	code, body = f.callAs(t, (*Service).ListDecks, http.MethodGet, "/", ana, "")
	require.Equal(t, http.StatusOK, code, body)
	require.True(t, slices.ContainsFunc(body["decks"].([]any), func(d any) bool { return d.(map[string]any)["title"] == "Forest" }))
	code, body = f.callAs(t, (*Service).StartDeck, http.MethodPost, "/", ana, `{"deck_id":"`+deck.String()+`"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.EqualValues(t, 25, body["cards_created"])

	code, body = f.callAs(t, (*Service).GetSchedule, http.MethodGet, "/?limit=50", ana, "")
	require.Equal(t, http.StatusOK, code, body)
	require.EqualValues(t, 20, body["new_cards_per_day"], "no class: the default limit")
	require.EqualValues(t, 20, body["due_count"])
	card := body["due"].([]any)[0].(map[string]any)["card_id"].(string)
	code, body = f.callAs(t, (*Service).SubmitReview, http.MethodPost, "/", ana, `{"card_id":"`+card+`","rating":3}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM review_log r JOIN users u ON u.id = r.learner_id WHERE u.auth_subject = 'ana-uid' AND r.card_id = $1", card))
	code, body = f.callAs(t, (*Service).GetSchedule, http.MethodGet, "/?limit=50", ana, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{float64(1), float64(19), float64(19)}, []any{body["new_cards_today"], body["new_cards_left"], body["new_count"]})

	var users int
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT count(*) FROM users").Scan(&users))
	again := f.signedInTo(t, (*Service).CreateLearnerAccount, ana, "", `{}`)
	require.Equal(t, http.StatusConflict, again.Code, again.Body.String())
	require.Equal(t, users, f.count(t, "SELECT count(*) FROM users"))
}

func TestCreateLearnerAccountRefusesWithoutChangingAnything(t *testing.T) {
	_, f := setup(t)
	before := f.accounts(t)
	for _, c := range []struct {
		name   string
		claims auth.Claims
		body   string
		want   int
	}{
		{"a bad zone", auth.Claims{Subject: "new-uid", Email: "new@example.com"}, `{"timezone":"Mars/Olympus"}`, http.StatusBadRequest},
		{"a two-line name", auth.Claims{Subject: "new-uid", Email: "new@example.com"}, `{"display_name":"A\nB"}`, http.StatusBadRequest},
		{"an unknown field", auth.Claims{Subject: "new-uid", Email: "new@example.com"}, `{"join_code":"DEMO2026"}`, http.StatusBadRequest},
		{"a null name", auth.Claims{Subject: "new-uid", Email: "new@example.com"}, `{"display_name":null}`, http.StatusBadRequest},
		{"no verified email", auth.Claims{Subject: "new-uid"}, `{}`, http.StatusUnauthorized},
		{"a teacher", auth.Claims{Subject: f.teacher.String()}, `{}`, http.StatusNotFound},
		{"a learner", auth.Claims{Subject: f.learner.String()}, `{}`, http.StatusConflict},
		{"another sign-in with a teacher's email", auth.Claims{Subject: "new-uid", Email: "t@example.com"}, `{}`, http.StatusConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := f.signedInTo(t, (*Service).CreateLearnerAccount, c.claims, "", c.body)
			require.Equal(t, c.want, rec.Code, rec.Body.String())
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			require.Equal(t, before, f.accounts(t), "a refused request changes nothing")
		})
	}
}
