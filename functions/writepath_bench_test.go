package functions

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/testkit/mailpit"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// BenchmarkWritePath measures what a learner waits for: SubmitReview over
// HTTP (loopback, a real server, the development token checked on every
// request), each client a learner of its own reviewing its cards with
// ratings Hard, Good and Easy in turn, at 1, 8 and 32 clients, in five
// designs:
//
//   - outbox: Lexora as deployed (the events and their deliveries in the
//     review's transaction; after the commit, the wake-up hint asked of an
//     outbox.Waker, which sends it outside the request);
//   - intx: the hint as it was sent before, inside the review's
//     transaction (its connections set lexora.bench_notify, and an AFTER
//     INSERT statement trigger on outbox_events then calls pg_notify: the
//     same lock at commit, one round trip fewer than the old statement);
//   - nohint: the outbox without the wake-up hint (OUTBOX_WAKEUP=false);
//   - nooutbox: the same transaction whose enqueue writes nothing (its
//     connections set lexora.bench_drop, and a BEFORE INSERT trigger on
//     outbox_events then returns NULL, so neither the event nor its
//     deliveries are written; the statement's round trip stays), no hint;
//   - naive: nooutbox, then the email (SMTP to mailpit) and the webhook (a
//     signed POST to a local receiver) sent inside the request before the
//     answer, as a design without an outbox would.
//
// Latency: for 15 s every client sends its k-th request to the k-th design
// in turn, so the four share every moment of a noisy machine; reported per
// design as p50, p90, p99, p99.9 (ms); x_outbox_p50 is outbox/nooutbox at
// the median (the goal is at most 1.10), x_intx_p50 intx/nooutbox (before
// the hint moved out of the transaction), x_nohint_p50 nohint/nooutbox.
// Throughput (requests/s): each design alone for 2 s, in one order and
// then in reverse. At every client count it then measures the naive design
// with its sinks down (SMTP refused, the receiver gone): naivedown_lost
// counts the consequences lost (the review committed, its email or webhook
// never sent); and at 1 client with a receiver that hangs 2 s
// (naiveslow_p50_ms). Before all that it reports the WAL one review writes
// with and without the outbox (outbox_wal_bytes/review,
// nooutbox_wal_bytes/review; 200 Good reviews each, one client), which,
// unlike latency, a busy machine does not blur. `chaos charts` draws the
// percentiles.
func BenchmarkWritePath(b *testing.B) {
	ctx := context.Background()
	pool := pgtest.New(b)
	_, err := seed.Load(ctx, pool, clock.System{})
	require.NoError(b, err)
	_, err = pool.Exec(ctx, `
CREATE FUNCTION bench_drop_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('lexora.bench_drop', true) = 'on' THEN RETURN NULL; END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER bench_drop_event BEFORE INSERT ON outbox_events FOR EACH ROW EXECUTE FUNCTION bench_drop_event();
CREATE FUNCTION bench_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('lexora.bench_notify', true) = 'on' THEN PERFORM pg_notify('`+outbox.DefaultWakeupChannel+`', ''); END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER bench_notify AFTER INSERT ON outbox_events FOR EACH STATEMENT EXECUTE FUNCTION bench_notify()`)
	require.NoError(b, err)
	// Each design has a pool of its own, of DATABASE_MAX_CONNS's default
	// size, as one function instance has.
	service := func(setting string) *Service {
		cfg, err := pgxpool.ParseConfig(pgtest.URL(pool))
		require.NoError(b, err)
		cfg.MaxConns = 8
		if setting != "" {
			cfg.ConnConfig.RuntimeParams[setting] = "on"
		}
		p, err := pgxpool.NewWithConfig(ctx, cfg)
		require.NoError(b, err)
		b.Cleanup(p.Close)
		svc, err := NewService(p, devVerifier(b), clock.System{}, slog.New(slog.DiscardHandler))
		require.NoError(b, err)
		return svc
	}
	plain, naivePlain := service("lexora.bench_drop"), service("lexora.bench_drop")
	noHint, inTx, withOutbox := service(""), service("lexora.bench_notify"), service("")
	withOutbox.waker = outbox.NewWaker(withOutbox.pool, outbox.DefaultWakeupChannel, slog.New(slog.DiscardHandler))

	// 32 learners in the demo class, each assigned a deck of 25 cards.
	learners := make([]uuid.UUID, 32)
	cards := make([][]uuid.UUID, len(learners))
	var decks []uuid.UUID
	rows, err := pool.Query(ctx, `SELECT id FROM decks WHERE owner_id IS NULL ORDER BY title`)
	require.NoError(b, err)
	for rows.Next() {
		var d uuid.UUID
		require.NoError(b, rows.Scan(&d))
		decks = append(decks, d)
	}
	require.NoError(b, rows.Err())
	teacher := uuid.MustParse("00000000-0000-4000-8000-00000000000a")
	class := uuid.MustParse("00000000-0000-4000-8000-0000000000c1")
	for i := range learners {
		learners[i] = uuid.New()
		_, err := pool.Exec(ctx, `INSERT INTO users (id, email, display_name, role, auth_subject) VALUES ($1, $2, 'Bench', 'learner', $3)`,
			learners[i], fmt.Sprintf("bench%d@example.com", i), learners[i].String())
		require.NoError(b, err)
		_, err = pool.Exec(ctx, `INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)`, class, learners[i])
		require.NoError(b, err)
		body, _ := json.Marshal(map[string]string{"class_id": class.String(), "learner_id": learners[i].String(), "deck_id": decks[i%len(decks)].String(),
			"due_at": time.Now().Add(7 * 24 * time.Hour).UTC().Format(time.RFC3339)})
		req := httptest.NewRequest(http.MethodPost, "/CreateAssignment", bytes.NewReader(body))
		req.Header.Set("Authorization", bearer(b, teacher))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		plain.CreateAssignment(rec, req)
		require.Equal(b, http.StatusCreated, rec.Code, rec.Body.String())
		rows, err := pool.Query(ctx, `SELECT id FROM cards WHERE learner_id = $1`, learners[i])
		require.NoError(b, err)
		for rows.Next() {
			var c uuid.UUID
			require.NoError(b, rows.Scan(&c))
			cards[i] = append(cards[i], c)
		}
		require.NoError(b, rows.Err())
	}
	tokens := make([]string, len(learners))
	for i, l := range learners {
		tokens[i] = bearer(b, l)
	}

	// The naive design's sinks.
	smtpPort, _ := mailpit.Start(b)
	smtp, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: smtpPort, TLS: "none", From: "Lexora <no-reply@lexora.app>", Timeout: 10 * time.Second})
	require.NoError(b, err)
	var slow atomic.Bool
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if slow.Load() {
			time.Sleep(2 * time.Second)
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer receiver.Close()
	refused := closedPort(b)
	hooks := webhooks.NewSender(webhooks.Config{Timeout: 10 * time.Second, AllowHTTP: true}, clock.System{})
	secret := webhooks.NewSecret()
	var lost atomic.Int64
	naive := func(smtp mail.Sender, hookURL string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			rec := httptest.NewRecorder()
			naivePlain.SubmitReview(rec, r)
			if rec.Code == http.StatusOK {
				id := uuid.NewString()
				if err := smtp.Send(r.Context(), mail.Message{MessageID: id + "@bench", To: "learner@example.com", Subject: "Review", Body: "reviewed"}); err != nil {
					lost.Add(1)
				}
				if status, err := hooks.Send(r.Context(), hookURL, []string{secret}, id, webhooks.Message{Type: "review.submitted", Timestamp: time.Now(), Data: rec.Body.Bytes()}); err != nil || status >= 300 {
					lost.Add(1)
				}
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
		}
	}
	downSMTP, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: refused, TLS: "none", From: "Lexora <no-reply@lexora.app>", Timeout: 10 * time.Second})
	require.NoError(b, err)
	servers := map[string]*httptest.Server{
		"outbox":    httptest.NewServer(http.HandlerFunc(withOutbox.SubmitReview)),
		"intx":      httptest.NewServer(http.HandlerFunc(inTx.SubmitReview)),
		"nohint":    httptest.NewServer(http.HandlerFunc(noHint.SubmitReview)),
		"nooutbox":  httptest.NewServer(http.HandlerFunc(plain.SubmitReview)),
		"naive":     httptest.NewServer(naive(smtp, receiver.URL)),
		"naivedown": httptest.NewServer(naive(downSMTP, "http://127.0.0.1:"+strconv.Itoa(refused))),
	}
	for _, s := range servers {
		defer s.Close()
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	// round runs n clients for d, the k-th request of client c going to
	// designs[(k+c) % len(designs)], and returns each design's latencies.
	round := func(designs []string, n int, d time.Duration) map[string][]time.Duration {
		var mu sync.Mutex
		lat := map[string][]time.Duration{}
		failed := 0
		deadline := time.Now().Add(d)
		var wg sync.WaitGroup
		for c := range n {
			wg.Go(func() {
				mine := map[string][]time.Duration{}
				bad := 0
				for i := 0; time.Now().Before(deadline); i++ {
					design := designs[(i+c)%len(designs)]
					// Hard, Good or Easy: no lapses, so no card becomes a
					// leech (suspended cards answer 409 without a review).
					body := fmt.Sprintf(`{"card_id":%q,"rating":%d}`, cards[c][i%len(cards[c])], 2+(i*7+c)%3)
					req, _ := http.NewRequest(http.MethodPost, servers[design].URL, bytes.NewBufferString(body))
					req.Header.Set("Authorization", tokens[c])
					req.Header.Set("Content-Type", "application/json")
					t0 := time.Now()
					resp, err := client.Do(req)
					if err != nil {
						bad++
						continue
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					if resp.Body.Close() != nil || resp.StatusCode != http.StatusOK {
						bad++
						continue
					}
					mine[design] = append(mine[design], time.Since(t0))
				}
				mu.Lock()
				for k, v := range mine {
					lat[k] = append(lat[k], v...)
				}
				failed += bad
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Zero(b, failed, "failed requests")
		return lat
	}
	designs := []string{"outbox", "intx", "nohint", "nooutbox", "naive"}
	// WAL per review: 200 reviews of one client per design, one design at a
	// time (meaningful on a private cluster only: a shared server's WAL
	// holds everyone's writes).
	walPerReview := func(b *testing.B) {
		for _, design := range []string{"outbox", "nooutbox"} {
			var lsn string
			require.NoError(b, pool.QueryRow(ctx, "SELECT pg_current_wal_insert_lsn()::text").Scan(&lsn))
			sent := 0
			for i := 0; i < 200; i++ {
				body := fmt.Sprintf(`{"card_id":%q,"rating":3}`, cards[31][i%len(cards[31])])
				req, _ := http.NewRequest(http.MethodPost, servers[design].URL, bytes.NewBufferString(body))
				req.Header.Set("Authorization", tokens[31])
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				require.NoError(b, err)
				_, _ = io.Copy(io.Discard, resp.Body)
				require.NoError(b, resp.Body.Close())
				require.Equal(b, http.StatusOK, resp.StatusCode)
				sent++
			}
			var wal int64
			require.NoError(b, pool.QueryRow(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint", lsn).Scan(&wal))
			b.ReportMetric(float64(wal)/float64(sent), design+"_wal_bytes/review")
		}
	}
	for _, n := range []int{1, 8, 32} {
		b.Run("clients="+strconv.Itoa(n), func(b *testing.B) {
			for range b.N {
				if n == 1 {
					walPerReview(b)
				}
				pcts := map[string]map[string]float64{}
				for design, l := range round(designs, n, 15*time.Second) {
					p := percentiles(l)
					pcts[design] = p
					for _, q := range []string{"p50", "p90", "p99", "p99.9"} {
						b.ReportMetric(p[q], design+"_"+q+"_ms")
					}
				}
				b.ReportMetric(pcts["outbox"]["p50"]/pcts["nooutbox"]["p50"], "x_outbox_p50")
				b.ReportMetric(pcts["intx"]["p50"]/pcts["nooutbox"]["p50"], "x_intx_p50")
				b.ReportMetric(pcts["nohint"]["p50"]/pcts["nooutbox"]["p50"], "x_nohint_p50")
				b.ReportMetric(pcts["naive"]["p50"]/pcts["outbox"]["p50"], "x_naive_over_outbox_p50")
				done := map[string]int{}
				for r := range 2 {
					order := slices.Clone(designs)
					if r == 1 {
						slices.Reverse(order)
					}
					for _, design := range order {
						done[design] += len(round([]string{design}, n, 2*time.Second)[design])
					}
				}
				for _, design := range designs {
					b.ReportMetric(float64(done[design])/4, design+"_req/s")
				}
				lost.Store(0)
				l := round([]string{"naivedown"}, n, 3*time.Second)["naivedown"]
				b.ReportMetric(percentiles(l)["p50"], "naivedown_p50_ms")
				b.ReportMetric(float64(lost.Load()), "naivedown_lost")
				b.ReportMetric(float64(len(l)), "naivedown_reviews")
				if n == 1 {
					slow.Store(true)
					l := round([]string{"naive"}, 1, 5*time.Second)["naive"]
					slow.Store(false)
					b.ReportMetric(percentiles(l)["p50"], "naiveslow_p50_ms")
				}
			}
		})
	}
}

// percentiles returns the p50, p90, p99 and p99.9 of ls in milliseconds
// (nearest rank).
func percentiles(ls []time.Duration) map[string]float64 {
	s := slices.Clone(ls)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	out := map[string]float64{}
	for name, q := range map[string]float64{"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999} {
		if len(s) == 0 {
			continue
		}
		i := min(max(int(q*float64(len(s))+0.5)-1, 0), len(s)-1)
		out[name] = float64(s[i].Microseconds()) / 1000
	}
	return out
}

// closedPort is a loopback port nothing listens on.
func closedPort(b *testing.B) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(b, l.Close())
	return port
}
