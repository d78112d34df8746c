package functions

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestRoleMatrix calls every function as every role: the resource's owner,
// a user of the same role from another class (a foreign tenant), the other
// roles, and no one. A denial for a foreign resource is 404, never 403.
func TestRoleMatrix(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	assignment := f.assign(t)
	card := f.cards(t)[0]
	var op, class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role) VALUES ('ops@example.com', 'Ops', 'operator')
		RETURNING id`).Scan(&op))
	require.NoError(t, f.pool.QueryRow(ctx, "UPDATE users SET auth_subject = id::text WHERE id = $1 RETURNING (SELECT id FROM classes WHERE teacher_id = $2)",
		op, f.teacher).Scan(&class))
	var endpoint string
	_, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"https://school.example/h"}`)
	endpoint = body["id"].(string)

	roles := map[string]uuid.UUID{"learner": f.learner, "foreign learner": f.otherLearner, "teacher": f.teacher,
		"foreign teacher": f.otherTeacher, "operator": op, "anonymous": uuid.Nil}
	const ok, no, gone, anon = 200, 404, 404, 401
	for _, c := range []struct {
		fn     func(*Service, http.ResponseWriter, *http.Request)
		method string
		path   string
		body   func() string
		want   map[string]int // status by role; anonymous is always 401
	}{
		{(*Service).GetSchedule, http.MethodGet, "/?learner_id=" + f.learner.String(), nil,
			map[string]int{"learner": ok, "foreign learner": no, "teacher": ok, "foreign teacher": no, "operator": no}},
		{(*Service).GetProgress, http.MethodGet, "/?learner_id=" + f.learner.String(), nil,
			map[string]int{"learner": ok, "foreign learner": no, "teacher": ok, "foreign teacher": no, "operator": no}},
		{(*Service).GetSchedule, http.MethodGet, "/?assignment_id=" + assignment.String(), nil,
			map[string]int{"learner": ok, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": no}},
		{(*Service).SubmitReview, http.MethodPost, "/", func() string { return `{"card_id":"` + card.String() + `","rating":3}` },
			map[string]int{"learner": ok, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": no}},
		{(*Service).CreateAssignment, http.MethodPost, "/", func() string {
			return `{"learner_id":"` + f.learner.String() + `","deck_id":"` + f.deck.String() + `","due_at":"2026-04-20T18:00:00Z"}`
		}, map[string]int{"learner": no, "foreign learner": no, "teacher": 409, "foreign teacher": no, "operator": no}},
		{(*Service).EnrollLearner, http.MethodPost, "/", func() string { return `{"class_id":"` + class.String() + `","email":"l@example.com"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": 409, "foreign teacher": no, "operator": no}},
		{(*Service).ListWebhookEndpoints, http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": ok, "operator": no}},
		{(*Service).RotateWebhookSecret, http.MethodPost, "/", func() string { return `{"id":"` + endpoint + `"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": ok, "foreign teacher": gone, "operator": no}},
		{(*Service).OutboxHealth, http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{(*Service).ListDeadLetters, http.MethodGet, "/", nil,
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{(*Service).ReplayDeadLetters, http.MethodPost, "/", func() string { return `{"all":true}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
		{(*Service).SkipDeadLetters, http.MethodPost, "/", func() string { return `{"all":true,"reason":"test"}` },
			map[string]int{"learner": no, "foreign learner": no, "teacher": no, "foreign teacher": no, "operator": ok}},
	} {
		for role, who := range roles {
			body := ""
			if c.body != nil {
				body = c.body()
			}
			code, _ := f.call(t, c.fn, c.method, c.path, who, body)
			want := anon
			if role != "anonymous" {
				want = c.want[role]
			}
			require.Equal(t, want, code, "%s as %s", c.path, role)
		}
	}
	// Every registered function is in the matrix, or in this list with a reason.
	covered := map[string]bool{"GetSchedule": true, "GetProgress": true, "SubmitReview": true, "CreateAssignment": true,
		"EnrollLearner": true, "ListWebhookEndpoints": true, "RotateWebhookSecret": true, "OutboxHealth": true,
		"ListDeadLetters": true, "ReplayDeadLetters": true, "SkipDeadLetters": true,
		// Covered by TestWebhookEndpointsBelongToTheirTeacher (creation and deletion by role).
		"RegisterWebhookEndpoint": true, "DeleteWebhookEndpoint": true}
	for name := range Functions {
		require.True(t, covered[name], "%s has no row in the role matrix", name)
	}
}
