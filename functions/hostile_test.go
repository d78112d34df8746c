package functions

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// hostileValues are what a curious or hostile new user types into every
// field: look-alikes of an existing email, invisible and bidirectional
// characters, line breaks, injections, wrong JSON types, edge numbers and
// edge times.
var hostileValues = []any{
	"", " ", "repro@example.com", "REPRO@EXAMPLE.COM", "\u202erepro@example.com", "repro@example.com\u200b",
	"repro@example.com\ufeff", "ｒepro@example.com", "re\u00adpro@example.com", "repro@exa\u200dmple.com",
	"Eve\u2028Bcc: x@evil.test", "\u202eevE", "Klasse 👩\u200d🏫", "\u0646\u06cc\u0644\u0648\u0641\u0631\u200c\u0647\u0627", "\u200dEve", "Eve\u200c", "Eve\r\nBcc: x@evil.test", "a\u0085b", "😀", "O'Brien; DROP TABLE users; --",
	"<script>alert(1)</script>", "../../etc/passwd", "%00", "null", strings.Repeat("a", 3000),
	"https://example.com/hook ", "https://example.com/ho\u200bok", "http://169.254.169.254/", "https://xn--80ak6aa92e.com/h",
	"2026-03-20T18:00:00+24:00", "2026-03-20T18:00:00+00:60", "2026-03-20T18:00:00Z", "9999-12-31T23:59:59Z",
	"00000000-0000-0000-0000-000000000000", "{00000000-0000-4000-8000-000000000001}", "urn:uuid:00000000-0000-4000-8000-000000000001",
	"Europe/Paris", "Mars/Olympus", "../../UTC", "DEMO2026", "demo2026",
	// Other spellings of repro@example.com (text.CanonicalEmail) and
	// look-alikes of it of one script (text.Skeleton).
	`"repro"@example.com`, `"re\pro"@example.com`, "repro＠example.com", "repro@example\u3002com", `"re pro"@example.com`,
	"repro(x)@example.com", "repro@[192.0.2.1]", "repro@example.com.", "repr\u1ecd@example.com", "r\u00e9pro@example.com",
	0, -1, 1.5, json.Number("1e309"), 9223372036854775807, true, nil, []any{}, []any{"a", "a"}, map[string]any{},
}

