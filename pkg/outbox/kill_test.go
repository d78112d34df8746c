package outbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/lexora-app/lexora/pkg/outbox/internal/testsignal"
	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestMain lets the test binary double as a drain worker process, so that
// tests can SIGKILL a real drain, and fails the tests when goroutines are
// left running after them. Toxiproxy (misbehave_test.go) leaves its links'
// no-op toxics blocked on a channel after the proxy has stopped: its leak,
// not the drain's.
func TestMain(m *testing.M) {
	if url := os.Getenv("LEXORA_OUTBOX_WORKER_URL"); url != "" {
		os.Exit(worker(url))
	}
	leaktest.Main(m, goleak.IgnoreTopFunction("github.com/Shopify/toxiproxy/v2/toxics.(*NoopToxic).Pipe"))
}

// worker drains "s1" into the effects table and prints its report as JSON.
// By default it goes slowly enough to be killed mid-batch; with
// LEXORA_OUTBOX_WORKER_MODE=pause it handles one delivery at a time,
// three seconds each, holding a second one claimed (its claim window is
// twice its concurrency), to be paused mid-batch.
// It reports each attempt and each effect as a line on file descriptor 3
// (see startWorkers).
func worker(url string) int {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer pool.Close()
	progress := os.NewFile(3, "progress")
	h, cfg := loggedEffect(pool, 2*time.Millisecond, progress), Config{StopWhenIdle: true, BatchSize: 50, Concurrency: 4, LeaseDuration: time.Second}
	if os.Getenv("LEXORA_OUTBOX_WORKER_MODE") == "pause" {
		h, cfg = loggedEffect(pool, 3*time.Second, progress), Config{StopWhenIdle: true, BatchSize: 5, Concurrency: 1, LeaseDuration: time.Second}
	}
	d, err := NewDrainer(pool, map[string]Handler{"s1": h}, cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	rep, err := d.Run(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}

// loggedEffect logs every attempt in the attempts table, works for work
// (or until its context ends), then writes the effect once through
// HandleOnce. With progress, it also writes "attempt" and "effect" lines
// there.
func loggedEffect(pool *pgxpool.Pool, work time.Duration, progress io.Writer) Handler {
	if progress == nil {
		progress = io.Discard
	}
	return HandlerFunc(func(ctx context.Context, d Delivery) error {
		if _, err := pool.Exec(ctx, "INSERT INTO attempts VALUES ($1)", d.Event.ID); err != nil {
			return err
		}
		if _, err := io.WriteString(progress, "attempt\n"); err != nil {
			return err
		}
		if work > 0 && !sleep(ctx, work) {
			return ctx.Err()
		}
		err := HandleOnce(ctx, pool, d, func(tx pgx.Tx) error {
			_, err := tx.Exec(ctx, "INSERT INTO effects VALUES ($1, $2)", d.Event.ID, d.Subscriber)
			return err
		})
		if err != nil {
			return err
		}
		_, err = io.WriteString(progress, "effect\n")
		return err
	})
}

// workers are drain worker processes (see worker) started by startWorkers,
// and what they have reported on their progress pipe.
type workers struct {
	cmds []*exec.Cmd
	done chan struct{} // the pipe is closed: every worker has exited
	err  error         // reading or closing the pipe's read end; set before done closes

	mu     sync.Mutex
	counts map[string]int
	waits  []progressWait
}

type progressWait struct {
	line string
	n    int
	ch   chan struct{}
}

// startWorkers starts n worker processes on b's database, each with env
// added to its environment, sharing one progress pipe.
func startWorkers(t *testing.T, b bundle, n int, stdout io.Writer, env ...string) *workers {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	ws := &workers{done: make(chan struct{}), counts: map[string]int{}}
	t.Cleanup(func() { // after the cleanups registered later, which end the workers
		<-ws.done
		require.NoError(t, ws.err)
	})
	go ws.read(r)
	defer func() { require.NoError(t, w.Close()) }() // the workers hold their own copies
	for range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), append([]string{"LEXORA_OUTBOX_WORKER_URL=" + pgtest.URL(b.pool)}, env...)...)
		cmd.Stdout, cmd.Stderr = stdout, os.Stderr
		cmd.ExtraFiles = []*os.File{w}
		require.NoError(t, cmd.Start())
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		ws.cmds = append(ws.cmds, cmd)
	}
	return ws
}

