package main

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/logging"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestDuplicateNeedsAFaultOfItsSender: each copy of an email is tied to
// the attempts at its delivery in flight when it arrived; an extra copy is
// explained only by a fault of that attempt's own drain execution (kill,
// stop, lost lease), its failure after sending, its process's exit with it
// running, or a database restart, between its start and the delivery's
// commit. Another task's fault, another delivery's attempt, or a fault
// after the commit explains nothing. One copy (the committed one) needs
// nothing.
func TestDuplicateNeedsAFaultOfItsSender(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	k := deliveryKey{"e1", "email"}
	// Copies at t0+1s (sent by the first attempt, in drain-0.1) and t0+8s
	// (by the second, in drain-1.1, which committed at t0+8.1s).
	first := attempt{exec: "drain-0.1", delivery: 5, start: t0, end: t0.Add(2 * time.Second), ended: true}
	second := attempt{exec: "drain-1.1", delivery: 5, start: t0.Add(7 * time.Second), end: t0.Add(8200 * time.Millisecond), ended: true}
	committed := t0.Add(8100 * time.Millisecond)
	kill := func(task string, at time.Duration) fault {
		return fault{Kind: "drain-kill holding leases", Task: task, Start: t0.Add(at), End: t0.Add(at)}
	}
	for _, tc := range []struct {
		name      string
		first     attempt
		other     deliveryKey // where the first attempt was (k: this delivery)
		exited    time.Duration
		faults    []fault
		explained bool
	}{
		{name: "no fault", first: first, other: k},
		{name: "the sending task killed after the copy", first: attempt{exec: "drain-0.1", delivery: 5, start: t0}, other: k,
			exited: 1500 * time.Millisecond, faults: []fault{kill("drain-0.1", 1500*time.Millisecond)}, explained: true},
		{name: "another task killed meanwhile", first: first, other: k, faults: []fault{kill("drain-2.4", 1500*time.Millisecond)}},
		{name: "the sending task stopped", first: first, other: k,
			faults: []fault{{Kind: "drain-stop", Task: "drain-0.1", Start: t0.Add(1200 * time.Millisecond), End: t0.Add(5 * time.Second)}}, explained: true},
		{name: "the sending task stopped after the commit", first: first, other: k,
			faults: []fault{{Kind: "drain-stop", Task: "drain-0.1", Start: t0.Add(10 * time.Second), End: t0.Add(14 * time.Second)}}},
		{name: "the sending task lost its lease", first: first, other: k,
			faults: []fault{{Kind: "lease lost (observed)", Task: "drain-0.1", Start: t0.Add(-time.Second), End: t0.Add(2 * time.Second)}}, explained: true},
		{name: "a database restart between the copy and the commit", first: first, other: k,
			faults: []fault{{Kind: "pg-restart", Start: t0.Add(1500 * time.Millisecond), End: t0.Add(3 * time.Second)}}, explained: true},
		{name: "a database restart before the copy", first: first, other: k,
			faults: []fault{{Kind: "pg-restart", Start: t0.Add(-5 * time.Second), End: t0.Add(-4 * time.Second)}}},
		{name: "latency on the drains' proxy", first: first, other: k,
			faults: []fault{{Kind: "latency pg-drain", Start: t0, End: t0.Add(4 * time.Second)}}},
		{name: "the sending attempt failed after the copy", other: k, explained: true,
			first: attempt{exec: "drain-0.1", delivery: 5, start: t0, end: t0.Add(2 * time.Second), ended: true, err: "read tcp: connection reset"}},
		{name: "the sending attempt's process exited with it running", first: attempt{exec: "drain-0.1", delivery: 5, start: t0}, other: k,
			exited: 3 * time.Second, explained: true},
		{name: "another delivery's attempt failed", other: deliveryKey{"e1", "congratulation-email"},
			first: attempt{exec: "drain-0.1", delivery: 6, start: t0, end: t0.Add(2 * time.Second), ended: true, err: "read tcp: connection reset"}},
		{name: "a killed attempt long before the copy", first: attempt{exec: "drain-0.1", delivery: 5, start: t0.Add(-20 * time.Second)}, other: k,
			exited: -19 * time.Second, faults: []fault{kill("drain-0.1", -19*time.Second)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newTestStack()
			s.trace.started(tc.first.exec, tc.other, tc.first.delivery, tc.first.start)
			if tc.first.ended {
				s.trace.done(tc.first.exec, tc.first.delivery, tc.first.end, tc.first.err)
			}
			if tc.exited != 0 {
				s.trace.exit(tc.first.exec, t0.Add(tc.exited))
			}
			s.trace.started(second.exec, k, second.delivery, second.start)
			s.trace.done(second.exec, second.delivery, second.end, "")
			c := &checker{s: s, faults: tc.faults, copies: []copies{{"email e1.email@lexora.app", k,
				[]time.Time{t0.Add(8 * time.Second), t0.Add(time.Second)}, committed}}}
			f := &findings{}
			require.NoError(t, c.duplicates(context.Background(), f))
			require.Len(t, f.Duplicates, 1)
			d := f.Duplicates[0]
			require.Equal(t, 2, d.Copies)
			require.Equal(t, tc.explained, d.Unexplained == 0, d.Explained)
			require.Equal(t, !tc.explained, f.violations() == 1)
			require.Equal(t, map[bool]int{true: 1}[tc.explained], f.ExtraExplained)
			require.Equal(t, map[bool]int{false: 1}[tc.explained], f.ExtraUnexplained)
		})
	}
}

