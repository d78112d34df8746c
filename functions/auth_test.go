package functions

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// Every write refuses an expired, forged or foreign token with a 401 and
// changes nothing.
func TestWritesRefuseBadTokensAndChangeNothing(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	card := f.cards(t)[0].String()
	token := func(project string, ttl time.Duration) string {
		tok, err := auth.DevToken(project, f.teacher.String(), "", ttl)
		require.NoError(t, err)
		return tok
	}
	valid := token("lexora-dev", time.Hour)
	forged := valid[:len(valid)-4] + strings.Repeat("A", 4)
	before := f.snapshot(t)
	for name, tok := range map[string]string{
		"expired": token("lexora-dev", -time.Hour), "forged": forged, "another project": token("someone-else", time.Hour),
	} {
		t.Run(name, func(t *testing.T) {
			for _, w := range []struct {
				fn   func(*Service, http.ResponseWriter, *http.Request)
				body string
			}{
				{(*Service).CreateAssignment, `{"class_id":"` + f.class.String() + `","deck_id":"` + f.deck.String() + `","due_at":"2026-04-20T18:00:00Z"}`},
				{(*Service).SubmitReview, `{"card_id":"` + card + `","rating":3}`},
				{(*Service).EnrollLearner, `{"join_code":"ABCD1234"}`},
				{(*Service).RegisterWebhookEndpoint, `{"url":"https://school.example/h"}`},
			} {
				req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(w.body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+tok)
				req.Header.Set(IdempotencyKeyHeader, "k-"+strings.ReplaceAll(name, " ", "-"))
				rec := httptest.NewRecorder()
				w.fn(f.svc, rec, req)
				require.Equal(t, http.StatusUnauthorized, rec.Code, "%s: %s", name, rec.Body.String())
				require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			}
		})
	}
	require.Equal(t, before, f.snapshot(t))
	require.Zero(t, f.count(t, "SELECT count(*) FROM idempotency_keys"))
	require.Zero(t, f.count(t, "SELECT count(*) FROM webhook_endpoints"))
}

// A client's first page load sends several requests with a fresh sign-in at
// once: every one of them is authenticated, and the account is linked once.
func TestConcurrentFirstSignInsAllSucceed(t *testing.T) {
	_, f := setup(t)
	pgtest.User(t, f.pool, "fresh@example.com", "Fresh", account.Learner, "UTC")
	tok, err := auth.DevToken("lexora-dev", "firebase-uid-fresh", "Fresh@Example.com", time.Hour)
	require.NoError(t, err)
	codes := make(chan int, 10)
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, "/GetProgress", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			f.svc.GetProgress(rec, req)
			codes <- rec.Code
		})
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		require.Equal(t, http.StatusOK, code)
	}
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE auth_subject = 'firebase-uid-fresh' AND email = 'fresh@example.com'"))
}

// A token without a subject never links an account, even with a verified
// email: otherwise every later subject-less token would sign in as it.
// Neither does a token whose email is a look-alike of the account's.
func TestTokensWithoutSubjectOrWithLookalikeEmailLinkNothing(t *testing.T) {
	_, f := setup(t)
	pgtest.User(t, f.pool, "repro@example.com", "Repro", account.Learner, "UTC")
	for _, tc := range []struct{ name, sub, email string }{
		{"no subject", "", "repro@example.com"},
		{"a zero-width space after the email", "uid-lookalike", "repro@example.com\u200b"},
		{"a right-to-left override before the email", "uid-lookalike", "\u202erepro@example.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok, err := auth.DevToken("lexora-dev", tc.sub, tc.email, time.Hour)
			require.NoError(t, err)
			req := httptest.NewRequest(http.MethodGet, "/GetProgress", nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			rec := httptest.NewRecorder()
			f.svc.GetProgress(rec, req)
			require.Equal(t, http.StatusUnauthorized, rec.Code, "%q %q", tc.sub, tc.email)
			require.Equal(t, 1, f.count(t, "SELECT count(*) FROM users WHERE email = 'repro@example.com' AND auth_subject IS NULL"))
		})
	}
}
