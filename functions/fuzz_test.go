package functions

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fuzzWrite sends arbitrary bodies to a write function against a real
// database: no body may get a 5xx, and a rejected one changes nothing.
func fuzzWrite(f *testing.F, fx fixture, fn func(*Service, http.ResponseWriter, *http.Request), actor string, seeds []string) {
	for _, seed := range seeds {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		before := fx.snapshot(t)
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", actor)
		rec := httptest.NewRecorder()
		fn(fx.svc, rec, req)
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

// The fuzzers below run their seeds in `go test`; `make test` fuzzes each
// for a bounded time.

func FuzzSubmitReview(f *testing.F) {
	fx := newFixture(f)
	fx.assign(f)
	card := fx.cards(f)[0].String()
	fuzzWrite(f, fx, (*Service).SubmitReview, bearer(f, fx.learner), []string{
		`{"card_id":"` + card + `","rating":3}`, `{"card_id":"` + card + `","rating":0}`, `{"card_id":"` + card + `"}`,
		`{"rating":3}`, `{"card_id":"` + card + `","rating":"good"}`, `{"card_id":"` + card + `","rating":2.5}`,
		`{"card_id":"` + card + `","rating":3,"x":1}`, `{"card_id":`, `{"card_id":"not-a-uuid","rating":3}`,
		`{"card_id":"` + card + `","rating":3}{}`, ``, `[]`, `{"card_id":"a\u0000","rating":1}`, `{"Card_ID":"` + card + `","rating":3}`,
	})
}

func FuzzCreateAssignment(f *testing.F) {
	fx := newFixture(f)
	class, learner, deck := fx.class.String(), fx.learner.String(), fx.deck.String()
	fuzzWrite(f, fx, (*Service).CreateAssignment, bearer(f, fx.teacher), []string{
		`{"class_id":"` + class + `","deck_id":"` + deck + `","due_at":"2026-03-20T18:00:00Z"}`,
		`{"class_id":"` + class + `","learner_id":"` + learner + `","deck_id":"` + deck + `","due_at":"2026-03-20T18:00:00Z"}`,
		`{"class_id":"` + class + `","deck_id":"` + deck + `","due_at":"9999-12-31T23:59:59-23:59"}`,
		`{"class_id":"` + class + `","deck_id":"` + deck + `","due_at":17}`, `{"learner_id":"` + learner + `"}`,
		`{"class_id":"` + class + `","deck_id":"` + deck + `","due_at":"2026-03-20"}`, `{}`, `null`, `{"x":1}`,
		`{"class_id":"` + class + `","learner_id":"","deck_id":"` + deck + `","due_at":"2026-03-20T18:00:00Z"}`,
		`{"class_id":"` + class + `","learner_id":null,"deck_id":"` + deck + `","due_at":"2026-03-20T18:00:00Z"}`,
	})
}

func FuzzEnrollLearner(f *testing.F) {
	fx := newFixture(f)
	var class string
	if err := fx.pool.QueryRow(f.Context(), "SELECT id FROM classes WHERE teacher_id = $1", fx.teacher).Scan(&class); err != nil {
		f.Fatal(err)
	}
	fuzzWrite(f, fx, (*Service).EnrollLearner, bearer(f, fx.teacher), []string{
		`{"class_id":"` + class + `","email":"new@example.com"}`, `{"class_id":"` + class + `","email":"bad"}`,
		`{"class_id":"` + class + `","email":"a@b.co","timezone":"Mars/Olympus"}`, `{"join_code":"ABCD"}`,
		`{"class_id":"` + class + `","email":"a@b.co","display_name":"a\u0000b"}`, `{}`, `{"class_id":1}`,
		`{"class_id":"` + class + `","email":"\u202el@example.com"}`, `{"class_id":"` + class + `","email":"l@example.com\u200b"}`,
		`{"class_id":"` + class + `","email":"new@example.com","display_name":"a\u2028b"}`, `[{"class_id":"` + class + `"}]`,
	})
}