// TestTracedOrder: an ordered subscriber's traced attempts, in start
// order, may repeat an event but never go back to one committed before an
// event already attempted in the same key; other keys do not interfere.
func TestTracedOrder(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	evs := []event{{seq: 1, id: uuid.New(), key: "a"}, {seq: 2, id: uuid.New(), key: "b"}, {seq: 3, id: uuid.New(), key: "a"}}
	c := &checker{byID: map[uuid.UUID]*event{}}
	for i := range evs {
		c.byID[evs[i].id] = &evs[i]
	}
	at := func(e event, sec int) (string, attempt) {
		return e.id.String(), attempt{exec: "drain-0.1", start: t0.Add(time.Duration(sec) * time.Second)}
	}
	run := func(starts ...func() (string, attempt)) *invariant {
		traced := map[string][]attempt{}
		for _, s := range starts {
			id, a := s()
			traced[id] = append(traced[id], a)
		}
		iv := &invariant{}
		c.tracedOrder(iv, "activity", traced)
		return iv
	}
	in := func(e event, sec int) func() (string, attempt) { return func() (string, attempt) { return at(e, sec) } }
	iv := run(in(evs[0], 1), in(evs[0], 2), in(evs[1], 3), in(evs[2], 4), in(evs[1], 5))
	require.Zero(t, iv.count, iv.Violations)
	require.Equal(t, 5, iv.Checked)
	iv = run(in(evs[0], 1), in(evs[2], 2), in(evs[0], 3))
	require.Equal(t, 1, iv.count)
	require.Contains(t, iv.Violations[0], "started event "+evs[0].id.String())
	iv = run(in(evs[0], 1), func() (string, attempt) { return uuid.NewString(), attempt{start: t0} })
	require.Equal(t, 1, iv.count, "an attempt at an event never committed")
}

// TestHeldLeasesAreTheTasksOwn: a drain execution holds the leases of the
// deliveries its traced handlers are running, not another task's.
func TestHeldLeasesAreTheTasksOwn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	var ids []int64
	rows, err := pool.Query(ctx, `WITH e AS (INSERT INTO outbox_events (event_id, topic, payload) VALUES (gen_random_uuid(), 'x', '{}') RETURNING id)
		INSERT INTO outbox_deliveries (event_id, subscriber, state, lease_token, available_at)
		SELECT id, s, 'running', gen_random_uuid(), now() + interval '1 minute' FROM e, unnest(ARRAY['a', 'b', 'c']) s RETURNING id`)
	require.NoError(t, err)
	ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
	require.NoError(t, err)
	s := newTestStack()
	s.pool = pool
	t0 := time.Now()
	s.trace.started("drain-0.1", deliveryKey{"e", "a"}, ids[0], t0)
	s.trace.started("drain-1.1", deliveryKey{"e", "b"}, ids[1], t0)
	s.trace.started("drain-1.1", deliveryKey{"e", "c"}, ids[2], t0)
	require.Equal(t, 1, s.heldLeases(ctx, "drain-0.1"))
	require.Equal(t, 2, s.heldLeases(ctx, "drain-1.1"))
	s.trace.done("drain-1.1", ids[1], t0, "")
	require.Equal(t, 1, s.heldLeases(ctx, "drain-1.1"))
	require.Zero(t, s.heldLeases(ctx, "drain-2.1"), "a task running nothing holds nothing")
}

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := `load average: 44.12 45.30 46.01 3/900 123
goos: linux
BenchmarkCompare-2   	       1	9876 ns/op	  29511 lexora_deliveries/s	 1.67 lexora/river
BenchmarkWritePath/clients=8-2 	1	2 ns/op	 5.5 outbox_p50_ms	 5.0 nooutbox_p50_ms
PASS
load average: 39.50 44.00 45.00 2/901 456
`
	r, err := parseBench(strings.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, 29511.0, r["BenchmarkCompare"]["lexora_deliveries/s"])
	require.Equal(t, 1.67, r["BenchmarkCompare"]["lexora/river"])
	require.Equal(t, 5.5, r["BenchmarkWritePath/clients=8"]["outbox_p50_ms"])
	require.Equal(t, map[string]float64{"min": 39.5, "max": 44.12}, r[loadKey])
	_, err = parseBench(strings.NewReader("BenchmarkX-2 1 abc ns/op\n"))
	require.Error(t, err)
}

