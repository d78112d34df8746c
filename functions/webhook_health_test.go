package functions

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An endpoint whose receiver answered 404 to every delivery since its last
// 2xx is failing, not "active": the list says its last delivery, last
// error, failures in a row and what to do; a disabled one (410 Gone) says
// so; one that was never sent to is unused. Another teacher sees none.
func TestListWebhookEndpointsShowsTheirHealth(t *testing.T) {
	ctx, f := setup(t)
	register := func(url string) string {
		code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"`+url+`"}`)
		require.Equal(t, http.StatusCreated, code, body)
		return body["id"].(string)
	}
	failing, gone, unused := register("https://school.example/a"), register("https://school.example/b"), register("https://school.example/c")
	now := f.clock.Now()
	_, err := f.pool.Exec(ctx, `INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted, at) VALUES
		($1, gen_random_uuid(), 200, true, $3::timestamptz - interval '3 hours'),
		($1, gen_random_uuid(), 404, false, $3::timestamptz - interval '2 hours'),
		($1, gen_random_uuid(), 404, false, $3::timestamptz - interval '1 hour'),
		($2, gen_random_uuid(), 404, false, $3::timestamptz - interval '1 hour')`, failing, gone, now)
	require.NoError(t, err)
	_, err = f.pool.Exec(ctx, `UPDATE webhook_endpoints SET disabled_at = $2, disabled_reason = 'the receiver answered 410 Gone' WHERE id = $1`, gone, now)
	require.NoError(t, err)

	health := f.endpointHealth(t)
	stamp := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	h := health[failing]
	require.Equal(t, "failing", h["state"])
	require.Equal(t, stamp(time.Hour), h["last_delivery_at"])
	require.Equal(t, stamp(3*time.Hour), h["last_accepted_at"])
	require.Equal(t, "status 404 Not Found", h["last_error"])
	require.Equal(t, stamp(time.Hour), h["last_error_at"])
	require.EqualValues(t, 2, h["failures_in_row"])
	require.Contains(t, h["action"], "rejected the last 2 deliveries with status 404 Not Found: check the URL")

	h = health[gone]
	require.Equal(t, "disabled", h["state"])
	require.EqualValues(t, 1, h["failures_in_row"])
	require.Contains(t, h["action"], "then enable it")

	h = health[unused]
	require.Equal(t, map[string]any{"state": "unused", "last_delivery_at": nil, "last_accepted_at": nil, "last_error": nil,
		"last_error_at": nil, "last_error_retried": false, "failures_in_row": float64(0), "action": ""}, h)

	code, other := f.call(t, (*Service).ListWebhookEndpoints, http.MethodGet, "/", f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code, other)
	require.Empty(t, other["endpoints"])
}

// An operator's dead webhook delivery names the endpoints its error gives
// by id: URL and teacher; another subscriber's names none, and a deleted
// endpoint is left out.
func TestListDeadLettersNamesTheEndpoint(t *testing.T) {
	ctx, f := setup(t)
	op := f.operator(t)
	code, ep := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"https://school.example/dead"}`)
	require.Equal(t, http.StatusCreated, code, ep)
	id := ep["id"].(string)
	f.assign(t)
	_, err := f.pool.Exec(ctx, `UPDATE outbox_deliveries SET state = 'dead', finished_at = now(), attempts = 1,
		last_error = CASE subscriber WHEN 'webhook' THEN 'endpoint ' || $1 || ': status 404 Not Found; endpoint ' || $2 || ': status 404 Not Found'
		                             ELSE 'endpoint ' || $1 || ' looks named but is not a webhook delivery' END
		WHERE subscriber IN ('webhook', 'email')`, id, "00000000-0000-4000-8000-00000000dead")
	require.NoError(t, err)

	code, body := f.call(t, (*Service).ListDeadLetters, http.MethodGet, "/", op, "")
	require.Equal(t, http.StatusOK, code, body)
	named := map[string]any{}
	for _, d := range body["dead"].([]any) {
		d := d.(map[string]any)
		named[d["subscriber"].(string)] = d["endpoints"]
	}
	require.Equal(t, []any{map[string]any{"id": id, "url": "https://school.example/dead", "teacher_name": "t@example.com",
		"teacher_email": "t@example.com"}}, named["webhook"], "the existing endpoint, named; the unknown one left out")
	require.Equal(t, []any{}, named["email"])
}

