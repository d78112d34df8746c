package functions

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzSubmitReview sends arbitrary bodies to SubmitReview against a real
// database: no body may get a 5xx, and a rejected one changes nothing.
// `make test` runs it for a bounded time; `go test` runs the seeds.
func FuzzSubmitReview(f *testing.F) {
	fx := setup(f)
	fx.assign(f)
	card := fx.cards(f)[0].String()
	for _, seed := range []string{
		`{"card_id":"` + card + `","rating":3}`, `{"card_id":"` + card + `","rating":0}`, `{"card_id":"` + card + `"}`,
		`{"rating":3}`, `{"card_id":"` + card + `","rating":"good"}`, `{"card_id":"` + card + `","rating":2.5}`,
		`{"card_id":"` + card + `","rating":3,"x":1}`, `{"card_id":`, `{"card_id":"not-a-uuid","rating":3}`,
		`{"card_id":"` + card + `","rating":3}{}`, ``, `[]`, `{"card_id":"a\u0000","rating":1}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		before := fx.snapshot(t)
		req := httptest.NewRequest(http.MethodPost, "/SubmitReview", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", bearer(t, fx.learner))
		rec := httptest.NewRecorder()
		fx.svc.SubmitReview(rec, req)
		switch {
		case rec.Code >= 500:
			t.Fatalf("body %q: %d %s", body, rec.Code, rec.Body.String())
		case rec.Code >= 400:
			if after := fx.snapshot(t); !maps.Equal(before, after) {
				t.Fatalf("body %q was rejected (%d) but changed the database: %v -> %v", body, rec.Code, before, after)
			}
		}
	})
}