// read counts the progress lines until every worker has closed the pipe.
func (ws *workers) read(r *os.File) {
	defer close(ws.done)
	sc := bufio.NewScanner(r)
	defer func() { ws.err = errors.Join(sc.Err(), r.Close()) }()
	for sc.Scan() {
		ws.mu.Lock()
		ws.counts[sc.Text()]++
		ws.waits = slices.DeleteFunc(ws.waits, func(w progressWait) bool {
			if ws.counts[w.line] < w.n {
				return false
			}
			close(w.ch)
			return true
		})
		ws.mu.Unlock()
	}
}

// await waits until the workers have reported line n times.
func (ws *workers) await(t *testing.T, line string, n int) {
	t.Helper()
	ws.mu.Lock()
	ch := make(chan struct{})
	if ws.counts[line] >= n {
		close(ch)
	} else {
		ws.waits = append(ws.waits, progressWait{line, n, ch})
	}
	ws.mu.Unlock()
	select {
	case <-ch:
	case <-ws.done:
		t.Fatalf("the workers exited before reporting %q %d times", line, n)
	case <-time.After(testsignal.WaitTimeout):
		t.Fatalf("the workers did not report %q %d times within %s", line, n, testsignal.WaitTimeout)
	}
}

// drainUntilEmpty runs a loop-mode drain of "s1" until it has delivered
// everything left in outbox_deliveries, as the leases of a worker that
// died expire, and returns its report.
func (b bundle) drainUntilEmpty(t *testing.T, h Handler) Report {
	t.Helper()
	left := b.count(t, "SELECT count(*) FROM outbox_deliveries")
	d := b.drainer(t, map[string]Handler{"s1": h}, Config{PollInterval: 50 * time.Millisecond, MaxDuration: time.Hour})
	d.signals.flushed.Init(t)
	ctx, stop := context.WithCancel(context.Background())
	run := runAsync(d, ctx)
	untilFlushed(t, d, Report{Delivered: left})
	stop()
	rep := run.report(t)
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_deliveries"))
	return rep
}

func TestFourDrainsWithOneKilledDeliverEverythingOnce(t *testing.T) {
	ctx, b := setup(t)
	b.effects(t)
	_, err := b.pool.Exec(ctx, "CREATE TABLE attempts (event_id uuid)")
	require.NoError(t, err)
	const n = 2000
	events := numbered(t, "t.b", n)
	b.enqueue(t, events...)

	ws := startWorkers(t, b, 4, io.Discard)
	ws.await(t, "effect", 201)
	require.NoError(t, ws.cmds[0].Process.Signal(syscall.SIGKILL))
	require.Error(t, ws.cmds[0].Wait(), "killed")
	for _, w := range ws.cmds[1:] {
		require.NoError(t, w.Wait())
	}

	// What the killed worker held comes back when its leases expire.
	b.drainUntilEmpty(t, loggedEffect(b.pool, 2*time.Millisecond, nil))

	require.Equal(t, n, b.count(t, "SELECT count(*) FROM effects"), "every effect exactly once")
	require.Equal(t, n, b.count(t, "SELECT count(DISTINCT event_id) FROM effects"))
	attempts := b.count(t, "SELECT count(*) FROM attempts")
	t.Logf("%d attempts for %d deliveries: %d redeliveries after the SIGKILL", attempts, n, attempts-n)
	require.GreaterOrEqual(t, attempts, n)
}
