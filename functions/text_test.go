package functions

import (
	"net/http"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// everything counts the rows any write could add, to prove a refused
// request added none.
func (f fixture) everything(t testing.TB) map[string]int {
	t.Helper()
	out := f.snapshot(t)
	for _, table := range []string{"users", "class_members", "class_invitations", "webhook_endpoints", "idempotency_keys"} {
		out[table] = f.count(t, "SELECT count(*) FROM "+table)
	}
	return out
}

// TestOneIdentityPerLookingEmail: addresses that look like an existing one
// are one account or refused, never a second account with an invitation.
func TestOneIdentityPerLookingEmail(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	enrol := func(email, name string) (int, map[string]any) {
		return f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
			`{"class_id":"`+class.String()+`","email":"`+email+`","display_name":"`+name+`"}`)
	}
	code, body := enrol("repro@example.com", "Repro")
	require.Equal(t, http.StatusCreated, code, body)
	before := f.everything(t)
	for _, email := range []string{`\u202erepro@example.com`, `repro@example.com\u200b`, `repro@example.com\ufeff`,
		`re\u200dpro@example.com`, `repro@exam\u00adple.com`, `repro@example.com\u2028`, `repro@example.com\u0085`} {
		code, body := enrol(email, "Repro")
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", email, body)
		require.Equal(t, "email", body["errors"].([]any)[0].(map[string]any)["field"], email)
		require.Equal(t, before, f.everything(t), email)
	}
	// Look-alikes that canonicalise to the same address are the same
	// learner: already in the class.
	for _, email := range []string{"REPRO@EXAMPLE.COM", "Repro@Example.com", `\uff52epro@example.com`} {
		code, body := enrol(email, "Repro")
		require.Equal(t, http.StatusConflict, code, "%s: %v", email, body)
		require.Equal(t, before, f.everything(t), email)
	}
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email LIKE '%repro@%'"))

	// The database refuses what is not canonical, whoever writes it.
	for _, email := range []string{"ｒepro@example.com", "re pro@example.com", "repro@example.com\u0085"} {
		_, err := f.pool.Exec(ctx, "INSERT INTO users (email, display_name, role) VALUES ($1, 'x', 'learner')", email)
		require.ErrorContains(t, err, "users_email_canonical", email)
	}
}