// TestHostileInputRun sends at least 500 hostile requests across every
// function, as every role and with forged tokens: no answer is a 5xx, every
// refusal is a problem document and changes nothing, and no look-alike of
// an existing identity is ever accepted as a new one.
func TestHostileInputRun(t *testing.T) {
	ctx, f := setup(t)
	r := f.resources(t)
	assignment, card, op, class, endpoint, library := r.assignment, r.card, r.op, r.class, r.endpoint, r.library
	_, err := f.pool.Exec(ctx, "UPDATE classes SET join_code = 'DEMO2026' WHERE id = $1", class)
	require.NoError(t, err)
	code, body := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.teacher, `{"class_id":"`+class.String()+`","email":"repro@example.com"}`)
	require.Equal(t, http.StatusCreated, code, body)
	repro := body["learner_id"].(string) // the class chores' learner

	own, ownEntries := f.ownDeck(t, f.teacher, "Own", [2]string{"uno", "one"})
	scratch, _ := f.ownDeck(t, f.teacher, "Scratch")

	// Each function's valid request, which the run breaks one field at a time.
	type request struct {
		actor uuid.UUID
		body  map[string]any // nil for GET
		query map[string]string
	}
	valid := map[string]request{
		"EnrollLearner": {f.teacher, map[string]any{"class_id": class.String(), "email": "new@example.com",
			"display_name": "New", "timezone": "Europe/Paris"}, nil},
		"CreateAssignment": {f.teacher, map[string]any{"class_id": f.class.String(), "deck_id": f.deck.String(),
			"due_at": "2026-03-25T18:00:00Z"}, nil},
		"SubmitReview":            {f.learner, map[string]any{"card_id": card.String(), "rating": 3}, nil},
		"UndoReview":              {f.learner, map[string]any{"card_id": card.String(), "review_id": 1}, nil},
		"StartDeck":               {f.learner, map[string]any{"deck_id": library.String()}, nil},
		"Me":                      {f.learner, nil, map[string]string{}},
		"GetSchedule":             {f.teacher, nil, map[string]string{"learner_id": f.learner.String(), "assignment_id": assignment.String(), "limit": "5", "days": "7"}},
		"GetProgress":             {f.teacher, nil, map[string]string{"learner_id": f.learner.String()}},
		"RegisterWebhookEndpoint": {f.teacher, map[string]any{"url": "https://school.example/x", "topics": []any{"assignment.created"}}, nil},
		"ListWebhookEndpoints":    {f.teacher, nil, map[string]string{}},
		"RotateWebhookSecret":     {f.teacher, map[string]any{"id": endpoint, "revoke_previous": false}, nil},
		"EnableWebhookEndpoint":   {f.teacher, map[string]any{"id": endpoint}, nil},
		"DeleteWebhookEndpoint":   {f.otherTeacher, map[string]any{"id": endpoint}, nil},
		"CreateClass":             {f.teacher, map[string]any{"name": "Hostile class"}, nil},
		"CreateLearnerAccount":    {f.learner, map[string]any{"display_name": "New", "timezone": "Europe/Paris"}, nil},
		"SetNewCardsPerDay":       {f.teacher, map[string]any{"class_id": class.String(), "new_cards_per_day": 5}, nil},
		"ListClasses":             {f.teacher, nil, map[string]string{}},
		"ListDecks":               {f.teacher, nil, map[string]string{}},
		"GetClassProgress":        {f.teacher, nil, map[string]string{"class_id": class.String()}},
		"OutboxHealth":            {op, nil, map[string]string{}},
		"ListDeadLetters":         {op, nil, map[string]string{"topic": "assignment.created", "subscriber": "email", "since": "2026-01-01T00:00:00Z", "limit": "10"}},
		"ReplayDeadLetters":       {op, map[string]any{"ids": []any{1}, "topic": "assignment.created", "reason": "r"}, nil},
		"SkipDeadLetters":         {op, map[string]any{"ids": []any{1}, "topic": "assignment.created", "reason": "r"}, nil},
		"RemoveLearner":           {f.teacher, map[string]any{"class_id": class.String(), "learner_id": repro}, nil},
		"UpdateClass":             {f.teacher, map[string]any{"class_id": class.String(), "name": "Renamed", "archived": false}, nil},
		"NewJoinCode":             {f.otherTeacher, map[string]any{"class_id": class.String()}, nil},
		"SetLearnerName":          {f.teacher, map[string]any{"class_id": class.String(), "learner_id": repro, "display_name": "Repro"}, nil},
		"ListOwnDecks":            {f.teacher, nil, map[string]string{"archived": "true"}},
		"GetDeck":                 {f.teacher, nil, map[string]string{"deck_id": own.String()}},
		"CreateDeck": {f.teacher, map[string]any{"title": "Hostile deck", "description": "d", "term_language": "es", "meaning_language": "en",
			"entries": []any{map[string]any{"term": "x", "meaning": "y"}}}, nil},
		"CopyDeck": {f.teacher, map[string]any{"source_id": own.String(), "title": "Hostile copy"}, nil},
		"UpdateDeck": {f.teacher, map[string]any{"deck_id": own.String(), "version": 1, "title": "Own", "description": "d",
			"term_language": "es", "meaning_language": "en"}, nil},
		"EditDeckEntries": {f.teacher, map[string]any{"deck_id": own.String(), "add": []any{map[string]any{"term": "h", "meaning": "m"}},
			"remove": []any{map[string]any{"id": ownEntries["uno"]["id"], "version": 1}}}, nil},
		"ReorderDeckEntries": {f.teacher, map[string]any{"deck_id": own.String(), "version": 1, "order": []any{ownEntries["uno"]["id"]}}, nil},
		"PreviewDeckImport": {f.teacher, map[string]any{"deck_id": own.String(), "text": "a\tb", "format": "list", "separator": "\t",
			"columns": map[string]any{"Front": "term"}}, nil},
		"ImportDeckEntries":   {f.teacher, map[string]any{"deck_id": own.String(), "text": "a\tb", "duplicates": "skip", "leave_out_refused": true}, nil},
		"ExportDeck":          {f.teacher, nil, map[string]string{"deck_id": own.String()}},
		"ExportClassProgress": {f.teacher, nil, map[string]string{"class_id": class.String()}},
		"ArchiveDeck":         {f.teacher, map[string]any{"deck_id": own.String(), "archived": false}, nil},
		"DeleteDeck":          {f.teacher, map[string]any{"deck_id": scratch.String()}, nil},
		"LookupLibraryTerm":   {f.teacher, nil, map[string]string{"term": "cat"}},
		"SetDeckRetention": {f.teacher, map[string]any{"class_id": class.String(), "deck_id": f.deck.String(),
			"desired_retention": 0.85}, nil},
		"GetDeckWorkload": {f.teacher, nil, map[string]string{"class_id": class.String(), "deck_id": f.deck.String()}},
	}
	for name := range Functions {
		require.Contains(t, valid, name, "%s has no hostile run", name)
	}
	tokens := hostileTokens(t, f)

	sent, statuses := 0, map[int]int{}
	send := func(name, method, target, authz, body string, header map[string]string) {
		t.Helper()
		before := f.writes(t)
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		Functions[name](f.svc, rec, req)
		sent++
		statuses[rec.Code]++
		require.Less(t, rec.Code, 500, "%s %s %q: %s", name, target, body, rec.Body.String())
		if rec.Code >= 400 {
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), "%s %q", name, body)
			require.Equal(t, before, f.writes(t), "%s %s %q was refused (%d) but changed the database", name, target, body, rec.Code)
		}
	}
	encode := func(v any) string {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return string(b)
	}
	for _, name := range slices.Sorted(maps.Keys(valid)) {
		r := valid[name]
		method, who := http.MethodPost, bearer(t, r.actor)
		if r.body == nil {
			method = http.MethodGet
		}
		// Every field of the request, replaced by every hostile value.
		fields := make([]string, 0, len(r.body)+len(r.query))
		for k := range r.body {
			fields = append(fields, k)
		}
		for k := range r.query {
			fields = append(fields, k)
		}
		slices.Sort(fields)
		for _, field := range fields {
			for _, v := range hostileValues {
				if r.body != nil {
					b := maps.Clone(r.body)
					b[field] = v
					send(name, method, "/", who, encode(b), nil)
					continue
				}
				s, ok := v.(string)
				if !ok {
					s = encode(v)
				}
				q := []string{}
				for k, val := range r.query {
					if k == field {
						val = s
					}
					q = append(q, k+"="+url.QueryEscape(val))
				}
				send(name, method, "/?"+strings.Join(q, "&"), who, "", nil)
			}
		}
		// Whole-request hostility: bodies, query strings, methods, tokens
		// and idempotency keys.
		for _, b := range []string{``, `[]`, `[{}]`, `null`, `"x"`, `{`, `{}{}`, `{"a":1}`, `{"id":"x","id":"y"}`, "{\"x\":\"\u0000\"}",
			`{"` + strings.Repeat("a", 70000) + `":1}`} {
			send(name, http.MethodPost, "/", who, b, nil)
		}
		for _, q := range []string{"/?limit=5&limit=500", "/?x=1", "/?limit=%zz", "/?;", "/?learner_id=" + f.learner.String() + "&learner_id=" + f.otherLearner.String()} {
			send(name, http.MethodGet, q, who, "", nil)
		}
		for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
			send(name, m, "/", who, "{}", nil)
		}
		for _, tok := range tokens {
			send(name, method, "/", tok, "{}", nil)
		}
		for _, key := range []string{"", " ", "k\u200b", strings.Repeat("k", 256), "k\x7f"} {
			send(name, method, "/", who, "{}", map[string]string{IdempotencyKeyHeader: key})
		}
	}
	require.GreaterOrEqual(t, sent, 500)
	t.Logf("%d hostile requests; answers by status: %v", sent, statuses)

	// No look-alike identity: every stored email is canonical and unique in
	// that form, and every stored name, class name and URL is one line.
	rows, err := f.pool.Query(ctx, "SELECT email, display_name FROM users")
	require.NoError(t, err)
	seen := map[string]bool{}
	for rows.Next() {
		var email, name string
		require.NoError(t, rows.Scan(&email, &name))
		canonical, err := text.CanonicalEmail(email)
		require.NoError(t, err, email)
		require.Equal(t, canonical, email)
		require.False(t, seen[canonical], "two accounts for %s", canonical)
		seen[canonical] = true
		require.True(t, text.SingleLine(name), "%q", name)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email LIKE '%pro@%'"), "repro@example.com has no look-alike")
	require.Zero(t, f.count(t, `SELECT count(*) FROM users a JOIN users b ON b.email_skeleton = a.email_skeleton AND b.id <> a.id
		WHERE a.email ~ '[^\x01-\x7f]'`), "no two accounts look alike (one skeleton, not both ASCII)")
	require.Zero(t, f.count(t, `SELECT count(*) FROM webhook_endpoints WHERE url ~ '[^!-~]'`), "webhook URLs are printable ASCII")
	// Every assignment that exists is whole: its cards and its event.
	require.Zero(t, f.count(t, `SELECT count(*) FROM assignments a WHERE
		(SELECT count(*) FROM deck_items di WHERE di.deck_id = a.deck_id) <>
		(SELECT count(*) FROM deck_items di JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = a.learner_id WHERE di.deck_id = a.deck_id)
		OR NOT EXISTS (SELECT 1 FROM outbox_events e WHERE e.topic = 'assignment.created' AND e.payload ->> 'assignment_id' = a.id::text)`))
}

