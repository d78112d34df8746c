package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest/blackhole"
)

// TestMain lets the test binary run as the drain job itself, and fails the
// tests when goroutines are left running after them.
func TestMain(m *testing.M) {
	if os.Getenv("LEXORA_RUN_DRAIN_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	leaktest.Main(m)
}

func drainCmd(t *testing.T, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{"LEXORA_RUN_DRAIN_MAIN=1"}, env...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	return cmd, &out
}

// lastLine decodes the last JSON line the job wrote.
func lastLine(t *testing.T, out *bytes.Buffer) map[string]any {
	t.Helper()
	var last map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		last = m
	}
	require.NotNil(t, last, "no output")
	return last
}

// watch is a job's output: it keeps every byte in out and closes seen once
// the job has written want JSON lines (at least one) with the given message.
// Give it as both Stdout and Stderr, so that one goroutine writes it.
type watch struct {
	out     *bytes.Buffer
	message string
	want    int
	seen    chan struct{}
	line    []byte
}

// watchFor gives cmd's output to a watch for want lines of message.
func watchFor(cmd *exec.Cmd, out *bytes.Buffer, message string, want int) *watch {
	w := &watch{out: out, message: message, want: max(want, 1), seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w, w
	return w
}

func (w *watch) Write(p []byte) (int, error) {
	w.out.Write(p)
	w.line = append(w.line, p...)
	for {
		i := bytes.IndexByte(w.line, '\n')
		if i < 0 {
			return len(p), nil
		}
		var m map[string]any
		if json.Unmarshal(w.line[:i], &m) == nil && m["message"] == w.message {
			if w.want--; w.want == 0 {
				close(w.seen)
			}
		}
		w.line = w.line[i+1:]
	}
}

// wait returns once the lines were written, or fails the test after limit
// or when the job exits first (exited, if not nil: cmd.Wait's result, sent
// after the output is copied).
func (w *watch) wait(t *testing.T, limit time.Duration, exited <-chan error) {
	t.Helper()
	select {
	case <-w.seen:
	case err := <-exited:
		t.Fatalf("the job exited (%v) before it wrote %q:\n%s", err, w.message, w.out)
	case <-time.After(limit): // out is still being written: not read here
		t.Fatalf("the job did not write %q within %s", w.message, limit)
	}
}

func TestSIGTERMEndsALoopRunWithItsSummary(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	cmd, out := drainCmd(t, "DATABASE_URL="+pgtest.URL(pool), "DRAIN_MAX_DURATION=1m",
		"DRAIN_STOP_WHEN_IDLE=false", "DRAIN_LISTEN=true", "CLOUD_RUN_TASK_INDEX=1", "CLOUD_RUN_TASK_COUNT=2")
	// Signal once the job is up (its listener connected), not after a guess
	// that a loaded machine can outlast.
	listening := watchFor(cmd, out, "wake-up listener connected", 1)
	require.NoError(t, cmd.Start())
	listening.wait(t, 2*time.Minute, nil)
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, cmd.Wait(), out.String())
	require.Less(t, time.Since(start), 5*time.Second)

	line := lastLine(t, out)
	require.Equal(t, "drain run", line["message"])
	require.Equal(t, "INFO", line["severity"])
	require.EqualValues(t, 1, line["task_index"])
	require.Contains(t, line["report"], "claimed")
}

func TestExitsNonZeroOnlyWhenItCannotRun(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	cmd, out := drainCmd(t, "DATABASE_URL="+pgtest.URL(pool), "DRAIN_LEASE_DURATION=1ms")
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Contains(t, lastLine(t, out)["error"], "lease duration")

	cmd, out = drainCmd(t, "DATABASE_URL=postgres://postgres@127.0.0.1:1/nowhere?sslmode=disable&connect_timeout=2")
	require.Error(t, cmd.Run())
	require.Equal(t, "ERROR", lastLine(t, out)["severity"])

	cmd, out = drainCmd(t, "DATABASE_URL="+pgtest.URL(pool), "DRAIN_STOP_WHEN_IDLE=true")
	require.NoError(t, cmd.Run(), out.String())
	require.Equal(t, "drain run", lastLine(t, out)["message"])
}

