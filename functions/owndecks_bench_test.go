package functions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// BenchmarkImportWhileReviewing measures issue 26's import: a teacher's
// ImportDeckEntries of decks.MaxEntries (2,000) entries into a deck
// assigned to a class of 35 learners (70,000 cards written in the
// request's transaction), while the 35 learners keep calling SubmitReview,
// each on a card of their own, with ratings Hard, Good and Easy in turn.
// The handlers are called in-process (no network); the reviews have a pool
// of 8 connections, as SubmitReview's 4 instances of 2 have, and the import
// a pool of 2, as its one instance (an authoring function) has.
//
// In one run: 10 s of reviews alone (the baseline), then reviews while the
// import runs, from its start to its commit. It reports import_ms (the
// request, which is also when the learners' cards appear: they commit with
// it), cards/op, the reviews' p50 and p99 (ms) in each phase and
// x_p99 (during/baseline; the goal is at most 2), and max_lock_wait_ms: the
// longest a review was seen waiting on a lock (pg_stat_activity sampled
// every 5 ms during the import; the goal is at most 100). Run with
// go test -run '^$' -bench ImportWhileReviewing -benchtime 1x ./functions.
func BenchmarkImportWhileReviewing(b *testing.B) {
	const learners = 35
	ctx := context.Background()
	pool := pgtest.New(b)
	service := func(conns int32) *Service {
		cfg, err := pgxpool.ParseConfig(pgtest.URL(pool))
		require.NoError(b, err)
		cfg.MaxConns = conns
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		require.NoError(b, err)
		b.Cleanup(p.Close)
		svc, err := NewService(p, devVerifier(b), clock.System{}, slog.New(slog.DiscardHandler))
		require.NoError(b, err)
		return svc
	}
	reviews, authoring := service(8), service(2)
	do := func(svc *Service, h func(*Service, http.ResponseWriter, *http.Request), actor uuid.UUID, body string) (int, string) {
		req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", bearer(b, actor))
		rec := httptest.NewRecorder()
		h(svc, rec, req)
		return rec.Code, rec.Body.String()
	}

	teacher := pgtest.User(b, pool, "t@example.com", "T", account.Teacher, "UTC")
	members := make([]uuid.UUID, learners)
	for i := range members {
		members[i] = pgtest.User(b, pool, fmt.Sprintf("l%d@example.com", i), "L", account.Learner, "UTC")
	}
	_, err := pool.Exec(ctx, "UPDATE users SET auth_subject = id::text")
	require.NoError(b, err)
	var class uuid.UUID
	require.NoError(b, pool.QueryRow(ctx, `WITH c AS (INSERT INTO classes (teacher_id, name) VALUES ($1, 'C') RETURNING id),
		m AS (INSERT INTO class_members (class_id, learner_id) SELECT c.id, l FROM c, unnest($2::uuid[]) l) SELECT id FROM c`,
		teacher, members).Scan(&class))
	assign := func(deck string) {
		code, body := do(authoring, (*Service).CreateAssignment, teacher,
			`{"class_id":"`+class.String()+`","deck_id":"`+deck+`","due_at":"`+time.Now().Add(7*24*time.Hour).UTC().Format(time.RFC3339)+`"}`)
		require.Equal(b, http.StatusCreated, code, body)
	}
	create := func(title string, entries int) string {
		in := make([]map[string]string, entries)
		for i := range in {
			in[i] = map[string]string{"term": fmt.Sprintf("%s %d", title, i), "meaning": "a word to review"}
		}
		fields := map[string]any{"title": title, "term_language": "es", "meaning_language": "en"}
		if entries > 0 {
			fields["entries"] = in
		}
		body, err := json.Marshal(fields)
		require.NoError(b, err)
		code, out := do(authoring, (*Service).CreateDeck, teacher, string(body))
		require.Equal(b, http.StatusCreated, code, out)
		var d struct{ Deck struct{ ID string } }
		require.NoError(b, json.Unmarshal([]byte(out), &d))
		return d.Deck.ID
	}
	// The cards the learners review: a deck of 200 words, assigned.
	assign(create("review", 200))
	cards := make([][]uuid.UUID, learners)
	for i, l := range members {
		cards[i] = pgtest.Column[uuid.UUID](b, pool, "SELECT id FROM cards WHERE learner_id = $1 ORDER BY id", l)
	}
	var list bytes.Buffer
	for i := range decks.MaxEntries {
		fmt.Fprintf(&list, "palabra %d\tword number %d of the list\n", i, i)
	}

	// review runs the learners' reviews until stop is closed, and answers
	// each one's start and latency; within picks those that started in
	// [from, to).
	type sample struct {
		start time.Time
		took  time.Duration
	}
	review := func(stop <-chan struct{}) []sample {
		var mu sync.Mutex
		var out []sample
		var wg sync.WaitGroup
		for i, l := range members {
			wg.Go(func() {
				for k := 0; ; k++ {
					select {
					case <-stop:
						return
					default:
					}
					body := fmt.Sprintf(`{"card_id":"%s","rating":%d}`, cards[i][k%len(cards[i])], 2+k%3)
					start := time.Now()
					code, resp := do(reviews, (*Service).SubmitReview, l, body)
					took := time.Since(start)
					if code != http.StatusOK {
						b.Errorf("review: %d %s", code, resp)
						return
					}
					mu.Lock()
					out = append(out, sample{start, took})
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		return out
	}
	within := func(ss []sample, from, to time.Time) []time.Duration {
		var out []time.Duration
		for _, s := range ss {
			if !s.start.Before(from) && s.start.Before(to) {
				out = append(out, s.took)
			}
		}
		return out
	}

	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		target := create(fmt.Sprintf("import %d", i), 0)
		assign(target)
		b.StartTimer()

		stop := make(chan struct{})
		done := make(chan []sample)
		go func() { done <- review(stop) }()
		baselineFrom := time.Now()
		time.Sleep(10 * time.Second)
		baselineTo := time.Now()

		var maxWait atomic.Int64 // microseconds
		sampled := make(chan struct{})
		importDone := make(chan struct{})
		go func() {
			defer close(sampled)
			for {
				select {
				case <-importDone:
					return
				case <-time.After(5 * time.Millisecond):
				}
				var us int64
				var waiter string
				err := pool.QueryRow(ctx, `SELECT (extract(epoch FROM clock_timestamp() - a.query_start) * 1e6)::bigint,
						a.wait_event || ': ' || left(a.query, 100) || ' <- ' || coalesce((SELECT left(h.query, 100) FROM pg_stat_activity h
							WHERE h.pid = (pg_blocking_pids(a.pid))[1]), '?')
					FROM pg_stat_activity a WHERE a.wait_event_type = 'Lock' AND a.datname = current_database()
					ORDER BY 1 DESC LIMIT 1`).Scan(&us, &waiter)
				if err == nil && us > maxWait.Load() {
					maxWait.Store(us)
					b.Logf("lock wait of %d ms: %s", us/1000, waiter)
				}
			}
		}()
		body, err := json.Marshal(map[string]any{"deck_id": target, "text": list.String()})
		require.NoError(b, err)
		importFrom := time.Now()
		code, out := do(authoring, (*Service).ImportDeckEntries, teacher, string(body))
		importTo := time.Now()
		close(importDone)
		<-sampled
		close(stop)
		samples := <-done
		require.Equal(b, http.StatusOK, code, out)
		var res struct {
			Result struct {
				CardsCreated int `json:"cards_created"`
			}
		}
		require.NoError(b, json.Unmarshal([]byte(out), &res))
		require.Equal(b, learners*decks.MaxEntries, res.Result.CardsCreated)

		base, during := percentiles(within(samples, baselineFrom, baselineTo)), percentiles(within(samples, importFrom, importTo))
		b.ReportMetric(float64(importTo.Sub(importFrom).Milliseconds()), "import_ms")
		b.ReportMetric(float64(res.Result.CardsCreated), "cards/op")
		b.ReportMetric(base["p50"], "baseline_p50_ms")
		b.ReportMetric(base["p99"], "baseline_p99_ms")
		b.ReportMetric(during["p50"], "during_p50_ms")
		b.ReportMetric(during["p99"], "during_p99_ms")
		b.ReportMetric(during["p99"]/base["p99"], "x_p99")
		b.ReportMetric(float64(len(within(samples, importFrom, importTo))), "reviews_during")
		b.ReportMetric(float64(maxWait.Load())/1000, "max_lock_wait_ms")
	}
}
