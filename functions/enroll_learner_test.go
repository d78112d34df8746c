package functions

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/auth"
)

// joinable gives the teacher's class an active deck (f.assign) and the join
// code JOIN42; it returns the class.
func (f fixture) joinable(t *testing.T) uuid.UUID {
	t.Helper()
	f.assign(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(context.Background(),
		"UPDATE classes SET join_code = 'JOIN42' WHERE teacher_id = $1 RETURNING id", f.teacher).Scan(&class))
	return class
}

// enrolment is snapshot with the users and class members counted.
func (f fixture) enrolment(t *testing.T) map[string]int {
	t.Helper()
	out := f.snapshot(t)
	out["users"] = f.count(t, "SELECT count(*) FROM users")
	out["members"] = f.count(t, "SELECT count(*) FROM class_members")
	return out
}

func TestEnrollLearnerAssignsTheClassDecks(t *testing.T) {
	ctx, f := setup(t)
	class := f.joinable(t)
	before := f.enrolment(t)
	for _, tc := range []refusal{
		{"both ways at once", f.teacher, `{"class_id":"` + class.String() + `","email":"new@example.com","join_code":"JOIN42"}`, 400},
		{"neither way", f.teacher, `{}`, 400},
		{"invalid email", f.teacher, `{"class_id":"` + class.String() + `","email":"not-an-email"}`, 400},
		{"a name over two lines", f.teacher, `{"class_id":"` + class.String() + `","email":"new@example.com","display_name":"Eve\r\nBcc: x@evil.test"}`, 400},
		{"unknown time zone", f.teacher, `{"class_id":"` + class.String() + `","email":"new@example.com","timezone":"Mars/Olympus"}`, 400},
		{"class without email", f.teacher, `{"class_id":"` + class.String() + `"}`, 400},
		{"another teacher's class", f.otherTeacher, `{"class_id":"` + class.String() + `","email":"new@example.com"}`, 404},
		{"a learner adding by email", f.learner, `{"class_id":"` + class.String() + `","email":"new@example.com"}`, 404},
		{"a teacher with a join code", f.teacher, `{"join_code":"JOIN42"}`, 403},
		{"unknown join code", f.otherLearner, `{"join_code":"NOPE99"}`, 404},
		{"a join code with a space inside", f.otherLearner, `{"join_code":"JOIN 42"}`, 400},
		{"a join code ending in an invisible character", f.otherLearner, `{"join_code":"JOIN42\u200b"}`, 400},
		{"a join code too long once trimmed", f.otherLearner, `{"join_code":" JOIN42JOIN42J "}`, 400},
		{"already a member", f.teacher, `{"class_id":"` + class.String() + `","email":"l@example.com"}`, 409},
		{"a teacher's email", f.teacher, `{"class_id":"` + class.String() + `","email":"t2@example.com"}`, 409},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", tc.actor, tc.body)
			require.Equal(t, tc.status, code, "%s: %v", tc.name, body)
			require.Equal(t, before, f.enrolment(t), tc.name)
		})
	}

	code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
		`{"class_id":"`+class.String()+`","email":"New.Learner@Example.com","timezone":"Asia/Tokyo"}`)
	require.Equal(t, http.StatusCreated, code, body)
	newcomer := uuid.MustParse(body["learner_id"].(string))
	require.Len(t, body["assignments"], 1)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE id = $1 AND email = 'new.learner@example.com' AND timezone = 'Asia/Tokyo'", newcomer))
	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM cards WHERE learner_id = $1", newcomer), "cards exist at once")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1 AND ordering_key = $2", events.LearnerEnrolled, newcomer.String()))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1 AND ordering_key = $2", events.AssignmentCreated, newcomer.String()))

	// A learner with an account outside the teacher's classes is invited,
	// not added: the teacher sees nothing until the learner joins.
	code, body = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
		`{"class_id":"`+class.String()+`","email":"L2@example.com"}`)
	require.Equal(t, http.StatusAccepted, code, body)
	require.Equal(t, map[string]any{"class_id": class.String(), "email": "l2@example.com", "status": "invited"}, body)
	require.Zero(t, f.count(t, "SELECT count(*) FROM class_members WHERE learner_id = $1 AND class_id = $2", f.otherLearner, class))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1 AND ordering_key = $2", events.LearnerInvited, f.otherLearner.String()))
	code, _ = f.call(t, (*Service).GetProgress, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.teacher, "")
	require.Equal(t, http.StatusNotFound, code, "an invitation shares nothing")

	// A pasted code: white space around it is dropped, case does not matter.
	code, body = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.otherLearner, `{"join_code":" join42\u00a0\t"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Len(t, body["assignments"], 1)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM class_members WHERE class_id = $1 AND learner_id = $2", class, f.otherLearner))
	code, _ = f.call(t, (*Service).GetProgress, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, "joining shares the learner's progress with the teacher")

	// The learner is now in both teachers' classes: each teacher sees only
	// the assignments they made.
	joined := body["assignments"].([]any)[0].(map[string]any)["id"].(string)
	code, body = f.call(t, (*Service).GetProgress, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Empty(t, body["assignments"], "another teacher's assignments are not shown")
	code, _ = f.call(t, (*Service).GetSchedule, http.MethodGet, "/?learner_id="+f.otherLearner.String()+"&assignment_id="+joined, f.otherTeacher, "")
	require.Equal(t, http.StatusNotFound, code)
	code, body = f.call(t, (*Service).GetProgress, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, body["assignments"], 1)
	code, body = f.call(t, (*Service).GetProgress, http.MethodGet, "/", f.otherLearner, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, body["assignments"], 1, "the learner sees all their own")
	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Empty(t, body["due"], "nor the cards of another teacher's decks")
	require.Zero(t, body["due_count"])
	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, body["due"], 3)

	// Both teachers may assign the same library deck to the learner they
	// share; neither learns from a 409 what the other assigned.
	_, err := f.pool.Exec(ctx, "UPDATE decks SET owner_id = NULL WHERE id = $1", f.deck)
	require.NoError(t, err)
	code, body = f.call(t, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.otherTeacher,
		`{"class_id":"`+f.otherClass.String()+`","learner_id":"`+f.otherLearner.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-25T18:00:00Z"}`)
	require.Equal(t, http.StatusCreated, code, body)
	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/?learner_id="+f.otherLearner.String(), f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, body["due"], 3, "the shared cards, now of the second teacher's deck too")
}

// Ten teachers' clicks at once on one new email: one enrolment, the rest
// 409, and no invitation (a request that waited for the first must see its
// membership, not take the learner for a stranger).
func TestConcurrentEnrolmentsOfOneNewEmail(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	// The requests are built here and their answers checked after Wait:
	// only the test's own goroutine may fail it.
	recs := make([]*httptest.ResponseRecorder, 10)
	reqs := make([]*http.Request, len(recs))
	for i := range reqs {
		reqs[i] = httptest.NewRequest(http.MethodPost, "/EnrollLearner",
			strings.NewReader(`{"class_id":"`+class.String()+`","email":"rush@example.com"}`))
		reqs[i].Header.Set("Content-Type", "application/json")
		reqs[i].Header.Set("Authorization", bearer(t, f.teacher))
		recs[i] = httptest.NewRecorder()
	}
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Go(func() { f.svc.EnrollLearner(recs[i], reqs[i]) })
	}
	wg.Wait()
	counts := map[int]int{}
	for _, rec := range recs {
		counts[rec.Code]++
		if rec.Code >= 400 {
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), rec.Body.String())
		}
	}
	require.Equal(t, map[int]int{http.StatusCreated: 1, http.StatusConflict: 9}, counts)
	require.Zero(t, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.LearnerInvited))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.LearnerEnrolled))
}

// A teacher cannot email a learner about the same class again and again:
// one invitation per class and learner per classroom.InvitationInterval.
func TestRepeatedInvitationsAreNotResent(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	invite := func() {
		t.Helper()
		code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
			`{"class_id":"`+class.String()+`","email":"l2@example.com"}`)
		require.Equal(t, http.StatusAccepted, code, body)
	}
	for range 3 {
		invite()
	}
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.LearnerInvited))
	f.clock.Advance(classroom.InvitationInterval + time.Hour)
	invite()
	require.Equal(t, 2, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.LearnerInvited),
		"after a day the teacher may remind them")
}

// A signed-in identity without an account joins a class with its code: the
// same transaction creates their learner account (named by the token's
// name), the membership with the class's decks, and the events; a bad code,
// or no code, creates nothing; a retry with the key answers the first
// answer, a second join is 409.
func TestANewcomerJoinsByCodeAsANewLearner(t *testing.T) {
	_, f := setup(t)
	class := f.joinable(t)
	kim := auth.Claims{Subject: "kim-uid", Email: "Kim@Example.com", Name: "Kim Lee"}
	everything := func(t *testing.T) map[string]int {
		out := f.enrolment(t)
		out["keys"] = f.count(t, "SELECT count(*) FROM idempotency_keys")
		out["outbox"] = f.count(t, "SELECT count(*) FROM outbox_events")
		return out
	}
	before := everything(t)
	for _, c := range []struct {
		name   string
		claims auth.Claims
		body   string
		want   int
	}{
		{"an unknown code", kim, `{"join_code":"NOPE99"}`, http.StatusNotFound},
		{"a bad code", kim, `{"join_code":"no!"}`, http.StatusBadRequest},
		{"a bad zone", kim, `{"join_code":"JOIN42","timezone":"Mars/Olympus"}`, http.StatusBadRequest},
		{"no code", kim, `{"class_id":"` + class.String() + `","email":"x@example.com"}`, http.StatusUnauthorized},
		{"an unverified email", auth.Claims{Subject: "kim-uid"}, `{"join_code":"JOIN42"}`, http.StatusUnauthorized},
		{"another sign-in with a linked account's email", auth.Claims{Subject: "new-uid", Email: "t@example.com"}, `{"join_code":"JOIN42"}`, http.StatusConflict},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := f.signedInTo(t, (*Service).EnrollLearner, c.claims, "join-1", c.body)
			require.Equal(t, c.want, rec.Code, rec.Body.String())
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			require.Equal(t, before, everything(t), "a refused join creates nothing")
		})
	}

	first := f.signedInTo(t, (*Service).EnrollLearner, kim, "join-1", `{"join_code":"join42","timezone":"Asia/Tokyo"}`)
	require.Equal(t, http.StatusCreated, first.Code, first.Body.String())
	var joined api.Enrollment
	require.NoError(t, json.Unmarshal(first.Body.Bytes(), &joined))
	require.Equal(t, class, joined.ClassId)
	require.Equal(t, "A", joined.ClassName)
	require.Len(t, joined.Assignments, 1, "the class's active deck")
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM users WHERE id = $1 AND role = 'learner' AND auth_subject = 'kim-uid'
		AND email = 'kim@example.com' AND display_name = 'Kim Lee' AND timezone = 'Asia/Tokyo'`, joined.LearnerId))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM class_members WHERE class_id = $1 AND learner_id = $2", class, joined.LearnerId))
	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM cards WHERE learner_id = $1", joined.LearnerId), "cards exist at once")
	for _, topic := range []string{events.LearnerEnrolled, events.AssignmentCreated} {
		require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1 AND ordering_key = $2", topic, joined.LearnerId.String()), topic)
	}
	after := everything(t)

	retry := f.signedInTo(t, (*Service).EnrollLearner, kim, "join-1", `{"join_code":"join42","timezone":"Asia/Tokyo"}`)
	require.Equal(t, http.StatusCreated, retry.Code, retry.Body.String())
	require.Equal(t, "true", retry.Header().Get("Idempotent-Replayed"), "the retry, made as the new learner, finds the first answer")
	require.JSONEq(t, first.Body.String(), retry.Body.String())
	again := f.signedInTo(t, (*Service).EnrollLearner, kim, "join-2", `{"join_code":"JOIN42"}`)
	require.Equal(t, http.StatusConflict, again.Code, again.Body.String())
	require.Equal(t, after, everything(t), "one account, one membership")
}

