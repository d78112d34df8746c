// Command chaos is Lexora's fault-injection harness: it runs the whole
// product as real processes, drives a realistic mix of user actions through
// HTTP while injecting faults at random moments, lets the system settle, and
// then checks from the database, mailpit's API and the webhook receiver's
// log that no consequence was lost, doubled where it must not be, or
// invented. It prints a report and exits 1 on any violation (2 when it
// could not run). It is a development tool: `make test` runs the short
// profile (about 3 minutes), `make chaos` the long one (30 minutes and at
// least 100,000 actions).
//
// What it starts, in a temporary folder (kept with -keep, and on failure):
//
//   - its own PostgreSQL cluster (initdb; autovacuum on; fsync off, which
//     only matters if the machine crashes), so that it can crash it with
//     `pg_ctl restart -m immediate`; as root it runs it as user postgres;
//   - toxiproxy (github.com/Shopify/toxiproxy/v2, inside the harness) with
//     three proxies: server to PostgreSQL, drains to PostgreSQL, drains to
//     SMTP;
//   - mailpit (SMTP sink with an HTTP API), keeping every message;
//   - the functions server (bin/server, AUTH_DEV=true);
//   - the profile's drain tasks (3, or 4 long), each a loop of bounded
//     executions of bin/drain (CLOUD_RUN_TASK_INDEX/COUNT, 6 s runs, 3 s
//     leases, 5 attempts, backoff 250 ms to 2 s), as Cloud Scheduler would
//     start them;
//   - a webhook receiver (inside the harness) that verifies every signature
//     with the Standard Webhooks library.
//
// The actions: teachers enrol new learners by email, learners join other
// classes by join code, teachers assign decks, learners read their schedule
// and review cards (most actions), or undo their last review (5 % of their
// turns at reviewing, naming it by the review_id its answer gave, as the
// web client does), teachers rotate webhook secrets (sometimes revoking
// the previous one). Every write carries an Idempotency-Key and an
// X-Request-Id; a client retries on any error, 5xx or timeout with the
// same key, as the web client does, except a few percent of actions that
// it abandons after a first failure (their outcome is unknown to the
// client: the checks demand all or nothing).
//
// The faults, each counted: SIGKILL of the server (mid-request when
// requests are in flight) and of drain tasks (holding leases of their own
// or not);
// SIGSTOP of a drain task past its lease, then SIGCONT; a crash restart of
// PostgreSQL; connection resets and latency on each proxy; subscriber
// failures, timeouts and panics at the profile's rates (through
// DRAIN_CHAOS_SUBSCRIBER_FAULTS, which only this harness sets; see
// jobs/drain; DRAIN_CHAOS_TRACE logs every handler call, which ties
// copies, leases and handling order to the execution that made them); the
// receiver answering 500 to everything for a while (dead
// letters), then 410 Gone for good on one endpoint. Each kind is injected
// once, in random order, at the start of the fault phase, then at random.
//
// Then it settles: faults off, drains until only dead letters (and what
// they block) remain, replays every dead letter through ReplayDeadLetters,
// drains again, and checks: every 2xx is durable (an acknowledged undo in
// review_undo); each write committed exactly once (2xx), never (4xx) or at
// most once (no answer); state and events together (a review and its
// review.submitted, an undo and its review.undone); nothing stuck; each
// (event, subscriber) applied once, none for a phantom (the progress and
// activity counts equal the sum of their events, each review.undone taking
// back what its review counted); every email and webhook sent, none for a
// phantom; each extra copy of one Message-ID or webhook-id sent by an
// attempt that a fault of its own drain execution (kill, stop, lost lease),
// its own failure after sending or a database restart cut off from the
// delivery's commit; signatures; ordered subscribers saw (the drains'
// trace) and applied (their dedup records) each key's events in commit
// order; every FSRS card state equal to the replay of its review log
// without the undone reviews. When every invariant holds it plants
// violations of each (selftest.go's plants: a 2xx made undurable, a write
// committed twice, lost, phantom and doubled emails and webhooks, doubled
// and phantom projections, a phantom event, a stuck delivery, two
// reorderings, cards off their log, a fault kind left out, an unbalanced
// drain summary) and fails unless the checks catch each, in a violation
// that names it: a harness that cannot fail proves nothing.
//
// `chaos soak` is the outbox soak benchmark, `chaos cluster` runs a
// command against a production-like cluster of its own, and `chaos charts`
// draws the benchmarks' charts (see soakMain, clusterMain, chartsMain and
// docs/benchmarks.md).
//
// Usage:
//
//	chaos [-profile short|long] [-bin ./bin] [-duration D] [-report FILE] [-keep]
//	chaos soak [-duration 30m] [-rate 200] [-autovacuum=true] [-out docs/bench]
//	chaos cluster [-bin ./bin] -- go test -bench ...
//	chaos charts -in bench.txt [-out docs/bench]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
)