// An endpoint whose receiver answered 503 to every attempt (no accepted or
// rejected event) is failing, not unused: the list says the transient error,
// the failed attempts in a row and that Lexora retries; one that times out
// after its last 2xx is failing too, and one whose run of failures ended
// with an accepted delivery is healthy and keeps its last error.
func TestListWebhookEndpointsShowsTransientFailures(t *testing.T) {
	ctx, f := setup(t)
	register := func(url string) string {
		code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"`+url+`"}`)
		require.Equal(t, http.StatusCreated, code, body)
		return body["id"].(string)
	}
	down, slow, recovered := register("https://school.example/down"), register("https://school.example/slow"), register("https://school.example/ok")
	now := f.clock.Now()
	_, err := f.pool.Exec(ctx, `UPDATE webhook_endpoints SET last_transient_error = e.reason, last_transient_error_at = $4::timestamptz - e.ago,
		transient_failures_in_row = e.n
		FROM (VALUES ($1::uuid, 'status 503 Service Unavailable', interval '10 minutes', 4),
		             ($2::uuid, 'timed out after 10s', interval '1 hour', 1),
		             ($3::uuid, 'connection refused', interval '3 hours', 0)) e (id, reason, ago, n)
		WHERE webhook_endpoints.id = e.id`, down, slow, recovered, now)
	require.NoError(t, err)
	_, err = f.pool.Exec(ctx, `INSERT INTO webhook_attempts (endpoint_id, event_id, status, accepted, at) VALUES
		($1, gen_random_uuid(), 200, true, $3::timestamptz - interval '2 hours'),
		($2, gen_random_uuid(), 200, true, $3::timestamptz - interval '2 hours')`, slow, recovered, now)
	require.NoError(t, err)

	health := f.endpointHealth(t)
	stamp := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339) }
	h := health[down]
	require.Equal(t, "failing", h["state"])
	require.Equal(t, "status 503 Service Unavailable", h["last_error"])
	require.Equal(t, stamp(10*time.Minute), h["last_error_at"])
	require.Equal(t, stamp(10*time.Minute), h["last_delivery_at"])
	require.Nil(t, h["last_accepted_at"])
	require.Equal(t, true, h["last_error_retried"])
	require.EqualValues(t, 4, h["failures_in_row"])
	require.Contains(t, h["action"], "failed the last 4 attempts (latest: status 503 Service Unavailable). Lexora retries with backoff; "+
		"check that the receiver is up")

	h = health[slow]
	require.Equal(t, "failing", h["state"])
	require.Equal(t, "timed out after 10s", h["last_error"])
	require.Equal(t, stamp(2*time.Hour), h["last_accepted_at"])
	require.EqualValues(t, 1, h["failures_in_row"])
	require.Contains(t, h["action"], "failed its last attempt (latest: timed out after 10s)")

	h = health[recovered]
	require.Equal(t, "healthy", h["state"])
	require.Equal(t, "connection refused", h["last_error"])
	require.Equal(t, stamp(2*time.Hour), h["last_delivery_at"])
	require.EqualValues(t, 0, h["failures_in_row"])
	require.Empty(t, h["action"])
}

// endpointHealth is the health of each of the fixture teacher's webhook
// endpoints as ListWebhookEndpoints answers it, by endpoint id.
func (f fixture) endpointHealth(t *testing.T) map[string]map[string]any {
	t.Helper()
	code, body := f.call(t, (*Service).ListWebhookEndpoints, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	health := map[string]map[string]any{}
	for _, ep := range body["endpoints"].([]any) {
		ep := ep.(map[string]any)
		health[ep["id"].(string)] = ep["health"].(map[string]any)
	}
	return health
}
