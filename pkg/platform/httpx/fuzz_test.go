package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzDecodeJSON: whatever the body, DecodeJSON either accepts it (and the
// result validates) or answers a 4xx problem; it never panics or answers 5xx.
// `make test` runs it for a bounded time.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{
		`{"name":"ab","rating":2}`, `{"name":"ab","rating":0}`, `{"name":"ab"}`, `{"name":"ab","rating":2.5}`,
		`{"name":7,"rating":2}`, `{"name":"ab","rating":2,"extra":1}`, `{"name":"ab",`, `{} {}`, ``, `null`, `[]`,
		`{"name":"a\u0000b","rating":2}`, `{"rating":99999999999999999999}`, `"str"`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(raw))
		r.Header.Set("Content-Type", "application/json")
		var b body
		err := DecodeJSON(r, &b)
		if err == nil {
			if b.Name == "" || b.Rating == nil || *b.Rating < 1 || *b.Rating > 4 {
				t.Fatalf("accepted an invalid request %q: %+v", raw, b)
			}
			return
		}
		p, ok := err.(*Problem)
		if !ok || p.Status < 400 || p.Status >= 500 {
			t.Fatalf("body %q: want a 4xx problem, got %v", raw, err)
		}
	})
}