// A newcomer's name comes from the request, else from the token's name
// claim when it is one line of at most 200 characters, else from the
// email's local part.
func TestANewcomerLearnersName(t *testing.T) {
	ctx, f := setup(t)
	_, err := f.pool.Exec(ctx, "UPDATE classes SET join_code = 'JOIN42' WHERE teacher_id = $1", f.teacher)
	require.NoError(t, err)
	for i, c := range []struct{ claim, body, want string }{
		{"Kim Lee", `{"join_code":"JOIN42","display_name":" Kim L. "}`, "Kim L."},
		{" Kim Lee ", `{"join_code":"JOIN42"}`, "Kim Lee"},
		{"Kim\nBcc: x@evil.test", `{"join_code":"JOIN42"}`, "n2"},
		{strings.Repeat("k", 201), `{"join_code":"JOIN42"}`, "n3"},
		{"", `{"join_code":"JOIN42"}`, "n4"},
	} {
		email := fmt.Sprintf("n%d@example.com", i)
		rec := f.signedInTo(t, (*Service).EnrollLearner, auth.Claims{Subject: email, Email: email, Name: c.claim}, "", c.body)
		require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())
		require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email = $1 AND display_name = $2", email, c.want), c.claim)
	}
}

// What a teacher cannot do with EnrollLearner is refused with a problem that
// says why, and writes nothing: adding a teacher's email as a learner (409
// email-belongs-to-teacher, not a 202 "invited" that sends nothing), joining
// a class by code, their own class's or another's (403 teacher-cannot-join,
// before the code is looked up, so codes cannot be probed); a join request
// with an empty join_code names join_code, for a learner and a newcomer.
func TestEnrollLearnerRefusesTeachersWithAReason(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	_, err := f.pool.Exec(ctx, "UPDATE classes SET join_code = CASE WHEN teacher_id = $1 THEN 'JOIN42' ELSE 'OTHER7' END", f.teacher)
	require.NoError(t, err)
	everything := func(t *testing.T) map[string]int {
		out := f.snapshot(t)
		for name, sql := range map[string]string{"users": "users", "members": "class_members",
			"invitations": "class_invitations", "keys": "idempotency_keys"} {
			out[name] = f.count(t, "SELECT count(*) FROM "+sql)
		}
		return out
	}
	before := everything(t)
	check := func(t *testing.T, code int, body map[string]any, status int, typ, field string) {
		t.Helper()
		require.Equal(t, status, code, body)
		require.Equal(t, "https://lexora.app/problems/"+typ, body["type"], body)
		if field != "" {
			require.Equal(t, []any{map[string]any{"field": field, "reason": "is required: a learner joins a class with its join code"}}, body["errors"])
		}
		require.Equal(t, before, everything(t), "a refusal writes nothing")
	}
	for _, c := range []struct {
		name, body string
		status     int
		typ, field string
	}{
		{"a teacher's email", `{"class_id":"` + f.class.String() + `","email":"T2@example.com"}`, http.StatusConflict, "email-belongs-to-teacher", ""},
		{"the teacher's own email", `{"class_id":"` + f.class.String() + `","email":"t@example.com"}`, http.StatusConflict, "email-belongs-to-teacher", ""},
		{"their own class's code", `{"join_code":"JOIN42"}`, http.StatusForbidden, "teacher-cannot-join", ""},
		{"another class's code", `{"join_code":"other7"}`, http.StatusForbidden, "teacher-cannot-join", ""},
		{"an unknown code", `{"join_code":"NOPE99"}`, http.StatusForbidden, "teacher-cannot-join", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher, c.body)
			check(t, code, body, c.status, c.typ, c.field)
		})
	}
	// An empty join code is a code given without a value (httpx.DecodeJSON).
	empty := []any{map[string]any{"field": "join_code", "reason": "must not be empty: give a value, or leave the field out"}}
	t.Run("a learner's empty join code", func(t *testing.T) {
		code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.otherLearner, `{"join_code":""}`)
		check(t, code, body, http.StatusBadRequest, "validation-failed", "")
		require.Equal(t, empty, body["errors"])
	})
	t.Run("a newcomer's empty join code", func(t *testing.T) {
		rec := f.signedInTo(t, (*Service).EnrollLearner, auth.Claims{Subject: "kim-uid", Email: "kim@example.com"}, "", `{"join_code":""}`)
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		check(t, rec.Code, body, http.StatusBadRequest, "validation-failed", "")
		require.Equal(t, empty, body["errors"])
	})
}

