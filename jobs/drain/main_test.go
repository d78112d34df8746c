package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/pgtest"
	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
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
// the job has written a JSON line with the given message. Give it as both
// Stdout and Stderr, so that one goroutine writes it.
type watch struct {
	out     *bytes.Buffer
	message string
	seen    chan struct{}
	line    []byte
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
		if json.Unmarshal(w.line[:i], &m) == nil && m["message"] == w.message && w.seen != nil {
			close(w.seen)
			w.seen = nil
		}
		w.line = w.line[i+1:]
	}
}

func TestSIGTERMEndsALoopRunWithItsSummary(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	cmd, out := drainCmd(t, "DATABASE_URL="+pgtest.URL(pool), "DRAIN_MAX_DURATION=1m",
		"DRAIN_STOP_WHEN_IDLE=false", "DRAIN_LISTEN=true", "CLOUD_RUN_TASK_INDEX=1", "CLOUD_RUN_TASK_COUNT=2")
	// Signal once the job is up (its listener connected), not after a guess
	// that a loaded machine can outlast.
	listening := make(chan struct{})
	w := &watch{out: out, message: "wake-up listener connected", seen: listening}
	cmd.Stdout, cmd.Stderr = w, w
	require.NoError(t, cmd.Start())
	select {
	case <-listening:
	case <-time.After(2 * time.Minute):
		t.Fatal("the job's listener did not connect within 2 minutes")
	}
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
