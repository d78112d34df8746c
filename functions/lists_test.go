package functions

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEmptyListsAreEmptyArrays: every list in an answer is a JSON array,
// [] when empty, never null (the OpenAPI document declares them so, and the
// web client iterates them without checks).
func TestEmptyListsAreEmptyArrays(t *testing.T) {
	_, f := setup(t)
	op := f.operator(t)

	empty := []any{}
	code, body := f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	for _, list := range []string{"achievements", "assignments", "started_decks", "feed"} {
		require.Equal(t, empty, body[list], list)
	}
	code, body = f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, empty, body["due"])
	require.Len(t, body["forecast"], 7, "the forecast lists every day, with 0 where nothing is due")
	code, body = f.call(t, (*Service).ListWebhookEndpoints, http.MethodGet, "/ListWebhookEndpoints", f.teacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, empty, body["endpoints"])
	code, body = f.call(t, (*Service).ListDeadLetters, http.MethodGet, "/ListDeadLetters", op, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, empty, body["dead"])
	code, body = f.call(t, (*Service).OutboxHealth, http.MethodGet, "/OutboxHealth", op, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, empty, body["backlog"])
	require.Equal(t, empty, body["dead"])
	require.Len(t, body["delivered_per_minute"], 60)
}
