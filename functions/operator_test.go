package functions

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

func TestOperatorFunctionsAreForOperatorsOnly(t *testing.T) {
	ctx, f := setup(t)
	op := f.operator(t)
	f.assign(t)
	// The email delivery went dead.
	_, err := f.pool.Exec(ctx, `UPDATE outbox_deliveries SET state = 'dead', finished_at = now(), attempts = 12,
		last_error = 'smtp: 550 mailbox unavailable' WHERE subscriber = 'email'`)
	require.NoError(t, err)

	for _, who := range []uuid.UUID{f.teacher, f.learner} {
		code, _ := f.call(t, (*Service).OutboxHealth, http.MethodGet, "/OutboxHealth", who, "")
		require.Equal(t, http.StatusNotFound, code)
		code, _ = f.call(t, (*Service).ReplayDeadLetters, http.MethodPost, "/ReplayDeadLetters", who, `{"all":true}`)
		require.Equal(t, http.StatusNotFound, code)
	}
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"))

	code, body := f.call(t, (*Service).OutboxHealth, http.MethodGet, "/OutboxHealth", op, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, []any{map[string]any{"subscriber": "email", "topic": "assignment.created", "count": float64(1)}}, body["dead"])
	require.Len(t, body["backlog"], 3, "progress, webhook and the reminder still to deliver")

	code, body = f.call(t, (*Service).ListDeadLetters, http.MethodGet, "/ListDeadLetters?subscriber=email", op, "")
	require.Equal(t, http.StatusOK, code)
	dead := body["dead"].([]any)
	require.Len(t, dead, 1)
	require.Equal(t, "smtp: 550 mailbox unavailable", dead[0].(map[string]any)["last_error"])
	for _, query := range []string{"since=yesterday", "topic=%00", "subscriber=%ff", "subscriber=%c3%28",
		"since=2027-01-01T00:00:00Z&until=2026-01-01T00:00:00Z"} {
		code, _ = f.call(t, (*Service).ListDeadLetters, http.MethodGet, "/ListDeadLetters?"+query, op, "")
		require.Equal(t, http.StatusBadRequest, code, query)
	}

	code, _ = f.call(t, (*Service).ReplayDeadLetters, http.MethodPost, "/ReplayDeadLetters", op, `{}`)
	require.Equal(t, http.StatusBadRequest, code, "an empty filter never replays everything")
	for _, fn := range []func(*Service, http.ResponseWriter, *http.Request){(*Service).ReplayDeadLetters, (*Service).SkipDeadLetters} {
		for _, body := range []string{`{"all":true}`, `{"all":true,"reason":""}`, `{"ids":[1],"reason":"   "}`, `{"all":true,"reason":"\u3000\t"}`} {
			code, problem := f.call(t, fn, http.MethodPost, "/ResolveDeadLetters", op, body)
			require.Equal(t, http.StatusBadRequest, code, "replaying or skipping needs a reason: %s", body)
			require.Len(t, problem["errors"], 1, body)
			require.Equal(t, "reason", problem["errors"].([]any)[0].(map[string]any)["field"], body)
		}
	}
	require.Zero(t, f.count(t, "SELECT count(*) FROM outbox_audit"), "a refused replay or skip writes no audit row")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"), "and leaves the dead letter dead")

	replay := func(key, body string) *httptest.ResponseRecorder {
		return f.keyedCall(t, (*Service).ReplayDeadLetters, key, op, body)
	}
	const fixed = `{"subscriber":"email","reason":"mailbox fixed"}`
	first := replay("replay-1", fixed)
	require.Equal(t, http.StatusOK, first.Code, first.Body.String())
	require.JSONEq(t, `{"replayed":1}`, first.Body.String())
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_audit WHERE action = 'replay' AND actor = $1", op.String()))
	require.Zero(t, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"))

	again := replay("replay-1", fixed)
	require.Equal(t, first.Body.String(), again.Body.String(), "an operator's retried replay answers as the first")
	require.Equal(t, "true", again.Header().Get("Idempotent-Replayed"))
	require.Equal(t, http.StatusUnprocessableEntity, replay("replay-1", `{"all":true,"reason":"mailbox fixed"}`).Code)
	require.Equal(t, http.StatusBadRequest, replay("bad key", fixed).Code)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_audit"))
}

// deadEmail makes an assignment whose email delivery went dead, and
// returns an operator and what the database holds then (f.everything).
func (f fixture) deadEmail(t *testing.T) (uuid.UUID, map[string]int) {
	op := f.operator(t)
	f.assign(t)
	_, err := f.pool.Exec(t.Context(), `UPDATE outbox_deliveries SET state = 'dead', finished_at = now(), attempts = 12 WHERE subscriber = 'email'`)
	require.NoError(t, err)
	return op, f.everything(t)
}

// fieldsNamed is the fields that a problem's field errors name, in order.
func fieldsNamed(problem map[string]any) []string {
	var named []string
	for _, e := range problem["errors"].([]any) {
		named = append(named, e.(map[string]any)["field"].(string))
	}
	return named
}

// A replay or skip filtered on a topic or subscriber that the routing table
// does not name is a 400 naming each such field, and resolves nothing; a
// known one that selects nothing is 200 with 0.
func TestResolvingDeadLettersOfAnUnknownSubscriberOrTopic(t *testing.T) {
	_, f := setup(t)
	op, before := f.deadEmail(t)
	audit := f.count(t, "SELECT count(*) FROM outbox_audit")
	for _, fn := range []func(*Service, http.ResponseWriter, *http.Request){(*Service).ReplayDeadLetters, (*Service).SkipDeadLetters} {
		for body, fields := range map[string][]string{
			`{"subscriber":"nope","reason":"x"}`:                 {"subscriber"},
			`{"topic":"nope","reason":"x"}`:                      {"topic"},
			`{"topic":"nope","subscriber":"email","reason":"x"}`: {"topic"},
			`{"topic":"no.pe","subscriber":"nope","reason":"x"}`: {"topic", "subscriber"},
		} {
			code, problem := f.call(t, fn, http.MethodPost, "/ResolveDeadLetters", op, body)
			require.Equal(t, http.StatusBadRequest, code, "%s: %v", body, problem)
			require.Equal(t, fields, fieldsNamed(problem), body)
			require.Equal(t, before, f.everything(t), body)
			require.Equal(t, audit, f.count(t, "SELECT count(*) FROM outbox_audit"), body)
		}
	}
	code, body := f.call(t, (*Service).ReplayDeadLetters, http.MethodPost, "/ReplayDeadLetters", op, `{"subscriber":"progress","reason":"x"}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, float64(0), body["replayed"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"))
}

// A reason's 1,000 are characters, as the client counts them, not bytes:
// 1,000 "é" (2,000 bytes) skips the dead letter, 1,001 is a 400 naming
// reason and resolves nothing.
func TestAReasonOfAThousandCharactersIsTaken(t *testing.T) {
	_, f := setup(t)
	op, before := f.deadEmail(t)
	code, problem := f.call(t, (*Service).SkipDeadLetters, http.MethodPost, "/SkipDeadLetters", op,
		`{"subscriber":"email","reason":"`+strings.Repeat("é", 1001)+`"}`)
	require.Equal(t, http.StatusBadRequest, code, problem)
	require.Equal(t, []string{"reason"}, fieldsNamed(problem))
	require.Equal(t, before, f.everything(t))

	code, body := f.call(t, (*Service).SkipDeadLetters, http.MethodPost, "/SkipDeadLetters", op,
		`{"subscriber":"email","reason":"`+strings.Repeat("é", 1000)+`"}`)
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, float64(1), body["skipped"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_audit WHERE char_length(reason) = 1000 AND octet_length(reason) = 2000"))
}

// A listing filtered on a topic or subscriber that the routing table does
// not name is a 400 naming each such parameter, as a replay or skip is;
// a known one that selects nothing is 200 with none.
func TestListingDeadLettersOfAnUnknownSubscriberOrTopic(t *testing.T) {
	_, f := setup(t)
	op, before := f.deadEmail(t)
	for query, fields := range map[string][]string{
		"subscriber=nope":                {"subscriber"},
		"topic=nope":                     {"topic"},
		"topic=nope&subscriber=email":    {"topic"},
		"topic=no.pe&subscriber=nope":    {"topic", "subscriber"},
		"subscriber=nope&limit=0":        {"limit", "subscriber"},
		"subscriber=nope&subscriber=bad": {"subscriber"},
	} {
		code, problem := f.call(t, (*Service).ListDeadLetters, http.MethodGet, "/ListDeadLetters?"+query, op, "")
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", query, problem)
		require.Equal(t, fields, fieldsNamed(problem), query)
		require.Equal(t, before, f.everything(t), query)
	}
	code, body := f.call(t, (*Service).ListDeadLetters, http.MethodGet, "/ListDeadLetters?subscriber=progress", op, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Empty(t, body["dead"])
}
