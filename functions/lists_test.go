package functions

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestEmptyListsAreEmptyArrays: every list in an answer is a JSON array,
// [] when empty, never null (the OpenAPI document declares them so, and the
// web client iterates them without checks).
func TestEmptyListsAreEmptyArrays(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var op uuid.UUID
	require.NoError(t, f.pool.QueryRow(context.Background(), `INSERT INTO users (email, display_name, role)
		VALUES ('ops@example.com', 'Ops', 'operator') RETURNING id`).Scan(&op))
	_, err := f.pool.Exec(context.Background(), "UPDATE users SET auth_subject = id::text WHERE id = $1", op)
	require.NoError(t, err)

	empty := []any{}
	code, body := f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	for _, list := range []string{"achievements", "assignments", "feed"} {
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