// TestUserTextIsOneLine: every text a user gives that reaches an email or
// another user's screen refuses control, format and separator characters.
func TestUserTextIsOneLine(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	op := f.operator(t)
	before := f.everything(t)
	for bad, named := range map[string]string{`Eve\u2028Bcc`: "U+2028 LINE SEPARATOR", `\u202eevE`: "U+202E RIGHT-TO-LEFT OVERRIDE",
		`Eve\u2029`: "U+2029", `E\u200bve`: "U+200B ZERO WIDTH SPACE", `Eve\u0085`: "U+0085", `Eve\u2066x`: "U+2066 LEFT-TO-RIGHT ISOLATE",
		`\ufeffEve`: "U+FEFF", `Eve\u00ad`: "U+00AD SOFT HYPHEN", `Eve\u200d`: "U+200D ZERO WIDTH JOINER", `\u200cEve`: "U+200C ZERO WIDTH NON-JOINER",
		`\ufe0fEve`: "U+FE0F VARIATION SELECTOR-16", `Eve\ufe0f`: "U+FE0F VARIATION SELECTOR-16", `Eve \u2764\ufe0f\ufe0f`: "U+FE0F",
		`Eve \u2764\ufe0f\u202e`: "U+202E RIGHT-TO-LEFT OVERRIDE", `Eve \u2764\ufe01`: "U+FE01 VARIATION SELECTOR-2"} {
		code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
			`{"class_id":"`+class.String()+`","email":"eve@example.com","display_name":"`+bad+`"}`)
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", bad, body)
		fieldError := body["errors"].([]any)[0].(map[string]any)
		require.Equal(t, "display_name", fieldError["field"], bad)
		require.Contains(t, fieldError["reason"], named, "the refusal names the character")
		code, body = f.call(t, (*Service).SkipDeadLetters, http.MethodPost, "/SkipDeadLetters", op, `{"all":true,"reason":"`+bad+`"}`)
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", bad, body)
		require.Equal(t, before, f.everything(t), bad)
	}
	code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
		`{"class_id":"`+class.String()+`","email":"zoe@example.com","display_name":"  Zoe\u0308 Ō "}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email = 'zoe@example.com' AND display_name = 'Zoë Ō'"), "trimmed and NFC")

	// Joiners inside text: Persian and Indic names need ZWNJ and ZWJ, emoji
	// sequences ZWJ.
	persian := "\u0646\u06cc\u0644\u0648\u0641\u0631\u200c\u0647\u0627" // نیلوفر‌ها
	code, body = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/EnrollLearner", f.teacher,
		`{"class_id":"`+class.String()+`","email":"niloufar@example.com","display_name":"`+persian+`"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email = 'niloufar@example.com' AND display_name = $1", persian))
	const emojiClass = "Klasse 🇩🇪 👩\u200d🏫"
	code, body = f.call(t, (*Service).CreateClass, http.MethodPost, "/CreateClass", f.teacher, `{"name":"`+emojiClass+`"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM classes WHERE name = $1", emojiClass))
	// Emoji in their emoji presentation (U+FE0F) and in a ZWJ sequence
	// after one (❤️‍🔥), and a text presentation (U+FE0E).
	for _, name := range []string{"Words \u2764\ufe0f", "Hot \u2764\ufe0f\u200d\U0001f525", "Smile \u263a\ufe0e"} {
		code, body = f.call(t, (*Service).CreateClass, http.MethodPost, "/CreateClass", f.teacher, `{"name":"`+name+`"}`)
		require.Equal(t, http.StatusCreated, code, body)
		require.Equal(t, 1, f.count(t, "SELECT count(*) FROM classes WHERE name = $1", name), "%q", name)
	}
}

// TestWebhookURLsWithSpacesOrInvisibleCharactersAreRefused: the URL
// delivered to is the one the teacher saw. An invisible character is
// named in the refusal, as in a name (the README's promise).
func TestWebhookURLsWithSpacesOrInvisibleCharactersAreRefused(t *testing.T) {
	_, f := setup(t)
	before := f.everything(t)
	for url, named := range map[string]string{`https://example.com/hook `: "https://", `https://example.com/ho\u200bok`: "U+200B ZERO WIDTH SPACE",
		`https://example.com/hook\u202e`: "U+202E RIGHT-TO-LEFT OVERRIDE", ` https://example.com/hook`: "https://",
		`https://example.com/h ook`: "https://", `https://example.com/hook\t`: "U+0009 (a control character)",
		`https://ex\u00adample.com/hook`: "U+00AD SOFT HYPHEN", `https://ex\u202eample.com/h`: "U+202E RIGHT-TO-LEFT OVERRIDE",
		`https://169.254.169.254/x\u200b`: "U+200B ZERO WIDTH SPACE"} {
		code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"`+url+`"}`)
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", url, body)
		fieldError := body["errors"].([]any)[0].(map[string]any)
		require.Equal(t, "url", fieldError["field"], url)
		require.Contains(t, fieldError["reason"], named, url)
		require.Equal(t, before, f.everything(t), url)
	}
}

// TestWebhookIDNHostsAreStoredAsPunycode: a host name in another script is
// accepted in its IDNA (punycode) form, which the answer shows and the
// endpoint stores; an invisible character in a host is still refused.
func TestWebhookIDNHostsAreStoredAsPunycode(t *testing.T) {
	_, f := setup(t)
	code, body := f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"https://bücher.example/hook"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, "https://xn--bcher-kva.example/hook", body["url"])
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM webhook_endpoints WHERE url = 'https://xn--bcher-kva.example/hook'"))
	before := f.everything(t)
	code, body = f.call(t, (*Service).RegisterWebhookEndpoint, http.MethodPost, "/", f.teacher, `{"url":"https://b\u200bücher.example/hook"}`)
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Contains(t, body["errors"].([]any)[0].(map[string]any)["reason"], "U+200B ZERO WIDTH SPACE")
	require.Equal(t, before, f.everything(t))
}

// TestDueAtOffsetsAreRFC3339: offsets beyond ±23:59 are refused, not
// shifted.
func TestDueAtOffsetsAreRFC3339(t *testing.T) {
	_, f := setup(t)
	before := f.everything(t)
	for _, due := range []string{"2026-03-20T18:00:00+24:00", "2026-03-20T18:00:00+00:60", "2026-03-20T18:00:00-24:00",
		"2026-03-20T18:00:00+99:99", "2026-03-20T18:00:00+05:75"} {
		code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/", f.teacher,
			`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"`+due+`"}`)
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", due, body)
		require.Equal(t, "due_at", body["errors"].([]any)[0].(map[string]any)["field"], due)
		require.Equal(t, before, f.everything(t), due)
	}
	code, body := f.call(t, (*Service).CreateAssignment, http.MethodPost, "/", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00+23:59"}`)
	require.Equal(t, http.StatusCreated, code, body)
	require.Equal(t, "2026-03-19T18:01:00Z", body["due_at"])
}