// profile is one run's size and fault rates.
type profile struct {
	name             string
	binDir           string
	duration         time.Duration // of the load and fault phase
	clients          int
	teachers         int
	learners         int // enrolled before the faults begin
	drainTasks       int
	faultEvery       time.Duration // mean gap between random faults
	receiver500      time.Duration // how long the receiver answers 500
	subscriberFaults string        // DRAIN_CHAOS_SUBSCRIBER_FAULTS while faults are on
	abandonRate      float64       // share of actions abandoned after a first failure
	retryBudget      time.Duration // how long a client retries one action
	requestTimeout   time.Duration
	settle           time.Duration // longest the outbox may stay as full while it settles
	minActions       int           // the load phase goes on past duration until this many actions (at most twice as long)
}

var profiles = map[string]profile{
	"short": {
		duration: 100 * time.Second, clients: 6, teachers: 3, learners: 24, drainTasks: 3,
		faultEvery: 2500 * time.Millisecond, receiver500: 15 * time.Second,
		subscriberFaults: "fail=0.03,timeout=0.01,panic=0.01", abandonRate: 0.03,
		retryBudget: 90 * time.Second, requestTimeout: 5 * time.Second, settle: 2 * time.Minute,
	},
	// The long profile keeps the drains level with the load on a 2-core
	// machine: with 16 clients the backlog grew without end.
	"long": {
		duration: 30 * time.Minute, minActions: 100_000, clients: 8, teachers: 5, learners: 150, drainTasks: 4,
		faultEvery: 4 * time.Second, receiver500: 30 * time.Second,
		subscriberFaults: "fail=0.02,timeout=0.005,panic=0.005", abandonRate: 0.02,
		retryBudget: 90 * time.Second, requestTimeout: 5 * time.Second, settle: 3 * time.Minute,
	},
}

// Seeded users (pkg/seed): the demo teacher, their class, and an operator.
var (
	seedTeacher  = uuid.MustParse("00000000-0000-4000-8000-00000000000a")
	seedClass    = uuid.MustParse("00000000-0000-4000-8000-0000000000c1")
	seedOperator = uuid.MustParse("00000000-0000-4000-8000-0000000000f0")
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "soak":
			os.Exit(soakMain(os.Args[2:]))
		case "charts":
			os.Exit(chartsMain(os.Args[2:]))
		case "cluster":
			os.Exit(clusterMain(os.Args[2:]))
		}
	}
	name := flag.String("profile", "short", "short (about 3 minutes, in make test) or long (30 minutes, make chaos)")
	bin := flag.String("bin", "./bin", "folder with server, drain, migrate, seed and mailpit")
	duration := flag.Duration("duration", 0, "length of the load and fault phase (default: the profile's)")
	reportFile := flag.String("report", "", "also write the report to this file (Markdown)")
	keep := flag.Bool("keep", false, "keep the temporary folder (logs, cluster, mailbox) even when every invariant holds")
	flag.Parse()
	cfg, ok := profiles[*name]
	if !ok || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	cfg.name, cfg.binDir = *name, *bin
	if *duration > 0 {
		cfg.duration = *duration
	}
	os.Exit(run(cfg, *reportFile, *keep))
}

