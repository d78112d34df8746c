package functions

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
)

// retentionBody is SetDeckRetention's body for the class deck with
// retention (JSON text: a number, or anything else to refuse).
func retentionBody(class, deck uuid.UUID, retention string) string {
	return `{"class_id":"` + class.String() + `","deck_id":"` + deck.String() + `","desired_retention":` + retention + `}`
}

// retentions are the class decks' retentions, by class.
func (f fixture) retentions(t testing.TB) map[string]float64 {
	t.Helper()
	rows, err := f.pool.Query(t.Context(), "SELECT class_id::text, desired_retention FROM class_decks")
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]float64{}
	for rows.Next() {
		var class string
		var r float64
		require.NoError(t, rows.Scan(&class, &r))
		out[class] = r
	}
	require.NoError(t, rows.Err())
	return out
}

func TestSetDeckRetentionSetsItAndTellsTheWebhooks(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	require.Equal(t, map[string]float64{f.class.String(): 0.9}, f.retentions(t), "a class deck starts at 0.90")
	events0 := f.count(t, "SELECT count(*) FROM outbox_events")

	code, body := f.call(t, (*Service).SetDeckRetention, http.MethodPost, "/SetDeckRetention", f.teacher,
		retentionBody(f.class, f.deck, "0.85"))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, map[string]any{"class_id": f.class.String(), "deck_id": f.deck.String(), "desired_retention": 0.85,
		"previous_retention": 0.9, "changed": true}, body)
	require.Equal(t, map[string]float64{f.class.String(): 0.85}, f.retentions(t))
	var payload events.DeckRetentionChangedPayload
	var key string
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT payload, ordering_key FROM outbox_events WHERE topic = $1",
		events.DeckRetentionChanged).Scan(&payload, &key))
	require.Equal(t, events.DeckRetentionChangedPayload{ClassID: f.class, DeckID: f.deck, TeacherID: f.teacher,
		DesiredRetention: 0.85, PreviousRetention: 0.9}, payload)
	require.Equal(t, f.class.String(), key)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE e.topic = $1 AND d.subscriber = $2",
		events.DeckRetentionChanged, events.SubscriberWebhook))
	require.Equal(t, events0+1, f.count(t, "SELECT count(*) FROM outbox_events"))

	// The same retention again changes nothing and tells nobody.
	code, body = f.call(t, (*Service).SetDeckRetention, http.MethodPost, "/SetDeckRetention", f.teacher,
		retentionBody(f.class, f.deck, "0.85"))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, map[string]any{"class_id": f.class.String(), "deck_id": f.deck.String(), "desired_retention": 0.85,
		"previous_retention": 0.85, "changed": false}, body)
	require.Equal(t, events0+1, f.count(t, "SELECT count(*) FROM outbox_events"))

	// The class's decks answer their retention.
	code, body = f.call(t, (*Service).GetClassProgress, http.MethodGet, "/GetClassProgress?class_id="+f.class.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, 0.85, body["decks"].([]any)[0].(map[string]any)["desired_retention"])
}

