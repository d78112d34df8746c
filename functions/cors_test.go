package functions

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCORSAllowsOnlyTheWebClientsOrigin(t *testing.T) {
	t.Parallel()
	const app = "https://app.lexora.app"
	preflight := func(origin string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodOptions, "/SubmitReview", nil)
		r.Header.Set("Origin", origin)
		r.Header.Set("Access-Control-Request-Method", "POST")
		w := httptest.NewRecorder()
		require.True(t, cors(w, r, app))
		return w
	}
	w := preflight(app)
	require.Equal(t, http.StatusNoContent, w.Code)
	require.Equal(t, app, w.Header().Get("Access-Control-Allow-Origin"))
	require.Contains(t, w.Header().Get("Access-Control-Allow-Headers"), "Idempotency-Key")

	w = preflight("https://evil.example")
	require.Equal(t, http.StatusForbidden, w.Code)
	require.Equal(t, "application/problem+json", w.Header().Get("Content-Type"))
	require.Empty(t, w.Header().Get("Access-Control-Allow-Origin"))

	r := httptest.NewRequest(http.MethodPost, "/SubmitReview", nil)
	r.Header.Set("Origin", app)
	w = httptest.NewRecorder()
	require.False(t, cors(w, r, app), "the actual request goes on")
	require.Equal(t, app, w.Header().Get("Access-Control-Allow-Origin"))
	exposed := strings.Split(w.Header().Get("Access-Control-Expose-Headers"), ", ")
	// Date is not CORS-safelisted: without it the client cannot read the
	// server's clock, which corrects a fast device clock's reviewed_at.
	require.Subset(t, exposed, []string{"Date", "Idempotent-Replayed", "Retry-After"})

	r.Header.Set("Origin", "https://evil.example")
	w = httptest.NewRecorder()
	require.False(t, cors(w, r, app))
	require.Empty(t, w.Header().Get("Access-Control-Allow-Origin"), "other origins get no CORS headers")
}
