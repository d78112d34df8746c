package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// wakeSQL sends the hint in a transaction of its own, committed without
// waiting for its WAL flush. A transaction that notifies holds a
// cluster-wide lock from its pre-commit until its commit has returned
// (PreCommit_Notify in PostgreSQL's src/backend/commands/async.c:
// "Serialize writers by acquiring a special lock that we hold till after
// commit"), and with synchronous_commit on that includes the flush. Sent
// inside the writer's transaction, as it was, the hint serialised every
// enqueueing commit of the cluster behind one another's flushes:
// SubmitReview's median went ×1.88 at 32 clients against the same outbox
// without the hint (docs/benchmarks.md). Here the lock lasts only for the
// commit record's insertion, and a hint lost in a crash costs nothing: the
// drains poll. The setting, local to this transaction, applies to its
// commit, which reads it before resetting it.
const wakeSQL = `SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, '')`

const (
	// DefaultWakeGap is the least time between two hints of one Waker.
	// Hints matter when the drains are idle; under a steady load they
	// are claiming anyway, and back-to-back hints would keep one of the
	// caller's pooled connections busy (at 1 ms a hint, 40 a second
	// occupy it 4 % of the time).
	DefaultWakeGap = 25 * time.Millisecond
	// wakeTimeout bounds one hint: one short statement.
	wakeTimeout = time.Second
)

// Waker sends the drains' wake-up hint (a NOTIFY on the channel their
// Listener listens on) after commits, outside the committing request: Wake
// returns at once, and one goroutine at a time sends hints, one for every
// commit that asked while the previous hint was on its way (so a burst of
// commits costs one or two hints), at most one per DefaultWakeGap. The
// goroutine ends when nothing is left to send. A hint that fails is logged
// and dropped: delivery never depends on it, the drains poll.
//
// On a platform that throttles an instance's CPU between requests (Cloud
// Run's request-based billing), a hint asked for at the end of a request is
// normally on the wire before the answer; if it is not, it goes out with
// the instance's next request, or the drains' poll delivers first.
type Waker struct {
	channel string
	log     *slog.Logger
	gap     time.Duration
	send    func(ctx context.Context) error
	signals wakerSignals

	mu      sync.Mutex
	running bool      // a goroutine is sending hints
	pending bool      // a commit asked since the running goroutine's last hint began
	last    time.Time // when the last hint began
}

// NewWaker returns a Waker that sends hints on channel over pool's
// connections (in production outbox.DefaultWakeupChannel and the
// functions' pool), logging failures to log.
func NewWaker(pool *pgxpool.Pool, channel string, log *slog.Logger) *Waker {
	w := &Waker{channel: channel, log: log, gap: DefaultWakeGap}
	w.send = func(ctx context.Context) error {
		if _, err := pool.Exec(ctx, wakeSQL, channel); err != nil {
			return fmt.Errorf("outbox: wake-up hint on %s: %w", channel, err)
		}
		return nil
	}
	return w
}

// Wake asks for a hint, to be sent after this call: call it after the
// commit of a transaction that enqueued events or made deliveries due.
// It never blocks.
func (w *Waker) Wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.running {
		w.pending = true
		return
	}
	w.running = true
	go w.run()
}

// run sends hints until no commit asked for one since the last began.
func (w *Waker) run() {
	for {
		w.mu.Lock()
		wait := w.gap - time.Since(w.last)
		w.mu.Unlock()
		if wait > 0 {
			time.Sleep(wait) // the throttle: commits meanwhile share the next hint
		}
		w.mu.Lock()
		w.pending, w.last = false, time.Now() // this hint covers every commit so far
		w.mu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), wakeTimeout)
		if err := w.send(ctx); err != nil {
			w.log.WarnContext(ctx, "wake-up hint not sent; the drains' next poll delivers", slog.String("error", err.Error()))
		}
		cancel()

		w.mu.Lock()
		if !w.pending {
			w.running = false
			w.mu.Unlock()
			w.signals.stopped.Signal(struct{}{})
			return
		}
		w.mu.Unlock()
	}
}
