package main

import (
	"bytes"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/logging"
)

// TestDuplicateNeedsAnInterruption: a second copy of an email or webhook is
// a violation unless an interrupting fault overlaps the copies, or an
// attempt at that delivery (event and subscriber) failed after the first
// copy.
func TestDuplicateNeedsAnInterruption(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	copies := []time.Time{t0.Add(5 * time.Second), t0}
	for _, tc := range []struct {
		name      string
		faults    []fault
		failed    map[deliveryKey][]failedAttempt
		explained bool
	}{
		{"no fault", nil, nil, false},
		{"a server kill does not cut a consumer", []fault{{Kind: "server-kill mid-request", Start: t0.Add(time.Second), End: t0.Add(time.Second)}}, nil, false},
		{"a drain kill between the copies", []fault{{Kind: "drain-kill holding leases", Start: t0.Add(time.Second), End: t0.Add(time.Second)}}, nil, true},
		{"a drain kill after the last copy", []fault{{Kind: "drain-kill", Start: t0.Add(6 * time.Second), End: t0.Add(6 * time.Second)}}, nil, false},
		{"latency that began before and lasted past the first copy", []fault{{Kind: "latency pg-drain", Start: t0.Add(-3 * time.Second), End: t0.Add(time.Second)}}, nil, true},
		{"latency that ended long before", []fault{{Kind: "latency pg-drain", Start: t0.Add(-9 * time.Second), End: t0.Add(-5 * time.Second)}}, nil, false},
		{"a drain run that lost leases overlapping the copies", []fault{{Kind: "lease lost (drain run summary)", Start: t0.Add(-4 * time.Second), End: t0.Add(3 * time.Second)}}, nil, true},
		{"a drain run that lost leases long before", []fault{{Kind: "lease lost (drain run summary)", Start: t0.Add(-20 * time.Second), End: t0.Add(-10 * time.Second)}}, nil, false},
		{"the delivery's attempt failed after its effect", nil, map[deliveryKey][]failedAttempt{{"e1", "email"}: {{at: t0.Add(2 * time.Second), err: "context deadline exceeded"}}}, true},
		{"another event's attempt failed", nil, map[deliveryKey][]failedAttempt{{"e2", "email"}: {{at: t0.Add(2 * time.Second), err: "context deadline exceeded"}}}, false},
		{"the delivery's handler was abandoned before the first copy", nil, map[deliveryKey][]failedAttempt{{"e1", "email"}: {{at: t0.Add(-3 * time.Second), err: "handler abandoned: still running 1s after its context ended (context deadline exceeded)"}}}, true},
		{"an ordinary failure long before the first copy", nil, map[deliveryKey][]failedAttempt{{"e1", "email"}: {{at: t0.Add(-3 * time.Second), err: "context deadline exceeded"}}}, false},
		{"another subscriber's attempt at the event failed", nil, map[deliveryKey][]failedAttempt{{"e1", "congratulation-email"}: {{at: t0.Add(2 * time.Second), err: "context deadline exceeded"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &stack{failedAttempts: tc.failed}
			c := &checker{s: s, faults: tc.faults}
			f := &findings{}
			iv := f.invariant("emails")
			c.duplicate(f, iv, "email e1.email@lexora.app", deliveryKey{"e1", "email"}, append([]time.Time(nil), copies...))
			require.Len(t, f.Duplicates, 1)
			require.Equal(t, 2, f.Duplicates[0].Copies)
			require.Equal(t, tc.explained, f.Duplicates[0].Explained != "", f.Duplicates[0].Explained)
			require.Equal(t, !tc.explained, iv.count == 1)
		})
	}
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
	return &stack{drainStats: drainStats{injected: map[string]int{}},
		failedAttempts: map[deliveryKey][]failedAttempt{}, injected: map[deliveryKey]int{}}
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
		s.drainLine(l)
	}
	st := &s.drainStats
	require.Equal(t, 2, st.runs)
	require.Equal(t, outbox.Report{Claimed: 9, Delivered: 4, Skipped: 1, Retried: 1, Dead: 1, LostLeases: 1,
		Released: 1, Unwritten: 1, Abandoned: 1}, st.total)
	f := &findings{}
	summariesRead(f, st)
	require.Zero(t, f.violations(), f.Invariants[0].Violations)

	s.drainLine(`{"message":"drain run","report":{"claimed":"many"}}`)
	s.drainLine(`{"message":"drain run","report":{"claimed":3,"delivered":1}}`)
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
	s.drainLine(`{"message":"drain run","report":{"claimed":0}}`)
	f = &findings{}
	summariesRead(f, &s.drainStats)
	require.Equal(t, 1, f.violations(), "a summary, but no delivery in any")
}

// TestInjectedFaultExplainsNoDuplicate: the failed attempt that follows an
// injected subscriber fault failed before the subscriber ran, so it is not
// recorded as a failure after an effect; the delivery's next failure is.
func TestInjectedFaultExplainsNoDuplicate(t *testing.T) {
	t.Parallel()
	s := newTestStack()
	for _, l := range []string{
		`{"message":"injected subscriber fault","kind":"timeout","subscriber":"email","event_id":"e1"}`,
		`{"message":"delivery failed","subscriber":"email","event_id":"e1","error":"context deadline exceeded"}`,
		`{"message":"delivery failed","subscriber":"webhook","event_id":"e1","error":"context deadline exceeded"}`,
		`{"message":"delivery failed","subscriber":"email","event_id":"e1","error":"read tcp: connection reset"}`,
	} {
		s.drainLine(l)
	}
	require.Len(t, s.failedAttempts[deliveryKey{"e1", "email"}], 1)
	require.Equal(t, "read tcp: connection reset", s.failedAttempts[deliveryKey{"e1", "email"}][0].err)
	require.Len(t, s.failedAttempts[deliveryKey{"e1", "webhook"}], 1)
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
