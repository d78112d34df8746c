package functions

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// keyed submits a review with an Idempotency-Key.
func (f fixture) keyed(t *testing.T, key string, actor uuid.UUID, body string) *httptest.ResponseRecorder {
	t.Helper()
	return f.keyedCall(t, (*Service).SubmitReview, key, actor, body)
}

// keyedCall POSTs body to h as actor with an Idempotency-Key.
func (f fixture) keyedCall(t *testing.T, h func(*Service, http.ResponseWriter, *http.Request), key string, actor uuid.UUID, body string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	h(f.svc, rec, keyedRequest(t, key, actor, body))
	return rec
}

// keyedRequest is a POST of body as actor with an Idempotency-Key.
func keyedRequest(t *testing.T, key string, actor uuid.UUID, body string) *http.Request {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", bearer(t, actor))
	req.Header.Set(IdempotencyKeyHeader, key)
	return req
}

func TestIdempotencyKeyMakesARetryHarmless(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	cards := f.cards(t)
	body := `{"card_id":"` + cards[0].String() + `","rating":3}`

	first := f.keyed(t, "review-1", f.learner, body)
	require.Equal(t, http.StatusOK, first.Code, first.Body.String())
	after := f.snapshot(t)
	retry := f.keyed(t, "review-1", f.learner, body)
	require.Equal(t, http.StatusOK, retry.Code)
	require.Equal(t, first.Body.String(), retry.Body.String(), "the same response")
	require.Equal(t, "true", retry.Header().Get("Idempotent-Replayed"))
	require.Equal(t, after, f.snapshot(t), "nothing done again")

	other := f.keyed(t, "review-1", f.learner, `{"card_id":"`+cards[1].String()+`","rating":3}`)
	require.Equal(t, http.StatusUnprocessableEntity, other.Code, other.Body.String())
	require.Equal(t, after, f.snapshot(t))

	// The key is the learner's own: another user's same key is another request.
	require.Equal(t, http.StatusNotFound, f.keyed(t, "review-1", f.otherLearner, body).Code)

	for _, bad := range []string{strings.Repeat("k", 256), "with space", "é"} {
		require.Equal(t, http.StatusBadRequest, f.keyed(t, bad, f.learner, body).Code, bad)
	}
	twice := httptest.NewRequest(http.MethodPost, "/SubmitReview", strings.NewReader(body))
	twice.Header.Set("Content-Type", "application/json")
	twice.Header.Set("Authorization", bearer(t, f.learner))
	twice.Header.Add(IdempotencyKeyHeader, "a1")
	twice.Header.Add(IdempotencyKeyHeader, "a2")
	rec := httptest.NewRecorder()
	f.svc.SubmitReview(rec, twice)
	require.Equal(t, http.StatusBadRequest, rec.Code, "two keys in one request")
	// A failed request leaves no key behind: fixing the body succeeds.
	require.Equal(t, http.StatusBadRequest, f.keyed(t, "review-2", f.learner, `{"card_id":"`+cards[1].String()+`","rating":9}`).Code)
	require.Equal(t, http.StatusOK, f.keyed(t, "review-2", f.learner, `{"card_id":"`+cards[1].String()+`","rating":3}`).Code)
	require.Equal(t, 2, f.count(t, "SELECT count(*) FROM review_log"))
}

func TestConcurrentRetriesWithOneKeyCommitOnce(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	body := `{"card_id":"` + f.cards(t)[0].String() + `","rating":4}`
	// The requests are built here and checked after Wait: only the test's
	// own goroutine may fail it.
	reqs := make([]*http.Request, 10)
	recs := make([]*httptest.ResponseRecorder, len(reqs))
	for i := range reqs {
		reqs[i], recs[i] = keyedRequest(t, "flaky-network", f.learner, body), httptest.NewRecorder()
	}
	var wg sync.WaitGroup
	for i := range reqs {
		wg.Go(func() { f.svc.SubmitReview(recs[i], reqs[i]) })
	}
	wg.Wait()
	for _, rec := range recs {
		require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
		require.Equal(t, recs[0].Body.String(), rec.Body.String())
	}
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM review_log"))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = 'review.submitted'"))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM idempotency_keys"))
}
