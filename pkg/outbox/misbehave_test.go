package outbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest/blackhole"
)

// These tests hold the drain against handlers and a database that misbehave
// for longer than a lease: each scenario failed before the drain ran its own
// statements on connections of their own, checked a lease before starting a
// handler, abandoned handlers past their timeout and gave every statement a
// deadline.

// poolOf returns a pool on url's database with at most maxConns connections.
func poolOf(t *testing.T, cfg *pgxpool.Config, maxConns int32) *pgxpool.Pool {
	t.Helper()
	cfg.MaxConns = maxConns
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	return pool
}

// testPayload is the payload of the events these tests enqueue.
type testPayload struct {
	N    int  `json:"n"`
	Hang bool `json:"hang"`
}

func payloadOf(d Delivery) (testPayload, error) {
	var p testPayload
	err := json.Unmarshal(d.Event.Payload, &p)
	return p, err
}

func (b bundle) attemptsTable(t *testing.T) {
	t.Helper()
	_, err := b.pool.Exec(context.Background(), "CREATE TABLE attempts (event_id uuid)")
	require.NoError(t, err)
}

// Scenario 1: handlers on a pool of eight connections, each holding its
// HandleOnce transaction for half a lease (an SMTP call inside it), in six
// rounds (three leases), while a second drain polls. Before, the heartbeat
// queued behind the handlers for a connection of the same pool, the leases
// expired and the second drain handled the batch again.
func TestHandlersHoldingEveryConnectionDoNotStarveTheHeartbeat(t *testing.T) {
	_, b := setup(t)
	b.effects(t)
	b.attemptsTable(t)
	const n = 48 // 6 rounds of 8 handlers
	events := numbered(t, "t.b", n)
	b.enqueue(t, events...)
	pool := poolOf(t, b.pool.Config(), 8) // DATABASE_MAX_CONNS' default
	const lease = 1500 * time.Millisecond
	h := loggedEffect(pool, 0, nil)
	hog := HandlerFunc(func(ctx context.Context, d Delivery) error {
		if _, err := pool.Exec(ctx, "INSERT INTO attempts VALUES ($1)", d.Event.ID); err != nil {
			return err
		}
		return HandleOnce(ctx, pool, d, func(tx pgx.Tx) error {
			if !sleep(ctx, lease/2) { // an SMTP call inside the transaction
				return ctx.Err()
			}
			_, err := tx.Exec(ctx, "INSERT INTO effects VALUES ($1, $2)", d.Event.ID, d.Subscriber)
			return err
		})
	})
	// Concurrency n/2: the first claim (twice the concurrency) takes all n,
	// and only 8 handlers at a time get a connection.
	first, err := NewDrainer(pool, map[string]Handler{"s1": hog}, Config{StopWhenIdle: true, Concurrency: n / 2, LeaseDuration: lease},
		slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	first.signals.claimed.Init(t)
	second := b.drainer(t, map[string]Handler{"s1": h}, Config{LeaseDuration: lease, PollInterval: 100 * time.Millisecond, MaxDuration: time.Hour})
	firstRun := runAsync(first, context.Background())
	require.Equal(t, n, first.signals.claimed.Wait(), "the first drain claims the batch")
	require.Equal(t, n, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'running'"))
	ctx, stopSecond := context.WithCancel(context.Background())
	secondRun := runAsync(second, ctx)
	rep := firstRun.report(t)
	stopSecond()
	secondRep := secondRun.report(t)
	require.Zero(t, rep.LostLeases, "no lease expires while its handler runs")
	require.Equal(t, n, rep.Delivered)
	require.Zero(t, secondRep.Claimed, "the second drain finds nothing to take over")
	require.Equal(t, n, b.count(t, "SELECT count(*) FROM attempts"), "each event handled once")
	require.Equal(t, n, b.count(t, "SELECT count(DISTINCT event_id) FROM effects"))
}

// Scenario 2: a drain holding deliveries it has not started is paused
// (SIGSTOP) while its first handler runs, until another drain has taken all
// five over and completed them. On resuming it must not start the others.
func TestPausedDrainDoesNotStartHandlersForLostLeases(t *testing.T) {
	_, b := setup(t)
	b.effects(t)
	b.attemptsTable(t)
	events := numbered(t, "t.b", 5)
	b.enqueue(t, events...)

	var out strings.Builder
	ws := startWorkers(t, b, 1, &out, "LEXORA_OUTBOX_WORKER_MODE=pause")
	cmd := ws.cmds[0]
	ws.await(t, "attempt", 1) // the first handler runs
	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	// A rival takes all five over as the paused drain's leases expire.
	rivalRep := b.drainUntilEmpty(t, b.effectHandler())
	require.Equal(t, 5, rivalRep.Delivered)

	resumed := time.Now()
	require.NoError(t, cmd.Process.Signal(syscall.SIGCONT))
	require.NoError(t, cmd.Wait())
	took := time.Since(resumed)
	var rep Report
	require.NoError(t, json.Unmarshal([]byte(out.String()), &rep), out.String())
	require.Greater(t, rep.Claimed, 1, "it held a delivery it had not started")
	require.Equal(t, rep.Claimed, rep.LostLeases)
	require.Zero(t, rep.Delivered+rep.Retried+rep.Dead)
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM attempts"), "no handler starts for a lease known lost")
	require.Equal(t, 5, b.count(t, "SELECT count(*) FROM effects"))
	require.Less(t, took, 3*time.Second, "the resumed run ends without running a 3 s handler")
}

// Scenario 3: sixteen handlers that block for ever without watching their
// context, among a hundred normal deliveries. The run ends within its bound,
// the normal deliveries flow, and the hanging ones count their attempt and,
// at the last attempt, go dead.
func TestHandlersThatIgnoreTheirContextAreAbandonedAndDeadLettered(t *testing.T) {
	_, b := setup(t)
	forever := make(chan struct{})
	t.Cleanup(func() { close(forever) })
	var events []Event
	for i := range 116 {
		e, err := NewEvent("t.b", fmt.Sprintf("key-%d", i), map[string]any{"n": i, "hang": i%7 == 0 && i < 7*16})
		require.NoError(t, err)
		events = append(events, e)
	}
	b.enqueue(t, events...)
	h := HandlerFunc(func(_ context.Context, d Delivery) error {
		p, err := payloadOf(d)
		if p.Hang {
			<-forever
		}
		return err
	})
	// A hanging handler holds its worker for its timeout plus a second: the
	// last of three rounds of them starts 4 s in, 2 s before the bound.
	cfg := Config{Concurrency: 8, MaxDuration: 6 * time.Second, HandlerTimeout: time.Second,
		LeaseDuration: 3 * time.Second, MaxAttempts: 1}
	d := b.drainer(t, map[string]Handler{"s1": h}, cfg)
	start := time.Now()
	run := runAsync(d, context.Background())
	var res runResult
	select {
	case res = <-run.done:
	case <-time.After(30 * time.Second):
		t.Fatal("the run is still alive at 30 s")
	}
	require.NoError(t, res.err)
	rep := res.rep
	require.Less(t, time.Since(start), cfg.MaxDuration+cfg.HandlerTimeout+hardStopDelay+3*time.Second,
		"bound, plus the handler timeout, plus the second before abandoning, plus slack")
	require.Equal(t, 100, rep.Delivered)
	require.Equal(t, 16, rep.Abandoned)
	require.Equal(t, 16, rep.Dead)
	require.Equal(t, 16, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead' AND last_error LIKE '%handler abandoned%'"))
	require.Equal(t, 16, b.count(t, "SELECT count(*) FROM outbox_deliveries"), "only the hanging deliveries are left")
}

// blackHole returns a pool through blackhole.Proxy in front of the
// test's database, and its hold function.
func blackHole(t *testing.T, b bundle) (*pgxpool.Pool, func()) {
	t.Helper()
	cfg := b.pool.Config()
	hold, stop := blackhole.Proxy(t, cfg)
	pool := poolOf(t, cfg, 8)
	t.Cleanup(stop)
	return pool, hold
}

// Scenario 4: the database stops answering right after a handler's effect.
// The run ends within its bound plus a statement timeout, and on SIGTERM
// (sent as soon as the database stops answering)
// within the grace plus two seconds, however long its statement timeout.
func TestRunEndsWhenTheDatabaseStopsAnswering(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		cfg       Config
		sigterm   bool          // once the database is held
		endsAfter time.Duration // at most, from the start, or from SIGTERM
	}{
		{"bound", Config{MaxDuration: 3 * time.Second, HandlerTimeout: 2 * time.Second, StatementTimeout: 2 * time.Second},
			false, 3*time.Second + 2*time.Second + 2*time.Second},
		{"sigterm", Config{MaxDuration: 3 * time.Second, StatementTimeout: time.Minute, ShutdownGrace: time.Second},
			true, time.Second + 2*hardStopDelay + 2*time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, b := setup(t)
			b.effects(t)
			b.enqueue(t, event(t, "t.b", 1), event(t, "t.b", 2))
			pool, hold := blackHole(t, b)
			held := make(chan struct{})
			var holdOnce sync.Once
			h := HandlerFunc(func(ctx context.Context, d Delivery) error {
				err := HandleOnce(ctx, pool, d, func(tx pgx.Tx) error {
					_, err := tx.Exec(ctx, "INSERT INTO effects VALUES ($1, $2)", d.Event.ID, d.Subscriber)
					return err
				})
				hold()
				holdOnce.Do(func() { close(held) })
				return err
			})
			cfg := tc.cfg
			cfg.Concurrency = 1
			d, err := NewDrainer(pool, map[string]Handler{"s1": h}, cfg, slog.New(slog.DiscardHandler))
			require.NoError(t, err)
			ctx, sigterm := context.WithCancel(context.Background())
			defer sigterm()
			from := time.Now()
			errs := make(chan error, 1)
			var rep Report
			go func() {
				var err error
				rep, err = d.Run(ctx)
				errs <- err
			}()
			if tc.sigterm {
				select {
				case <-held:
				case <-time.After(25 * time.Second):
					t.Fatal("no handler ran within 25 s")
				}
				sigterm()
				from = time.Now()
			}
			select {
			case err := <-errs:
				require.Error(t, err, "the run says the database could not be used")
				require.Equal(t, rep.Claimed, rep.Delivered+rep.Retried+rep.Dead+rep.LostLeases+rep.Released+rep.Unwritten,
					"every claimed delivery is accounted for: %+v", rep)
			case <-time.After(25 * time.Second):
				t.Fatal("the run is still alive 25 s after its start or SIGTERM")
			}
			require.Less(t, time.Since(from), tc.endsAfter)
			require.Equal(t, 1, b.count(t, "SELECT count(*) FROM effects"), "the first effect happened once")
		})
	}
}

// Scenario 5: a handler's error of 5,000 bytes of multi-byte characters
// with a NUL byte is stored, valid and cut at a character boundary, and
// does not fail the other failures written with it.
func TestLongMultiByteErrorIsStoredAsValidText(t *testing.T) {
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1), event(t, "t.b", 2), event(t, "t.b", 3))
	long := "\x00" + strings.Repeat("é", 2500) // 5,001 bytes; byte 4,000 is inside an é
	h := HandlerFunc(func(_ context.Context, d Delivery) error {
		p, err := payloadOf(d)
		if err != nil {
			return err
		}
		if p.N == 1 {
			return errors.New(long)
		}
		return errors.New("smtp: 451 try later")
	})
	d := b.drainer(t, map[string]Handler{"s1": h}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, rep.Retried)
	var stored string
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT last_error FROM outbox_deliveries WHERE length(last_error) > 100").Scan(&stored))
	require.True(t, utf8.ValidString(stored))
	require.NotContains(t, stored, "\x00")
	require.LessOrEqual(t, len(stored), maxErrorBytes)
	require.Equal(t, strings.Repeat("é", maxErrorBytes/2), stored)
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE last_error = 'smtp: 451 try later'"))
}
