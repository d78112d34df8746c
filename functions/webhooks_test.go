package functions

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

func TestWebhookEndpointsBelongToTheirTeacher(t *testing.T) {
	ctx, f := setup(t)
	code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/RegisterWebhookEndpoint", f.teacher,
		`{"url":"https://school.example/hooks","topics":["assignment.completed"]}`)
	require.Equal(t, http.StatusCreated, code, body)
	id := body["id"].(string)
	secret := body["secret"].(string)
	require.Regexp(t, `^whsec_[A-Za-z0-9+/]{43}=$`, secret)

	for _, tc := range []struct{ name, body string }{
		{"plain http", `{"url":"http://school.example/hooks"}`},
		{"credentials in the URL", `{"url":"https://u:p@school.example/hooks"}`},
		{"not a URL", `{"url":"hooks"}`},
		{"unknown topic", `{"url":"https://school.example/hooks","topics":["review.submitted"]}`},
		{"missing url", `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/RegisterWebhookEndpoint", f.teacher, tc.body)
			require.Equal(t, http.StatusBadRequest, code, "%s: %v", tc.name, body)
		})
	}
	code, _ = f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/RegisterWebhookEndpoint", f.learner,
		`{"url":"https://school.example/hooks"}`)
	require.Equal(t, http.StatusNotFound, code)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints"))

	code, body = f.call(t, (*Service).ListWebhookEndpoints, http.MethodGet, "/ListWebhookEndpoints", f.teacher, "")
	require.Equal(t, http.StatusOK, code)
	eps := body["endpoints"].([]any)
	require.Len(t, eps, 1)
	require.NotContains(t, eps[0], "secret", "a listed endpoint never shows its secret")
	code, body = f.call(t, (*Service).ListWebhookEndpoints, http.MethodGet, "/ListWebhookEndpoints", f.otherTeacher, "")
	require.Equal(t, http.StatusOK, code)
	require.Empty(t, body["endpoints"])

	for _, fn := range []func(*Service, http.ResponseWriter, *http.Request){(*Service).RotateWebhookSecret,
		(*Service).EnableWebhookEndpoint, (*Service).DeleteWebhookEndpoint} {
		code, _ = f.call(t, fn, http.MethodPost, "/", f.otherTeacher, `{"id":"`+id+`"}`)
		require.Equal(t, http.StatusNotFound, code, "another teacher's endpoint")
		code, _ = f.call(t, fn, http.MethodPost, "/", f.teacher, `{"id":"`+uuid.NewString()+`"}`)
		require.Equal(t, http.StatusNotFound, code)
	}
	code, body = f.call(t, (*Service).RotateWebhookSecret, http.MethodPost, "/RotateWebhookSecret", f.teacher, `{"id":"`+id+`"}`)
	require.Equal(t, http.StatusOK, code)
	require.NotEqual(t, secret, body["secret"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints WHERE secret = $1 AND previous_secret = $2", body["secret"], secret))
	overlapEnds, err := time.Parse(time.RFC3339Nano, body["previous_secret_expires_at"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, f.clock.Now().Add(webhooks.PreviousSecretOverlap), overlapEnds, time.Minute, "the old secret keeps signing for a day")

	code, body = f.call(t, (*Service).RotateWebhookSecret, http.MethodPost, "/RotateWebhookSecret", f.teacher,
		`{"id":"`+id+`","revoke_previous":true}`)
	require.Equal(t, http.StatusOK, code)
	require.Nil(t, body["previous_secret_expires_at"], "a leaked secret stops at once")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints WHERE secret = $1 AND previous_secret IS NULL", body["secret"]))

	_, err = f.pool.Exec(ctx, "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = '410 Gone' WHERE id = $1", id)
	require.NoError(t, err)
	code, body = f.call(t, (*Service).EnableWebhookEndpoint, http.MethodPost, "/EnableWebhookEndpoint", f.teacher, `{"id":"`+id+`"}`)
	require.Equal(t, http.StatusOK, code)
	require.Nil(t, body["disabled_at"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints WHERE disabled_at IS NULL AND disabled_reason IS NULL"))

	code, _ = f.call(t, (*Service).DeleteWebhookEndpoint, http.MethodPost, "/DeleteWebhookEndpoint", f.teacher, `{"id":"`+id+`"}`)
	require.Equal(t, http.StatusOK, code)
	require.Zero(t, f.count(t, "SELECT count(*) FROM webhook_endpoints"))
}

// TestWebhookURLRegisteredTwiceIsAConflict: a teacher's second registration
// of a URL they have an active endpoint at is a 409 webhook-url-taken that
// writes nothing: the database still holds the one endpoint. Re-enabling a
// disabled endpoint beside an active one at its URL is refused the same way.
func TestWebhookURLRegisteredTwiceIsAConflict(t *testing.T) {
	ctx, f := setup(t)
	register := func(url string) (int, map[string]any) {
		return f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/RegisterWebhookEndpoint", f.teacher,
			`{"url":"`+url+`","topics":["assignment.completed"]}`)
	}
	code, body := register("https://school.example/hooks")
	require.Equal(t, http.StatusCreated, code, body)
	first := body["id"].(string)
	before := f.everything(t)
	code, body = register("https://school.example/hooks")
	require.Equal(t, http.StatusConflict, code, body)
	require.Equal(t, "https://lexora.app/problems/webhook-url-taken", body["type"])
	require.Equal(t, before, f.everything(t))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints WHERE url = 'https://school.example/hooks'"))

	_, err := f.pool.Exec(ctx, "UPDATE webhook_endpoints SET disabled_at = now(), disabled_reason = '410 Gone' WHERE id = $1", first)
	require.NoError(t, err)
	code, body = register("https://school.example/hooks")
	require.Equal(t, http.StatusCreated, code, "a disabled endpoint does not hold its URL: %v", body)
	before = f.everything(t)
	code, body = f.call(t, (*Service).EnableWebhookEndpoint, http.MethodPost, "/EnableWebhookEndpoint", f.teacher, `{"id":"`+first+`"}`)
	require.Equal(t, http.StatusConflict, code, body)
	require.Equal(t, "https://lexora.app/problems/webhook-url-taken", body["type"])
	require.Equal(t, before, f.everything(t))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints WHERE disabled_at IS NULL"))
}

// TestWebhookTopicsAreTheWebhookSubscriptions: the topics a teacher may
// subscribe an endpoint to (openapi.yaml's WebhookTopic, the validator's
// oneof) are exactly the topics the webhook subscriber takes in the
// routing table (events.Subscriptions), deck.created and
// deck.entries_changed among them: a topic added to one and not the other
// fails here.
func TestWebhookTopicsAreTheWebhookSubscriptions(t *testing.T) {
	t.Parallel()
	var routed []string
	for _, s := range events.Subscriptions {
		if s.Subscriber == events.SubscriberWebhook {
			routed = append(routed, s.Topic)
		}
	}
	field, ok := reflect.TypeFor[api.RegisterWebhookEndpointJSONBody]().FieldByName("Topics")
	require.True(t, ok)
	_, oneOf, ok := strings.Cut(field.Tag.Get("validate"), "oneof=")
	require.True(t, ok)
	require.ElementsMatch(t, routed, strings.Fields(oneOf))
	require.Contains(t, routed, events.DeckCreated)
	require.Contains(t, routed, events.DeckEntriesChanged)
}

// A teacher's endpoint subscribed to the deck topics is sent their
// creation of a deck.
func TestAnEndpointMaySubscribeToTheDeckTopics(t *testing.T) {
	_, f := setup(t)
	code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher,
		`{"url":"https://school.example/decks","topics":["deck.created","deck.entries_changed"]}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, []any{"deck.created", "deck.entries_changed"}, body["topics"])
}