// An address that looks like a learner's but mixes scripts (a Cyrillic а
// among Latin letters) is refused, naming email, and creates no second
// account, membership or event.
func TestEnrollLearnerRefusesAnEmailMixingScripts(t *testing.T) {
	_, f := setup(t)
	enrol := func(email string) (int, map[string]any) {
		return f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
			`{"class_id":"`+f.class.String()+`","email":"`+email+`"}`)
	}
	code, body := enrol("sam@example.com")
	require.Equal(t, http.StatusCreated, code, body)
	before := f.enrolment(t)
	for _, email := range []string{`s\u0430m@example.com`, `sam@ex\u0430mple.com`} {
		code, body = enrol(email)
		require.Equal(t, http.StatusBadRequest, code, body)
		errs := body["errors"].([]any)
		require.Len(t, errs, 1, body)
		require.Equal(t, "email", errs[0].(map[string]any)["field"])
		require.Contains(t, errs[0].(map[string]any)["reason"], "scripts")
		require.Equal(t, before, f.enrolment(t), "no second learner, no event")
	}
}

// A body that mixes both ways names every field at fault, join_code too,
// and changes nothing.
func TestEnrollLearnerNamesEveryFieldSentTogether(t *testing.T) {
	_, f := setup(t)
	class := f.joinable(t)
	before := f.enrolment(t)
	for actor, c := range map[uuid.UUID]struct{ body, fields string }{
		f.teacher:      {`{"class_id":"` + class.String() + `","email":"new@example.com","join_code":"JOIN42"}`, "class_id email join_code"},
		f.otherLearner: {`{"email":"new@example.com","join_code":"JOIN42"}`, "email join_code"},
	} {
		code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", actor, c.body)
		require.Equal(t, http.StatusBadRequest, code, body)
		var named []string
		for _, e := range body["errors"].([]any) {
			require.Equal(t, "must not be sent together with the fields given", e.(map[string]any)["reason"], body)
			named = append(named, e.(map[string]any)["field"].(string))
		}
		require.Equal(t, c.fields, strings.Join(named, " "), c.body)
		require.Equal(t, before, f.enrolment(t), "a refusal writes nothing")
	}
}