// TestQueryParametersAreGivenOnceAndKnown: a repeated, unknown or malformed
// parameter is a 400 naming it, never a silent choice.
func TestQueryParametersAreGivenOnceAndKnown(t *testing.T) {
	_, f := setup(t)
	op := f.operator(t)
	for _, tc := range []struct {
		name   string
		fn     func(*Service, http.ResponseWriter, *http.Request)
		actor  uuid.UUID
		target string
		field  string
	}{
		{"a limit given twice", (*Service).GetSchedule, f.learner, "/?limit=5&limit=500", "limit"},
		{"two learners", (*Service).GetSchedule, f.learner, "/?learner_id=" + f.learner.String() + "&learner_id=" + f.otherLearner.String(), "learner_id"},
		{"an unknown parameter", (*Service).GetSchedule, f.learner, "/?limt=5", "limt"},
		{"a semicolon separator", (*Service).GetSchedule, f.learner, "/?limit=5;days=3", QueryField},
		{"a bad escape", (*Service).GetSchedule, f.learner, "/?limit=%zz", QueryField},
		{"one learner given twice", (*Service).GetProgress, f.teacher, "/?learner_id=" + f.learner.String() + "&learner_id=" + f.learner.String(), "learner_id"},
		{"a topic given twice", (*Service).ListDeadLetters, op, "/?topic=a&topic=b", "topic"},
		{"an offset out of range", (*Service).ListDeadLetters, op, "/?since=2026-03-01T00:00:00%2B24:00", "since"},
		{"a parameter of a function that reads none", (*Service).OutboxHealth, op, "/?x=1", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, tc.fn, http.MethodGet, tc.target, tc.actor, "")
			require.Equal(t, http.StatusBadRequest, code, "%s: %v", tc.target, body)
			require.Equal(t, tc.field, body["errors"].([]any)[0].(map[string]any)["field"], tc.target)
		})
	}
	// A required parameter given twice is said to be given twice, and only
	// that: not also missing.
	before := f.everything(t)
	class := "class_id=" + f.class.String()
	code, body := f.call(t, (*Service).GetClassProgress, http.MethodGet, "/?"+class+"&"+class, f.teacher, "")
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Equal(t, []any{map[string]any{"field": "class_id", "reason": "must be given once"}}, body["errors"])
	code, body = f.call(t, (*Service).GetClassProgress, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Equal(t, []any{map[string]any{"field": "class_id", "reason": "required"}}, body["errors"])
	require.Equal(t, before, f.everything(t))
}

// TestPostFunctionsRefuseQueryParameters: a POST function reads only its
// body, so any query parameter is unknown, a 400 naming it, as on GET, and
// the otherwise valid request changes nothing.
func TestPostFunctionsRefuseQueryParameters(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	op := f.operator(t)
	card := f.cards(t)[0].String()
	before := f.everything(t)
	for _, tc := range []struct {
		name  string
		fn    func(*Service, http.ResponseWriter, *http.Request)
		actor uuid.UUID
		body  string
	}{
		{"SubmitReview", (*Service).SubmitReview, f.learner, `{"card_id":"` + card + `","rating":3}`},
		{"EnrollLearner", (*Service).EnrollLearner, f.teacher, `{"class_id":"` + f.class.String() + `","email":"new@example.com"}`},
		{"CreateClass", (*Service).CreateClass, f.teacher, `{"name":"C"}`},
		{"RegisterWebhookEndpoint", (*Service).RegisterWebhookEndpoint, f.teacher, `{"url":"https://school.example/h"}`},
		{"ReplayDeadLetters", (*Service).ReplayDeadLetters, op, `{"all":true,"reason":"x"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, tc.fn, http.MethodPost, "/"+tc.name+"?x=1", tc.actor, tc.body)
			require.Equal(t, http.StatusBadRequest, code, body)
			require.Equal(t, []any{map[string]any{"field": "x", "reason": "unknown parameter"}}, body["errors"])
			require.Equal(t, before, f.everything(t), "a refusal writes nothing")
		})
	}
}