// newTestStack is a stack with nothing started, for the log readers.
func newTestStack() *stack {
	return &stack{drainStats: drainStats{injected: map[string]int{}}, trace: newTrace()}
}

// TestDrainSummaryIsReadAsTheDrainLogsIt logs outbox.Reports the way
// jobs/drain does (JSON, under "report", with the backlog) and feeds the
// lines to the stack's reader: every count is added up, and the summaries
// invariant holds; a line that does not decode, or whose claimed
// deliveries are not accounted for, fails it.
func TestDrainSummaryIsReadAsTheDrainLogsIt(t *testing.T) {
	t.Parallel()
	var lines bytes.Buffer
	log := logging.New(&lines, "drain") // as jobs/drain logs (through jobrun)
	backlog := []outbox.Backlog{{Subscriber: "email", Pending: 3, Due: 2, OldestAge: time.Second}}
	log.Info("drain run", slog.Any("report", outbox.Report{Claimed: 7, Delivered: 3, Skipped: 1, Retried: 1, Dead: 1,
		Released: 1, Unwritten: 1, Abandoned: 1, Duration: time.Second, Backlog: backlog}))
	log.Info("drain run", slog.Any("report", outbox.Report{Claimed: 2, Delivered: 1, LostLeases: 1, Duration: time.Second}))
	s := newTestStack()
	for l := range strings.Lines(lines.String()) {
		s.drainLine("drain-0.1", l)
	}
	st := &s.drainStats
	require.Equal(t, 2, st.runs)
	require.Equal(t, outbox.Report{Claimed: 9, Delivered: 4, Skipped: 1, Retried: 1, Dead: 1, LostLeases: 1,
		Released: 1, Unwritten: 1, Abandoned: 1}, st.total)
	f := &findings{}
	summariesRead(f, st)
	require.Zero(t, f.violations(), f.Invariants[0].Violations)

	s.drainLine("drain-0.1", `{"message":"drain run","report":{"claimed":"many"}}`)
	s.drainLine("drain-0.1", `{"message":"drain run","report":{"claimed":3,"delivered":1}}`)
	f = &findings{}
	summariesRead(f, st)
	require.Equal(t, 2, f.violations(), f.Invariants[0].Violations)
}

// TestNoDrainSummaryIsAViolation: a run whose reader saw no summary (or
// summaries without a delivery) does not pass.
func TestNoDrainSummaryIsAViolation(t *testing.T) {
	t.Parallel()
	s := newTestStack()
	f := &findings{}
	summariesRead(f, &s.drainStats)
	require.Equal(t, 1, f.violations())
	s.drainLine("drain-0.1", `{"message":"drain run","report":{"claimed":0}}`)
	f = &findings{}
	summariesRead(f, &s.drainStats)
	require.Equal(t, 1, f.violations(), "a summary, but no delivery in any")
}

