package functions

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/auth"
)

// TestResponsesMatchTheOpenAPIDocument calls every function, successfully
// and not, over HTTP, and validates each response against openapi.yaml.
func TestResponsesMatchTheOpenAPIDocument(t *testing.T) {
	spec, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	doc, err := libopenapi.NewDocument(spec)
	require.NoError(t, err)
	v, errs := validator.NewValidator(doc)
	require.Empty(t, errs)
	ok, docErrs := v.ValidateDocument()
	require.True(t, ok, "%v", docErrs)

	ctx, f := setup(t)
	op := f.operator(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT id FROM classes WHERE teacher_id = $1", f.teacher).Scan(&class))
	mux := http.NewServeMux()
	for name, fn := range Functions {
		mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) { fn(f.svc, w, r) })
	}
	srv := httptest.NewServer(mux)
	defer srv.Close()

	seen := map[string]map[int]bool{}
	send := func(method, path, authz, body string) map[string]any {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		raw, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		resp.Body = io.NopCloser(bytes.NewReader(raw))
		check, err := http.NewRequest(method, "http://localhost"+path, strings.NewReader(body))
		require.NoError(t, err)
		check.Header = req.Header.Clone()
		valid, verrs := v.ValidateHttpResponse(check, resp)
		msgs := []string{}
		for _, e := range verrs {
			msgs = append(msgs, e.Message+": "+e.Reason)
			for _, s := range e.SchemaValidationErrors {
				msgs = append(msgs, "  "+s.Reason+" at "+s.FieldPath)
			}
		}
		require.True(t, valid, "%s %s -> %d %s\n%s", method, path, resp.StatusCode, raw, strings.Join(msgs, "\n"))
		op := strings.SplitN(strings.TrimPrefix(path, "/"), "?", 2)[0]
		if seen[op] == nil {
			seen[op] = map[int]bool{}
		}
		seen[op][resp.StatusCode] = true
		out := map[string]any{}
		_ = json.Unmarshal(raw, &out)
		return out
	}
	call := func(method, path string, actor uuid.UUID, body string) map[string]any {
		t.Helper()
		return send(method, path, bearer(t, actor), body)
	}

	assigned := call("POST", "/CreateAssignment", f.teacher, `{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	a := map[string]any{"id": assignmentID(t, assigned).String()}
	call("POST", "/CreateAssignment", f.teacher, `{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	call("POST", "/CreateAssignment", f.teacher, `{"learner_id":"x"}`)
	call("POST", "/EnrollLearner", f.teacher, `{"class_id":"`+class.String()+`","email":"new@example.com"}`)
	call("POST", "/EnrollLearner", f.teacher, `{"class_id":"`+class.String()+`","email":"l2@example.com"}`)
	call("POST", "/EnrollLearner", f.teacher, `{}`)
	call("POST", "/CreateClass", f.teacher, `{"name":"Evening class"}`)
	call("POST", "/CreateClass", f.teacher, `{"name":""}`)
	call("POST", "/SetNewCardsPerDay", f.teacher, `{"class_id":"`+class.String()+`","new_cards_per_day":12}`)
	call("POST", "/SetNewCardsPerDay", f.teacher, `{"class_id":"`+class.String()+`","new_cards_per_day":-1}`)
	call("POST", "/SetNewCardsPerDay", f.otherTeacher, `{"class_id":"`+class.String()+`","new_cards_per_day":12}`)
	tok, err := auth.DevToken("lexora-dev", "own-uid", "own@example.com", time.Hour)
	require.NoError(t, err)
	send("POST", "/CreateLearnerAccount", "Bearer "+tok, `{"timezone":"Europe/Paris"}`)
	send("POST", "/CreateLearnerAccount", "Bearer "+tok, `{}`)
	call("POST", "/CreateLearnerAccount", f.teacher, `{}`)
	call("GET", "/ListClasses", f.teacher, "")
	call("GET", "/ListClasses", f.learner, "")
	var library uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "INSERT INTO decks (title, level) VALUES ('Library', 1) RETURNING id").Scan(&library))
	call("GET", "/ListDecks", f.teacher, "")
	call("GET", "/ListDecks", f.learner, "")
	call("POST", "/StartDeck", f.learner, `{"deck_id":"`+library.String()+`"}`)
	call("POST", "/StartDeck", f.learner, `{"deck_id":"`+library.String()+`"}`)
	call("POST", "/StartDeck", f.learner, `{"deck_id":"`+f.deck.String()+`"}`)
	call("POST", "/StartDeck", f.learner, `{}`)
	call("GET", "/Me", f.learner, "")
	call("GET", "/Me", f.teacher, "")
	call("GET", "/Me", op, "")
	call("GET", "/Me", uuid.New(), "")
	call("GET", "/Me", uuid.Nil, "")
	call("GET", "/GetClassProgress?class_id="+class.String(), f.teacher, "")
	_, err = f.pool.Exec(ctx, `WITH p AS (INSERT INTO assignment_progress (assignment_id, learner_id, cards_total, reviews) VALUES ($1, $2, 3, 1)),
		d AS (INSERT INTO assignment_daily_reviews (assignment_id, day, reviews) VALUES ($1, '2026-03-02', 1))
		UPDATE cards SET lapses = 1 WHERE learner_id = $2`, a["id"], f.learner)
	require.NoError(t, err)
	call("GET", "/GetClassProgress?class_id="+class.String(), f.teacher, "")
	call("GET", "/GetClassProgress", f.teacher, "")
	s := call("GET", "/GetSchedule?assignment_id="+a["id"].(string), f.learner, "")
	call("GET", "/GetSchedule?days=0", f.learner, "")
	card := s["due"].([]any)[0].(map[string]any)["card_id"].(string)
	call("POST", "/SubmitReview", f.learner, `{"card_id":"`+card+`","rating":3}`)
	call("POST", "/UndoReview", f.learner, `{"card_id":"`+card+`"}`)
	call("POST", "/UndoReview", f.learner, `{"card_id":"`+card+`"}`)
	call("POST", "/UndoReview", f.learner, `{"card_id":"`+uuid.NewString()+`"}`)
	call("POST", "/UndoReview", f.learner, `{"card_id":"`+card+`","review_id":0}`)
	call("POST", "/SubmitReview", f.learner, `{"card_id":"`+uuid.NewString()+`","rating":3}`)
	call("POST", "/SubmitReview", uuid.Nil, `{"card_id":"`+card+`","rating":3}`)
	call("GET", "/GetProgress", f.learner, "")
	call("POST", "/SetDeckRetention", f.teacher, `{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","desired_retention":0.85}`)
	call("POST", "/SetDeckRetention", f.teacher, `{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","desired_retention":0.96}`)
	call("GET", "/GetDeckWorkload?class_id="+f.class.String()+"&deck_id="+f.deck.String(), f.teacher, "")
	call("GET", "/GetDeckWorkload?class_id="+f.class.String(), f.teacher, "")
	ep := call("POST", "/RegisterWebhookEndpoint", f.teacher, `{"url":"https://school.example/hooks"}`)
	call("POST", "/RegisterWebhookEndpoint", f.teacher, `{"url":"http://insecure.example"}`)
	call("GET", "/ListWebhookEndpoints", f.teacher, "")
	call("POST", "/RotateWebhookSecret", f.teacher, `{"id":"`+ep["id"].(string)+`","revoke_previous":false}`)
	call("POST", "/EnableWebhookEndpoint", f.teacher, `{"id":"`+ep["id"].(string)+`"}`)
	call("POST", "/DeleteWebhookEndpoint", f.teacher, `{"id":"`+ep["id"].(string)+`"}`)
	call("POST", "/DeleteWebhookEndpoint", f.teacher, `{"id":"`+ep["id"].(string)+`"}`)
	newcomer := call("POST", "/EnrollLearner", f.teacher, `{"class_id":"`+class.String()+`","email":"chores@example.com"}`)
	member := `"class_id":"` + class.String() + `","learner_id":"` + newcomer["learner_id"].(string) + `"`
	call("POST", "/SetLearnerName", f.teacher, `{`+member+`,"display_name":"Chores"}`)
	call("POST", "/SetLearnerName", f.teacher, `{`+member+`,"display_name":""}`)
	call("POST", "/RemoveLearner", f.teacher, `{`+member+`}`)
	call("POST", "/RemoveLearner", f.teacher, `{`+member+`}`)
	call("POST", "/UpdateClass", f.teacher, `{"class_id":"`+class.String()+`","name":"Renamed","archived":true}`)
	call("POST", "/UpdateClass", f.teacher, `{"class_id":"`+class.String()+`"}`)
	call("POST", "/NewJoinCode", f.teacher, `{"class_id":"`+class.String()+`"}`)
	call("POST", "/UpdateClass", f.teacher, `{"class_id":"`+class.String()+`","archived":false}`)
	call("POST", "/NewJoinCode", f.teacher, `{"class_id":"`+class.String()+`"}`)
	call("GET", "/ListClasses", f.teacher, "")
	call("GET", "/OutboxHealth", op, "")
	call("GET", "/ListDeadLetters", op, "")
	call("POST", "/ReplayDeadLetters", op, `{"all":true,"reason":"test"}`)
	call("POST", "/ReplayDeadLetters", op, `{"all":true}`)
	call("POST", "/SkipDeadLetters", op, `{"all":true,"reason":"test"}`)
	created := call("POST", "/CreateDeck", f.teacher, `{"title":"Unit 3","term_language":"es","meaning_language":"en","entries":[{"term":"gato","meaning":"cat"}]}`)
	own := created["deck"].(map[string]any)["id"].(string)
	gato := created["entries"].([]any)[0].(map[string]any)["id"].(string)
	call("POST", "/CreateDeck", f.teacher, `{"title":"Unit 3","term_language":"es","meaning_language":"en"}`)
	call("POST", "/CreateDeck", f.teacher, `{"title":"Big","term_language":"es","meaning_language":"en","entries":[`+
		strings.TrimSuffix(strings.Repeat(`{"term":"x","meaning":"y"},`, 2001), ",")+`]}`)
	call("GET", "/ListOwnDecks", f.teacher, "")
	call("GET", "/ListOwnDecks?archived=maybe", f.teacher, "")
	call("GET", "/GetDeck?deck_id="+own, f.teacher, "")
	call("GET", "/GetDeck?deck_id="+own, f.otherTeacher, "")
	call("POST", "/CopyDeck", f.teacher, `{"source_id":"`+own+`"}`)
	call("POST", "/CopyDeck", f.teacher, `{"source_id":"`+uuid.NewString()+`"}`)
	call("POST", "/UpdateDeck", f.teacher, `{"deck_id":"`+own+`","version":1,"title":"Unit 3: animals","term_language":"es","meaning_language":"en"}`)
	call("POST", "/UpdateDeck", f.teacher, `{"deck_id":"`+own+`","version":1,"title":"Unit 3","term_language":"es","meaning_language":"en"}`)
	call("POST", "/EditDeckEntries", f.teacher, `{"deck_id":"`+own+`","add":[{"term":"perro","meaning":"dog"}],"change":[{"id":"`+gato+`","version":1,"term":"gato","meaning":"a cat"}]}`)
	call("POST", "/EditDeckEntries", f.teacher, `{"deck_id":"`+own+`","change":[{"id":"`+gato+`","version":1,"term":"gato","meaning":"kitty"}]}`)
	call("POST", "/ReorderDeckEntries", f.teacher, `{"deck_id":"`+own+`","version":2,"order":["`+gato+`"]}`)
	call("POST", "/PreviewDeckImport", f.teacher, `{"deck_id":"`+own+`","text":"term,meaning\ngato,cat\nfox,\"zorro\n"}`)
	call("POST", "/PreviewDeckImport", f.teacher, `{"text":""}`)
	call("POST", "/ImportDeckEntries", f.teacher, `{"deck_id":"`+own+`","text":"pez\tfish\n\tno term","leave_out_refused":true}`)
	call("POST", "/ImportDeckEntries", f.teacher, `{"deck_id":"`+own+`","text":"ave\tbird\n\tno term"}`)
	call("GET", "/ExportDeck?deck_id="+own, f.teacher, "")
	call("GET", "/ExportDeck", f.teacher, "")
	call("GET", "/ExportClassProgress?class_id="+class.String(), f.teacher, "")
	call("GET", "/ExportClassProgress?class_id="+uuid.NewString(), f.teacher, "")
	call("POST", "/ArchiveDeck", f.teacher, `{"deck_id":"`+own+`","archived":true}`)
	call("POST", "/ArchiveDeck", f.teacher, `{"deck_id":"`+own+`","archived":false}`)
	call("POST", "/DeleteDeck", f.teacher, `{"deck_id":"`+f.deck.String()+`"}`)
	call("POST", "/DeleteDeck", f.teacher, `{"deck_id":"`+own+`"}`)
	call("GET", "/LookupLibraryTerm?term=cat", f.teacher, "")
	call("GET", "/LookupLibraryTerm", f.teacher, "")
	for name := range Functions {
		require.NotEmpty(t, seen[name], "%s was not checked against the document", name)
	}
}