// The summary line carries the outbox's standing dead deliveries and
// blocked ordering keys, which the alerts read (terraform/monitoring.tf).
func TestSummaryCountsDeadDeliveriesAndBlockedKeys(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	_, err := pool.Exec(context.Background(), `
		WITH e AS (INSERT INTO outbox_events (event_id, topic, ordering_key, payload)
		           VALUES (gen_random_uuid(), 't.a', 'k1', '{}'), (gen_random_uuid(), 't.a', 'k2', '{}') RETURNING id, ordering_key)
		INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key, ordered, state)
		SELECT id, s, ordering_key, s = 'ordered', 'dead' FROM e, unnest(ARRAY['ordered', 'plain']) s`)
	require.NoError(t, err)

	cmd, out := drainCmd(t, "DATABASE_URL="+pgtest.URL(pool), "DRAIN_STOP_WHEN_IDLE=true")
	require.NoError(t, cmd.Run(), out.String())
	line := lastLine(t, out)
	require.Equal(t, "drain run", line["message"])
	require.EqualValues(t, 4, line["dead_deliveries"])
	require.EqualValues(t, 2, line["blocked_keys"])
}

// Issue 10 §4 at the process level: with the database black-holed while
// handlers run (a proxy that holds every byte), the job exits within its
// bound plus a statement timeout, and within the grace plus 2 s of
// SIGTERM however long its statement timeout, and its summary accounts for
// every delivery it claimed.
func TestExitsInTimeWhenTheDatabaseStopsAnswering(t *testing.T) {
	t.Parallel()
	const grace, maxDuration = time.Second, 3 * time.Second
	for _, tc := range []struct {
		name             string
		sigterm          bool          // sent once the database is held
		statementTimeout time.Duration // longer than the grace plus 2 s with SIGTERM
		endsAfter        time.Duration // at most, from the hold, or from SIGTERM
	}{
		{"bound", false, 2 * time.Second, maxDuration + 2*time.Second},
		{"sigterm", true, time.Minute, grace + 2*time.Second + 500*time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pool := pgtest.New(t)
			_, err := pool.Exec(context.Background(), `
				WITH e AS (INSERT INTO outbox_events (event_id, topic, ordering_key, payload)
				           SELECT gen_random_uuid(), 't.a', 'k' || n, '{}' FROM generate_series(1, 20) n RETURNING id, ordering_key)
				INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key, ordered)
				SELECT id, $1, ordering_key, false FROM e`, events.SubscriberFeed)
			require.NoError(t, err)
			cfg := pool.Config()
			hold, stop := blackhole.Proxy(t, cfg)
			t.Cleanup(stop)
			u, err := url.Parse(pgtest.URL(pool))
			require.NoError(t, err)
			u.Host = net.JoinHostPort(cfg.ConnConfig.Host, strconv.Itoa(int(cfg.ConnConfig.Port)))
			// Every handler waits for its context (an hour's timeout), and
			// logs that it does as it starts: the database goes once the
			// job has written that for all 20 deliveries, all in flight.
			cmd, out := drainCmd(t, "DATABASE_URL="+u.String(), "DRAIN_MAX_DURATION="+maxDuration.String(),
				"DRAIN_SHUTDOWN_GRACE="+grace.String(), "DRAIN_STATEMENT_TIMEOUT="+tc.statementTimeout.String(),
				"DRAIN_POLL_INTERVAL=100ms", "DRAIN_HANDLER_TIMEOUT=1h",
				"DRAIN_CHAOS_SUBSCRIBER_FAULTS=timeout=1", "DRAIN_CONCURRENCY=20")
			inFlight := watchFor(cmd, out, "injected subscriber fault", 20)
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			inFlight.wait(t, 30*time.Second, exited)
			hold()
			start := time.Now()
			if tc.sigterm {
				require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
			}
			select {
			case err := <-exited:
				var exit *exec.ExitError
				require.ErrorAs(t, err, &exit, out.String())
				require.Equal(t, 1, exit.ExitCode(), "the database could not be used")
			case <-time.After(30 * time.Second):
				t.Fatalf("still running 30 s after the database stopped answering:\n%s", out.String())
			}
			took := time.Since(start)
			t.Logf("exited %s after the hold", took)
			require.Less(t, took, tc.endsAfter, out.String())

			var rep struct {
				Claimed, Delivered, Retried, Dead, Released, Unwritten int
				LostLeases                                             int `json:"lost_leases"`
			}
			for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
				var m struct {
					Message string          `json:"message"`
					Report  json.RawMessage `json:"report"`
				}
				if json.Unmarshal([]byte(l), &m) == nil && m.Message == "drain run" {
					require.NoError(t, json.Unmarshal(m.Report, &rep))
				}
			}
			require.Equal(t, 20, rep.Claimed, out.String())
			require.Equal(t, rep.Claimed, rep.Delivered+rep.Retried+rep.Dead+rep.LostLeases+rep.Released+rep.Unwritten,
				"every claimed delivery is accounted for: %+v", rep)
		})
	}
}