// TestDrainTraceLines: the drains' attempt lines are tied to the execution
// that logged them; an injected fault logs no attempt; an attempt whose
// process exits never ends; lease losses are faults of that execution.
func TestDrainTraceLines(t *testing.T) {
	t.Parallel()
	s := newTestStack()
	for _, l := range []string{
		`{"message":"injected subscriber fault","kind":"timeout","subscriber":"email","event_id":"e1"}`,
		`{"message":"chaos attempt","time":"2026-11-30T07:00:01Z","subscriber":"email","event_id":"e1","delivery_id":4}`,
		`{"message":"chaos attempt done","time":"2026-11-30T07:00:02Z","subscriber":"email","event_id":"e1","delivery_id":4,"error":"read tcp: connection reset"}`,
		`{"message":"chaos attempt","time":"2026-11-30T07:00:03Z","subscriber":"webhook","event_id":"e1","delivery_id":5}`,
		`{"message":"chaos attempt","time":"2026-11-30T07:00:03Z","subscriber":"progress","event_id":"e1","delivery_id":6}`,
		`{"message":"lease lost to another worker","time":"2026-11-30T07:00:04Z","subscriber":"webhook","delivery_id":5}`,
	} {
		s.drainLine("drain-2.7", l)
	}
	require.Equal(t, 1, s.drainStats.injected["timeout"])
	email, _ := s.trace.of(deliveryKey{"e1", "email"})
	require.Len(t, email, 1)
	require.Equal(t, "read tcp: connection reset", email[0].err)
	require.Equal(t, "drain-2.7", email[0].exec)
	require.ElementsMatch(t, []int64{5, 6}, s.trace.running("drain-2.7"))
	progress, _ := s.trace.of(deliveryKey{"e1", "progress"})
	require.Empty(t, progress, "a projection that is not ordered is not kept")
	s.trace.exit("drain-2.7", time.Date(2026, 11, 30, 7, 0, 5, 0, time.UTC))
	require.Empty(t, s.trace.running("drain-2.7"))
	hook, exits := s.trace.of(deliveryKey{"e1", "webhook"})
	require.False(t, hook[0].ended)
	require.Equal(t, 5, exits["drain-2.7"].Second())
	lost := s.observed.all()
	require.Len(t, lost, 1)
	require.Equal(t, "drain-2.7", lost[0].Task)
}

// TestDeadLetterTableHasFourColumns: every row of the report's dead-letter
// table has its four cells, whatever the reason holds (pipes, line breaks).
func TestDeadLetterTableHasFourColumns(t *testing.T) {
	t.Parallel()
	dead := []deadLetter{
		{Subscriber: "webhook", Topic: "assignment.created", Reason: "endpoint a: status 500; endpoint b | c", Count: 2},
		{Subscriber: "webhook", Topic: "assignment.created", Reason: "handler panicked: boom\ngoroutine 7 [running]:\n\tmain.go:1", Count: 1},
		{Subscriber: "email", Topic: "learner.enrolled", Reason: "timeout", Count: 1},
	}
	rep := report(profile{name: "short"}, time.Minute, &world{}, nil, &drainStats{injected: map[string]int{}}, dead, 4, &findings{})
	_, table, ok := strings.Cut(rep, "## Dead letters before the replay\n\n")
	require.True(t, ok, rep)
	table, _, _ = strings.Cut(table, "\n\n")
	rows := strings.Split(table, "\n")
	require.Len(t, rows, 2+3, table)
	unescaped := regexp.MustCompile(`(^|[^\\])\|`)
	for _, r := range rows {
		require.Len(t, unescaped.FindAllString(r, -1), 5, "four cells: %s", r)
	}
	require.Equal(t, `| email | learner.enrolled | timeout | 1 |`, rows[2])
}

// TestReportSaysHowToReproduce: the report's Reproduce line names the
// commit the harness ran from and the make target that works from a clean
// clone (make chaos installs mailpit; make build does not).
func TestReportSaysHowToReproduce(t *testing.T) {
	t.Parallel()
	want := "unknown" // outside a git checkout
	if head, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		want = strings.TrimSpace(string(head))
	}
	rep := report(profile{name: "long"}, time.Minute, &world{}, nil, &drainStats{injected: map[string]int{}}, nil, 0, &findings{})
	require.Contains(t, rep, "\nReproduce from a clean clone: `git checkout "+want+" && make chaos`")
	require.NotContains(t, rep, "make build")
}

// TestSoakCommandReproduces: the command a soak records runs from any
// clone: paths inside the working directory are made relative to it.
func TestSoakCommandReproduces(t *testing.T) {
	t.Parallel()
	wd, err := os.Getwd()
	require.NoError(t, err)
	require.Equal(t, "bin/chaos soak -bin bin -out docs/bench -duration 1m",
		soakCommand([]string{"-bin", filepath.Join(wd, "bin"), "-out", "docs/bench", "-duration", "1m"}))
	require.Equal(t, "bin/chaos soak -bin /elsewhere/bin", soakCommand([]string{"-bin", "/elsewhere/bin"}))
}