// run returns the exit status: 0 every invariant held, 1 a violation, 2 the
// harness could not run.
func run(cfg profile, reportFile string, keep bool) int {
	began := time.Now()
	dir, err := os.MkdirTemp("", "lexora-chaos-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	logFile, err := os.Create(filepath.Join(dir, "stack.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	defer func() {
		if err := logFile.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
		}
	}()
	say := func(format string, args ...any) {
		fmt.Printf("chaos %6.1fs  %s\n", time.Since(began).Seconds(), fmt.Sprintf(format, args...))
	}
	say("profile %s: %s of load and faults, %d clients, %d drain tasks; logs in %s", cfg.name, cfg.duration, cfg.clients, cfg.drainTasks, dir)

	ctx := context.Background()
	s, err := startStack(ctx, cfg, dir, logFile)
	if s != nil {
		defer s.close()
		// Interrupted: stop the cluster too (pg_ctl detaches it from us).
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		go func() {
			<-sigs
			fmt.Fprintln(os.Stderr, "chaos: interrupted; stopping the stack")
			s.close()
			os.Exit(2)
		}()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: start:", err)
		return 2
	}
	say("stack up: PostgreSQL on %s, server %s", s.pg.Addr(), s.serverURL)
	seeded := time.Now() // what the checks hold to account begins here

	drainCtx, stopDrains := context.WithCancel(ctx)
	drainsDone := make(chan struct{})
	go func() {
		s.runDrains(drainCtx)
		close(drainsDone)
	}()
	defer func() {
		stopDrains()
		<-drainsDone
	}()

	w, flaky, err := setup(ctx, s)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: setup:", err)
		return 2
	}
	say("setup: %d teachers, %d learners, %d decks", len(w.teachers), len(w.learners), len(w.decks))

	// Load and faults.
	faults := &faultLog{}
	in := &injector{s: s, w: w, log: faults}
	loadCtx, stopLoad := context.WithTimeout(ctx, 2*cfg.duration)
	s.faultsOn.Store(true)
	w.abandoning.Store(true)
	var wg sync.WaitGroup
	wg.Go(func() {
		// The load ends after the duration, once minActions were done.
		<-time.After(cfg.duration)
		for loadCtx.Err() == nil && w.count() < cfg.minActions {
			time.Sleep(time.Second)
		}
		stopLoad()
	})
	wg.Go(func() { in.run(loadCtx, cfg.duration, flaky) })
	for range cfg.clients {
		wg.Go(func() { w.client(loadCtx) })
	}
	loadStart := time.Now()
	wg.Wait()
	stopLoad()
	cfg.duration = time.Since(loadStart).Round(time.Second) // as it turned out, for the report
	s.faultsOn.Store(false)
	w.abandoning.Store(false)
	say("load done: %d actions, %d faults", len(w.actions), len(faults.all()))

	// Settle, replay, settle.
	settleStart := time.Now()
	if err := s.waitSettled(ctx, cfg.settle, false); err != nil {
		say("settle: %v", err)
	}
	dead, err := s.deadLetters(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: dead letters:", err)
		return 2
	}
	replayed := 0
	if len(dead) > 0 {
		a := &action{Kind: "replay"}
		var out struct {
			Replayed int `json:"replayed"`
		}
		if err := w.call(ctx, a, "ReplayDeadLetters", w.operator, map[string]any{"all": true, "reason": "chaos harness: settle"}, &out, true, false); err != nil {
			fmt.Fprintln(os.Stderr, "chaos: replay dead letters:", err)
			return 2
		}
		replayed = out.Replayed
		if err := s.waitSettled(ctx, cfg.settle, true); err != nil {
			say("settle after replay: %v", err)
		}
	}
	stopDrains()
	<-drainsDone
	say("settled in %s; %d dead letters replayed", time.Since(settleStart).Round(time.Second), replayed)

	f, err := check(ctx, s, w, append(faults.all(), s.observed.all()...), seeded)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos: check:", err)
		return 2
	}
	injectedAll(f, faults.all(), &s.drainStats)
	summariesRead(f, &s.drainStats)
	rep := report(cfg, time.Since(began), w, faults.all(), &s.drainStats, dead, replayed, f)
	if f.violations() == 0 {
		msg, err := selfTest(ctx, s, w, append(faults.all(), s.observed.all()...), seeded)
		if err != nil {
			fmt.Print(rep)
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 1
		}
		rep += "\n" + msg
	}
	fmt.Print(rep)
	if reportFile != "" {
		if err := os.WriteFile(reportFile, []byte(rep), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 2
		}
	}
	if n := f.violations(); n > 0 {
		fmt.Printf("\nFAIL: %d violations; logs, cluster and mailbox kept in %s\n", n, dir)
		return 1
	}
	if keep {
		fmt.Printf("\nPASS; logs kept in %s\n", dir)
	} else {
		s.close()
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
		}
		fmt.Println("\nPASS")
	}
	return 0
}