// hostileTokens are Authorization values a forger or a broken client sends:
// none of them may authenticate.
func hostileTokens(t *testing.T, f fixture) []string {
	t.Helper()
	out := []string{"", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer not.a.jwt", "Bearer " + strings.Repeat("a", 5000),
		"Bearer \u202e" + strings.TrimPrefix(bearer(t, f.teacher), "Bearer ")}
	for _, tc := range []struct {
		sub, email string
		ttl        time.Duration
	}{
		{"", "repro@example.com", time.Hour},
		{"", "t@example.com", time.Hour},
		{"uid-x", "repro@example.com\u200b", time.Hour},
		{f.teacher.String(), "", -time.Minute},
		{strings.Repeat("u", 129), "repro@example.com", time.Hour},
	} {
		tok, err := auth.DevToken("lexora-dev", tc.sub, tc.email, tc.ttl)
		require.NoError(t, err)
		out = append(out, "Bearer "+tok)
	}
	other, err := auth.DevToken("other-project", f.teacher.String(), "", time.Hour)
	require.NoError(t, err)
	return append(out, "Bearer "+other, fmt.Sprintf("Bearer %s.%s", "eyJhbGciOiJub25lIn0", "e30."))
}

// TestHostileEmailSpellings: over HTTP, each spelling RFC 5321, 5322 or
// 6531 makes one mailbox with an enrolled address is that learner (409,
// already in the class); each spelling no provider issues is a 400 naming
// email with its reason; each look-alike of another account's address (one
// skeleton), a teacher's or an operator's too, is a 409 email-lookalike
// naming email that does not tell the role, for a teacher's add and a
// newcomer's own sign-in alike; and none of them changes a user,
// membership, assignment, card or outbox row. Accented addresses with no
// look-alike are new learners.
func TestHostileEmailSpellings(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "UPDATE classes SET join_code = 'DEMO2026' WHERE teacher_id = $1 RETURNING id", f.teacher).Scan(&class))
	f.operator(t) // ops@example.com
	enrol := func(email string) (int, map[string]any) {
		b, err := json.Marshal(map[string]string{"class_id": class.String(), "email": email})
		require.NoError(t, err)
		return f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.teacher, string(b))
	}
	for _, email := range []string{"repro@example.com", "pay@example.com"} {
		code, body := enrol(email)
		require.Equal(t, http.StatusCreated, code, body)
	}
	field := func(body map[string]any) any {
		errs, _ := body["errors"].([]any)
		if len(errs) == 0 {
			return nil
		}
		return errs[0].(map[string]any)["field"]
	}
	before := f.writes(t)
	for _, email := range []string{`"repro"@example.com`, `"REPRO"@EXAMPLE.COM`, `"re\pro"@example.com`, `"\r\e\p\r\o"@example.com`,
		"＂repro＂@example.com", "ｒｅｐｒｏ@ｅｘａｍｐｌｅ.ｃｏｍ", "repro@EXAMPLE.com"} {
		code, body := enrol(email)
		require.Equal(t, http.StatusConflict, code, "%s is repro@example.com: %v", email, body)
		require.Equal(t, httpx.TypeConflict, body["type"], email)
		require.Equal(t, before, f.writes(t), email)
	}
	// A reason of the text rules where the decoder's email check (validator's
	// "email": "must be an email address") lets the spelling reach them.
	for email, reason := range map[string]string{
		`"re pro"@example.com`: "needs no quotes", `"re@pro"@example.com`: "needs no quotes", `"re..pro"@example.com`: "needs no quotes",
		strings.Repeat("r", 65) + "@example.com": "64 bytes", "repro@" + strings.Repeat("e", 64) + ".com": "at most 63",
		`""@example.com`: "", `"re".pro@example.com`: "", `re."pro"@example.com`: "", "repro＠example.com": "", "repro@example\u3002com": "",
		"repro(x)@example.com": "", "(x)repro@example.com": "", "repro@example.com(x)": "", "re..pro@example.com": "", ".repro@example.com": "",
		"repro.@example.com": "", `re\pro@example.com`: "", "<repro@example.com>": "", "Repro <repro@example.com>": "",
		"repro@[192.0.2.1]": "", "repro@[IPv6:2001:db8::1]": "", "repro@192.0.2.1": "", "repro@example.com.": "",
	} {
		code, body := enrol(email)
		require.Equal(t, http.StatusBadRequest, code, "%s: %v", email, body)
		require.Equal(t, "email", field(body), email)
		if reason != "" {
			require.Contains(t, body["errors"].([]any)[0].(map[string]any)["reason"], reason, email)
		}
		require.Equal(t, before, f.writes(t), email)
	}
	lookalike := func(code int, body map[string]any, email string) {
		t.Helper()
		require.Equal(t, http.StatusConflict, code, "%s: %v", email, body)
		require.Equal(t, httpx.TypeEmailLookalike, body["type"], email)
		require.Equal(t, "email", field(body), email)
		require.NotContains(t, fmt.Sprint(body), "teacher", "the other account's role is not told")
		require.NotContains(t, fmt.Sprint(body), "operator", "the other account's role is not told")
		require.Equal(t, before, f.writes(t), email)
	}
	for _, email := range []string{"repr\u1ecd@example.com", "r\u00e9pro@example.com", "repro\u0301@example.com", "\u0440\u0430\u0443@example.com",
		"\u0163@example.com", "\u00f6ps@example.com", "l\u0331@example.com"} { // ţ: a teacher's t@; öps: the operator's ops@; ḻ: a learner's
		code, body := enrol(email)
		lookalike(code, body, email)
		// The same address as a newcomer's own verified email: creating a
		// class, and joining one by its code.
		rec := f.signedIn(t, "uid-"+email, email, "", `{"name":"Look-alike"}`)
		var out map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
		lookalike(rec.Code, out, email)
		rec = f.signedInTo(t, (*Service).EnrollLearner, auth.Claims{Subject: "uid-j-" + email, Email: email}, "", `{"join_code":"DEMO2026"}`)
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
		lookalike(rec.Code, out, email)
	}
	for _, email := range []string{"zo\u00eb@example.com", "jos\u00e9@example.com"} {
		code, body := enrol(email)
		require.Equal(t, http.StatusCreated, code, "%s has no look-alike: %v", email, body)
	}
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email = 'jos\u00e9@example.com'"))
}