// TestChartsFromBothServers: each chart is drawn from the
// output of the server it is quoted for (the write path from the private
// cluster when it has it, River's comparison from the shared server).
func TestChartsFromBothServers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shared := filepath.Join(dir, "shared.txt")
	private := filepath.Join(dir, "private.txt")
	wp := func(p50 string) string {
		var b strings.Builder
		for _, n := range []string{"1", "8", "32"} {
			b.WriteString("BenchmarkWritePath/clients=" + n + "-2 1 2 ns/op " + p50 + " outbox_p50_ms 1 nooutbox_p50_ms 1 x_outbox_p50\n")
		}
		return b.String()
	}
	require.NoError(t, os.WriteFile(shared, []byte("load average: 40.0 1 1\nBenchmarkCompare-2 1 2 ns/op 30000 lexora_deliveries/s 18000 river_jobs/s\n"+wp("9")), 0o600))
	require.NoError(t, os.WriteFile(private, []byte(wp("5")+"BenchmarkPrune-2 1 2 ns/op 500000 pruned_events 0.99 x_during_prune\n"), 0o600))
	out := filepath.Join(dir, "charts")
	require.Equal(t, 0, chartsMain([]string{"-shared", shared, "-private", private, "-out", out}))
	for _, f := range []string{"compare.png", "writepath-median.png", "writepath-latency.png", "prune.png"} {
		require.FileExists(t, filepath.Join(out, f))
	}
	require.NoFileExists(t, filepath.Join(out, "enqueue.png"), "no output holds BenchmarkEnqueue")
	require.Equal(t, "500,000", thousands(500000))
}

// TestSoakChartFromItsFiles: `chaos charts -soak` draws the soak's chart
// again from soak.csv and the run beside it (soak.json), reads a CSV
// written before the load1 column, and refuses a CSV without its run.
func TestSoakChartFromItsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	samples := []soakSample{
		{Minute: 0.25, EventsBytes: 1 << 20, DeliveriesBytes: 2 << 20, Committed: 50, CommitP50: 4 * time.Millisecond, Load1: 3.5},
		{Minute: 5, EventsBytes: 8 << 20, DeliveriesBytes: 12 << 20, Committed: 1000, Load1: 7},
		{Minute: 6, EventsBytes: 8 << 20, DeliveriesBytes: 12 << 20, Committed: 1200, Load1: 5},
	}
	csvPath := filepath.Join(dir, "soak.csv")
	require.NoError(t, writeSoakCSV(csvPath, samples))
	got, err := readSoakCSV(csvPath)
	require.NoError(t, err)
	require.Equal(t, samples, got)

	out := filepath.Join(dir, "charts")
	require.Equal(t, 2, chartsMain([]string{"-soak", csvPath, "-out", out}), "no soak.json: the caption would lack the machine")
	require.NoError(t, writeSoakRun(filepath.Join(dir, "soak.json"), soakRun{When: "now", Machine: "vm", Cluster: soakCluster(true),
		Rate: 200, Duration: "30m0s", Retention: "2m0s", Autovacuum: true}))
	require.Equal(t, 0, chartsMain([]string{"-soak", csvPath, "-out", out}))
	require.FileExists(t, filepath.Join(out, "soak.png"))
	require.NoError(t, writeSoakRun(filepath.Join(dir, "soak.json"), soakRun{When: "now", Machine: "vm", Cluster: soakCluster(true),
		Rate: 200, Duration: "30m0s", Retention: "2m0s", Autovacuum: true, Commit: "abc1234", Command: "bin/chaos soak", Committed: 360000, Pruned: 315009}))
	run, err := readSoakRun(filepath.Join(dir, "soak.json"))
	require.NoError(t, err)
	require.Equal(t, "abc1234", run.Commit, "the soak's file names the commit it ran on")
	require.Equal(t, 0, chartsMain([]string{"-soak", csvPath, "-out", out}))

	old := filepath.Join(dir, "old.csv")
	require.NoError(t, os.WriteFile(old, []byte("minute,events_bytes,deliveries_bytes,processed_bytes,events_live,deliveries_live,"+
		"deliveries_dead_tuples,claim_scan_ms,committed,commit_p50_ms\n0.25,737280,2048000,24576,2865,156,11680,2.147,3001,4.367\n"), 0o600))
	got, err = readSoakCSV(old)
	require.NoError(t, err)
	require.Len(t, got, 1)
	require.InDelta(t, -1, got[0].Load1, 0)
	require.Equal(t, int64(2048000), got[0].DeliveriesBytes)
}