// setup creates the teachers (the seeded one and more, with a class and a
// join code each), registers their webhook endpoints (the seeded teacher
// gets a second, "flaky" one, which will answer 410), and enrols the
// first learners, each with one assignment (those of the seeded class also
// get the seed's deck of that class on joining), all over HTTP but the extra
// teachers' accounts (sign-up is not a function). It returns the world and
// the flaky endpoint's name.
func setup(ctx context.Context, s *stack) (*world, string, error) {
	w := &world{cfg: s.cfg, base: s.serverURL, recv: s.recv, operator: mint(seedOperator.String(), ""),
		http: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}
	rows, err := s.pool.Query(ctx, `SELECT id FROM decks WHERE owner_id IS NULL ORDER BY title`)
	if err != nil {
		return nil, "", err
	}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			return nil, "", err
		}
		w.decks = append(w.decks, id)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	w.teachers = append(w.teachers, &teacher{id: seedTeacher, classID: seedClass, joinCode: "DEMO2026"})
	for i := 1; i < s.cfg.teachers; i++ {
		t := &teacher{id: uuid.New(), classID: uuid.New(), joinCode: fmt.Sprintf("CHAOS%d", i)}
		if _, err := s.pool.Exec(ctx, `INSERT INTO users (id, email, display_name, role, auth_subject)
			VALUES ($1, $2, $3, 'teacher', $4)`, t.id, fmt.Sprintf("teacher%d@chaos.example", i), fmt.Sprintf("Teacher %d", i), t.id.String()); err != nil {
			return nil, "", fmt.Errorf("create teacher: %w", err)
		}
		if _, err := s.pool.Exec(ctx, `INSERT INTO classes (id, teacher_id, name, join_code) VALUES ($1, $2, $3, $4)`,
			t.classID, t.id, fmt.Sprintf("Class %d", i), t.joinCode); err != nil {
			return nil, "", fmt.Errorf("create class: %w", err)
		}
		w.teachers = append(w.teachers, t)
	}
	var flaky string
	for i, t := range w.teachers {
		t.token = mint(t.id.String(), "")
		n := 1
		if i == 0 {
			n = 2
		}
		for e := range n {
			name := endpointName(t.id.String(), e)
			s.recv.expect(name)
			a := &action{Kind: "register"}
			var out struct {
				ID     uuid.UUID `json:"id"`
				Secret string    `json:"secret"`
			}
			if err := w.call(ctx, a, "RegisterWebhookEndpoint", t.token, map[string]any{"url": s.recv.url(name)}, &out, true, false); err != nil {
				return nil, "", fmt.Errorf("register webhook endpoint: %w", err)
			}
			s.recv.addSecret(name, out.Secret)
			s.recv.rotating(name, -1)
			t.endpoints = append(t.endpoints, endpointRef{name: name, id: out.ID})
			if e == 1 {
				flaky = name
			}
		}
	}
	for i := range s.cfg.learners {
		w.enrolByEmail(ctx, w.teachers[i%len(w.teachers)])
	}
	if len(w.learners) < s.cfg.learners {
		return nil, "", errors.New("could not enrol the first learners (see stack.log)")
	}
	for _, l := range w.learners {
		w.assign(ctx, l)
	}
	return w, flaky, nil
}

// waitSettled waits until the drains have nothing left to do: every
// delivery due within a minute delivered, except (unless all) dead ones and
// the ordered ones a dead delivery blocks. Reminders scheduled later wait.
// It gives up when the count has not fallen for stall (the drains are
// stuck), or after an hour.
func (s *stack) waitSettled(ctx context.Context, stall time.Duration, all bool) error {
	q := `SELECT count(*) FROM outbox_deliveries d
		WHERE d.available_at < now() + interval '1 minute' AND (d.state <> 'dead' OR $1)
		  AND ($1 OR NOT (d.ordered AND EXISTS (
		      SELECT 1 FROM outbox_deliveries h WHERE h.ordered AND h.state = 'dead'
		        AND h.subscriber = d.subscriber AND h.ordering_key = d.ordering_key AND h.id < d.id)))`
	deadline := time.Now().Add(time.Hour)
	lowest, progressed := -1, time.Now()
	zeros := 0
	for zeros < 3 {
		if time.Since(progressed) > stall || time.Now().After(deadline) {
			return fmt.Errorf("%d deliveries still due, none delivered for %s", lowest, stall)
		}
		time.Sleep(500 * time.Millisecond)
		var n int
		if err := s.pool.QueryRow(ctx, q, all).Scan(&n); err != nil {
			continue
		}
		if lowest < 0 || n < lowest {
			lowest, progressed = n, time.Now()
		}
		if n == 0 {
			zeros++
		} else {
			zeros = 0
		}
	}
	return nil
}

// deadLetter is a group of dead deliveries.
type deadLetter struct {
	Subscriber, Topic, Reason string
	Count                     int
}

// deadLetters lists the dead deliveries by subscriber, topic and reason.
func (s *stack) deadLetters(ctx context.Context) ([]deadLetter, error) {
	rows, err := s.pool.Query(ctx, `SELECT d.subscriber, e.topic, coalesce(d.last_error, ''), count(*)
		FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id
		WHERE d.state = 'dead' GROUP BY 1, 2, 3 ORDER BY 4 DESC, 1, 2, 3`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []deadLetter
	for rows.Next() {
		var d deadLetter
		if err := rows.Scan(&d.Subscriber, &d.Topic, &d.Reason, &d.Count); err != nil {
			return nil, err
		}
		d.Reason = shorten(d.Reason)
		out = append(out, d)
	}
	return out, rows.Err()
}

// shorten keeps an error's first 100 characters, ids and all.
func shorten(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// faultKinds are the kinds injected, before their finer names.
func faultKinds() []string {
	kinds := make([]string, len(weightedKinds))
	for i, k := range weightedKinds {
		kinds[i] = k.kind
	}
	rand.Shuffle(len(kinds), func(i, j int) { kinds[i], kinds[j] = kinds[j], kinds[i] })
	return kinds
}