func TestSetDeckRetentionRejectsBadInputAndChangesNothing(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	before, retentions := f.snapshot(t), f.retentions(t)
	for _, tc := range []struct {
		name   string
		actor  uuid.UUID
		body   string
		status int
		field  string
		// reason, when set, is what the field error says: 0 is a value
		// below the range, not a missing one (on main: "is required").
		reason string
	}{
		{"below 0.80", f.teacher, retentionBody(f.class, f.deck, "0.79"), http.StatusBadRequest, "desired_retention", "must be at least 0.8"},
		{"above 0.95", f.teacher, retentionBody(f.class, f.deck, "0.96"), http.StatusBadRequest, "desired_retention", "must be at most 0.95"},
		{"zero", f.teacher, retentionBody(f.class, f.deck, "0"), http.StatusBadRequest, "desired_retention", "must be at least 0.8"},
		{"NaN", f.teacher, retentionBody(f.class, f.deck, "NaN"), http.StatusBadRequest, "", ""},
		{"NaN as a string", f.teacher, retentionBody(f.class, f.deck, `"NaN"`), http.StatusBadRequest, "desired_retention", ""},
		{"a string", f.teacher, retentionBody(f.class, f.deck, `"0.9"`), http.StatusBadRequest, "desired_retention", ""},
		{"null", f.teacher, retentionBody(f.class, f.deck, "null"), http.StatusBadRequest, "desired_retention", ""},
		{"missing", f.teacher, `{"class_id":"` + f.class.String() + `","deck_id":"` + f.deck.String() + `"}`, http.StatusBadRequest, "desired_retention", "is required"},
		{"class not a uuid", f.teacher, `{"class_id":"c1","deck_id":"` + f.deck.String() + `","desired_retention":0.85}`, http.StatusBadRequest, "class_id", ""},
		{"another teacher's class", f.otherTeacher, retentionBody(f.class, f.deck, "0.85"), http.StatusNotFound, "", ""},
		{"a class without the deck", f.otherTeacher, retentionBody(f.otherClass, f.deck, "0.85"), http.StatusNotFound, "", ""},
		{"unknown deck", f.teacher, retentionBody(f.class, uuid.New(), "0.85"), http.StatusNotFound, "", ""},
		{"learner as actor", f.learner, retentionBody(f.class, f.deck, "0.85"), http.StatusNotFound, "", ""},
		{"no acting user", uuid.Nil, retentionBody(f.class, f.deck, "0.85"), http.StatusUnauthorized, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).SetDeckRetention, http.MethodPost, "/SetDeckRetention", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			if tc.field != "" {
				require.Equal(t, tc.field, body["errors"].([]any)[0].(map[string]any)["field"], body)
			}
			if tc.reason != "" {
				require.Equal(t, tc.reason, body["errors"].([]any)[0].(map[string]any)["reason"], body)
			}
			require.Equal(t, before, f.snapshot(t))
			require.Equal(t, retentions, f.retentions(t))
		})
	}
}

func TestGetDeckWorkloadSimulatesTheClassAtEachRetention(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	for _, c := range f.cards(t) {
		f.review(t, c, 4) // Easy: each card in Review, due in days
	}
	code, body := f.call(t, (*Service).GetDeckWorkload, http.MethodGet,
		"/GetDeckWorkload?class_id="+f.class.String()+"&deck_id="+f.deck.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, 0.9, body["desired_retention"])
	require.Equal(t, 1.0, body["learners"])
	require.Equal(t, 3.0, body["cards"])
	require.Equal(t, 0.0, body["fitted"])
	require.Len(t, body["days"], 30)
	require.Equal(t, "2026-03-02", body["days"].([]any)[0])
	curves := body["curves"].([]any)
	require.Len(t, curves, 4)
	var means []float64
	for i, c := range curves {
		c := c.(map[string]any)
		require.Equal(t, []float64{0.80, 0.85, 0.90, 0.95}[i], c["desired_retention"])
		require.Len(t, c["reviews_per_day"], 30)
		means = append(means, c["mean_per_day"].(float64))
	}
	require.Positive(t, means[0], "three cards in Review are reviewed within 30 days")
	require.LessOrEqual(t, means[0], means[3], "a higher retention asks more reviews")

	// A retention of the teacher's own (92 %) is simulated as well, in its place.
	code, body = f.call(t, (*Service).SetDeckRetention, http.MethodPost, "/", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","desired_retention":0.92}`)
	require.Equal(t, http.StatusOK, code, body)
	code, body = f.call(t, (*Service).GetDeckWorkload, http.MethodGet,
		"/GetDeckWorkload?class_id="+f.class.String()+"&deck_id="+f.deck.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, body)
	var retentions []float64
	for _, c := range body["curves"].([]any) {
		retentions = append(retentions, c.(map[string]any)["desired_retention"].(float64))
	}
	require.Equal(t, []float64{0.80, 0.85, 0.90, 0.92, 0.95}, retentions)

	for _, tc := range []struct {
		name   string
		actor  uuid.UUID
		target string
		status int
	}{
		{"another teacher's class", f.otherTeacher, "/GetDeckWorkload?class_id=" + f.class.String() + "&deck_id=" + f.deck.String(), http.StatusNotFound},
		{"a deck the class does not have", f.teacher, "/GetDeckWorkload?class_id=" + f.class.String() + "&deck_id=" + uuid.NewString(), http.StatusNotFound},
		{"no deck", f.teacher, "/GetDeckWorkload?class_id=" + f.class.String(), http.StatusBadRequest},
		{"a learner", f.learner, "/GetDeckWorkload?class_id=" + f.class.String() + "&deck_id=" + f.deck.String(), http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).GetDeckWorkload, http.MethodGet, tc.target, tc.actor, "")
			require.Equal(t, tc.status, code, body)
		})
	}
}
