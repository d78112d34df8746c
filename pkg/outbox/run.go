package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
)

// inflight is one claimed delivery between its claim and its written result.
type inflight struct {
	Delivery
	lease
	cancel  context.CancelFunc // set once its handler starts
	running bool
	lost    bool      // the heartbeat found the lease taken over
	until   time.Time // when the lease expires, as last confirmed by the claim or a heartbeat
	stop    time.Time // the handler's deadline: past it the lease is no longer extended
}

// result is what a worker reports for one delivery.
type result struct {
	f         *inflight
	err       error
	duplicate bool // the handler found the event already processed
	released  bool // cut short by shutdown or not started: hand back without using an attempt
	abandoned bool // the handler did not return after its context ended
}

// run is the state of one Run.
type run struct {
	d   *Drainer
	rep Report
	// db runs the drain's own statements on connections of their own, so
	// that lease extensions and result writes never queue behind handlers
	// for a connection of the handlers' pool.
	db *pgxpool.Pool

	ctx      context.Context // the run's: cancelled by SIGTERM
	deadline time.Time       // MaxDuration after the start: no handler starts later
	// hard is the parent of the drain's writes: it outlives SIGTERM, so a
	// shutdown does not throw away finished work, but ends hardStopDelay
	// after the handlers are abandoned, so a database that stops answering
	// cannot keep the process alive.
	hard context.Context
	// live is the parent of the lease checks and extensions: it ends when
	// a statement has failed (nothing more will be written) or the loop is
	// over, so neither waits for a database that stopped answering.
	live     context.Context
	stopLive context.CancelFunc
	mu       sync.Mutex // guards held and the inflight fields
	held     map[int64]*inflight
	base     context.Context // handlers' parent; cancelled when the shutdown grace ends
	stopAll  context.CancelFunc
	work     chan *inflight
	results  chan result
	finished chan struct{}

	// Results waiting to be written, in groups.
	ok         []lease
	duplicates int
	failed     []failure
	released   []lease

	window *claimWindow
}

// ownConns is the size of the pool of the drain's own statements: one for
// the claim-and-write loop, one for the heartbeat.
const ownConns = 2

// Run drains until cfg.MaxDuration has passed, cfg.MaxDeliveries have been
// claimed, ctx ends, or (with StopWhenIdle) nothing is due.
//
// Deliveries stream through the run: it keeps claimed what it can finish
// before its deadline at the rate measured so far (claimWindow: at least
// twice Concurrency, at most BatchSize), tops up with a new claim whenever
// half of that have finished, hands them to Concurrency workers, and
// writes results in groups as they come, so one
// slow handler never holds back the acknowledgement of others. Leases of
// claimed deliveries are extended every third of the lease while they wait
// or run, until their handler's timeout. The drain's own statements run on
// two connections it opens for the run from the pool's configuration, so
// handlers that hold every connection of the pool cannot starve them; each
// has a deadline (StatementTimeout). A delivery whose lease is known or
// found lost is never handed to its handler.
//
// When ctx ends (SIGTERM), the run stops claiming and starting handlers;
// running handlers get ShutdownGrace to finish, then are cancelled; those
// that return are released without using an attempt, those still running a
// second later are abandoned and their attempt counts. Claimed work is
// always finished, released or left to its lease's expiry when the
// database cannot be reached (Report.Unwritten): the first failed
// statement cancels the running handlers, so the run ends about a second
// after it. Run returns the report, and an error only
// when the database cannot be used; handler failures are counted, not
// returned.
func (d *Drainer) Run(ctx context.Context) (_ Report, runErr error) {
	start := d.clock.Now()
	cfg := d.pool.Config()
	cfg.MaxConns, cfg.MinConns, cfg.MinIdleConns = ownConns, 0, 0
	db, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return Report{}, fmt.Errorf("open the drain's connections: %w", err)
	}
	defer func() {
		if runErr != nil {
			// Closing a connection to a database that stopped answering
			// waits up to 15 s for a cancel request: do not wait with it.
			go db.Close()
			return
		}
		db.Close()
	}()
	r, stop := d.newRun(ctx, db, start)
	defer stop()

	var helpers sync.WaitGroup
	helpers.Go(func() { r.graceTimer(ctx) })
	helpers.Go(r.heartbeat)
	var workers sync.WaitGroup
	for range d.cfg.Concurrency {
		workers.Go(func() {
			for f := range r.work {
				r.results <- r.handle(f)
			}
		})
	}

	runErr = r.loop(ctx)
	r.stopLive()
	close(r.work)
	workers.Wait() // each handle returns within its handler's timeout plus hardStopDelay
	close(r.finished)
	helpers.Wait()

	if runErr == nil {
		// With the database failing, the backlog would only add a wait.
		r.rep.Backlog, runErr = d.backlog(r.hard, db)
	}
	r.rep.Duration = d.clock.Now().Sub(start)
	if r.rep.Abandoned > 0 {
		d.log.Warn("handlers did not return after their context ended; they were abandoned and their attempts count as failed",
			slog.Int("abandoned", r.rep.Abandoned))
	}
	return r.rep, runErr
}

// newRun returns the state of a run that started at start, with its
// contexts: handlers' (base), writes' (hard: ends ShutdownGrace plus twice
// hardStopDelay after ctx) and lease checks' (live). stop releases them.
func (d *Drainer) newRun(ctx context.Context, db *pgxpool.Pool, start time.Time) (*run, context.CancelFunc) {
	r := &run{
		ctx:      ctx,
		deadline: start.Add(d.cfg.MaxDuration),
		d:        d,
		db:       db,
		held:     map[int64]*inflight{},
		work:     make(chan *inflight, d.cfg.BatchSize),
		results:  make(chan result, d.cfg.BatchSize),
		finished: make(chan struct{}),
		window:   newClaimWindow(d.cfg, start),
	}
	r.base, r.stopAll = context.WithCancel(context.Background())
	var hardStop context.CancelFunc
	r.hard, hardStop = context.WithCancel(context.Background())
	stopAfter := context.AfterFunc(ctx, func() {
		time.AfterFunc(d.cfg.ShutdownGrace+2*hardStopDelay, hardStop)
	})
	r.live, r.stopLive = context.WithCancel(r.hard)
	return r, func() {
		r.stopLive()
		stopAfter()
		hardStop()
		r.stopAll()
	}
}

// loop claims, dispatches and collects until the run is over and nothing
// is in flight. Once a statement fails it writes nothing more: results not
// written are redelivered when their leases expire.
//
// It is longer than 60 lines on purpose: its locals (deliveries in flight,
// claimed so far, whether the last claim came back short, the poll timer,
// the first error) are the run's state machine, and every branch reads and
// changes most of them; split up, each piece would take and return them
// all.
func (r *run) loop(ctx context.Context) error { //nolint:funlen // the run's state machine, see above
	d := r.d
	var runErr error
	inflightN, claimed := 0, 0
	// exhausted: the last claim found less than it asked for, so the next
	// one waits for a poll, a wake-up, or everything in flight to finish.
	exhausted := false
	asked := false         // a poll or wake-up came since the last claim
	idleSignalled := false // the idle test signal fires once per idle spell
	var poll <-chan time.Time
	for {
		stopping := runErr != nil || ctx.Err() != nil || !d.clock.Now().Before(r.deadline) || claimed >= d.cfg.MaxDeliveries
		// A claim tops up the window when half of it has finished, or when
		// a poll or wake-up asks again after a short claim.
		window := r.window.size(d.clock.Now(), r.deadline)
		if !stopping && inflightN < window && (inflightN <= window/2 || asked) && (!exhausted || inflightN == 0) {
			asked = false
			want := min(window-inflightN, d.cfg.MaxDeliveries-claimed)
			claimedAt := d.clock.Now()
			batch, token, err := d.claim(ctx, r.db, want)
			if err != nil {
				if ctx.Err() == nil {
					runErr = r.broken(err)
				}
				continue
			}
			claimed += len(batch)
			inflightN += len(batch)
			r.rep.Claimed += len(batch)
			exhausted = len(batch) < want
			if len(batch) > 0 {
				d.signals.claimed.Signal(len(batch))
				idleSignalled = false
			}
			r.dispatch(batch, token, claimedAt.Add(d.cfg.LeaseDuration))
			if exhausted && inflightN == 0 {
				if err := r.flush(); err != nil {
					runErr = r.broken(err)
					continue
				}
				if !idleSignalled {
					d.signals.idle.Signal(struct{}{})
					idleSignalled = true
				}
				if d.cfg.StopWhenIdle || !d.idle(ctx, min(d.cfg.PollInterval, r.deadline.Sub(d.clock.Now()))) {
					break
				}
				exhausted = false
				r.window.restart(d.clock.Now())
			}
			continue
		}
		if inflightN == 0 {
			if stopping {
				break
			}
			continue
		}
		if exhausted && poll == nil && !stopping {
			poll = time.After(d.cfg.PollInterval)
		}
		var cancelled <-chan struct{}
		if ctx.Err() == nil {
			cancelled = ctx.Done()
		}
		select {
		case res := <-r.results:
			inflightN--
			r.collect(res)
		case <-poll:
			poll, exhausted, asked = nil, false, true
			continue
		case <-d.wake:
			poll, exhausted, asked = nil, false, true
			continue
		case <-cancelled:
		}
		// Take whatever else has finished, then write once nothing is ready.
		for more := true; more; {
			select {
			case res := <-r.results:
				inflightN--
				r.collect(res)
			default:
				more = false
			}
		}
		if runErr == nil {
			if err := r.flush(); err != nil {
				runErr = r.broken(err)
			}
		}
	}
	if runErr == nil {
		runErr = r.flush()
	}
	if runErr != nil {
		r.rep.Unwritten += len(r.ok) + len(r.failed) + len(r.released)
	}
	return runErr
}

// broken is called with the first failed statement's error, and returns
// it: nothing more will be written, so running handlers are cancelled
// (their results would come back by lease expiry anyway), no handler
// starts, and the heartbeat stops waiting for the database.
func (r *run) broken(err error) error {
	r.stopLive()
	r.stopAll()
	return err
}

// dispatch registers a claimed batch, whose leases run until until, and
// queues it for the workers. The work channel holds BatchSize and at most
// BatchSize are in flight, so this never blocks.
func (r *run) dispatch(batch []Delivery, token uuid.UUID, until time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, dl := range batch {
		f := &inflight{Delivery: dl, lease: lease{id: dl.ID, token: token}, until: until}
		r.held[dl.ID] = f
		r.work <- f
	}
}

// handle runs one delivery's handler with its deadline. A delivery is
// released without being started when the run is stopping (SIGTERM) or past
// MaxDuration, and dropped when its lease is lost. A handler still running
// hardStopDelay after its context ended is abandoned: handle returns a
// failure for it and leaves its goroutine behind.
func (r *run) handle(f *inflight) result {
	if r.ctx.Err() != nil || r.base.Err() != nil || r.live.Err() != nil || !r.d.clock.Now().Before(r.deadline) {
		return result{f: f, err: context.Canceled, released: true}
	}
	switch held, err := r.confirm(f); {
	case err != nil:
		return result{f: f, err: err, released: true}
	case !held:
		return result{f: f}
	}
	ctx, cancel := context.WithTimeout(r.base, r.d.cfg.HandlerTimeout)
	defer cancel()
	ctx, duplicate := withDuplicateFlag(ctx)
	stop := r.d.clock.Now().Add(r.d.cfg.HandlerTimeout) // the deadline ctx has, on the run's clock
	r.mu.Lock()
	f.cancel, f.running, f.stop = cancel, true, stop
	r.mu.Unlock()
	done := make(chan error, 1) // buffered: an abandoned handler's late return does not block
	go func() { done <- r.d.call(ctx, f.Delivery) }()
	var err error
	abandoned := false
	select {
	case err = <-done:
	case <-ctx.Done():
		t := time.NewTimer(hardStopDelay)
		select {
		case err = <-done:
			t.Stop()
		case <-t.C:
			abandoned = true
			err = fmt.Errorf("handler abandoned: still running %s after its context ended (%w)", hardStopDelay, ctx.Err())
		}
	}
	r.mu.Lock()
	f.running = false
	r.mu.Unlock()
	return result{f: f, err: err, duplicate: duplicate.Load(), abandoned: abandoned,
		released: err != nil && !abandoned && r.base.Err() != nil}
}

// confirm reports whether the run still holds f's lease. While the
// heartbeat keeps up this is known; when it does not (the process was
// paused, or the database is slow) and the lease may have expired, it asks
// the database, extending the lease if still held.
func (r *run) confirm(f *inflight) (bool, error) {
	r.mu.Lock()
	lost, until := f.lost, f.until
	r.mu.Unlock()
	if lost {
		return false, nil
	}
	if until.Sub(r.d.clock.Now()) > r.d.cfg.LeaseDuration/3 {
		return true, nil
	}
	asked := r.d.clock.Now()
	kept, err := r.d.extend(r.live, r.db, []lease{f.lease})
	if err != nil {
		return false, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(kept) == 0 {
		f.lost = true
		r.d.log.Warn("lease lost to another worker before its handler started", slog.Int64("delivery_id", f.id),
			slog.String("subscriber", f.Subscriber))
		return false, nil
	}
	f.until = asked.Add(r.d.cfg.LeaseDuration)
	return true, nil
}

// collect sorts one result into the groups to write.
func (r *run) collect(res result) {
	r.mu.Lock()
	delete(r.held, res.f.id)
	lost := res.f.lost
	r.mu.Unlock()
	r.window.done()
	if res.abandoned {
		r.rep.Abandoned++
	}
	switch {
	case lost:
		r.rep.LostLeases++
	case res.released:
		r.released = append(r.released, res.f.lease)
	case res.err == nil:
		r.ok = append(r.ok, res.f.lease)
		if res.duplicate {
			r.duplicates++
		}
	default:
		r.failed = append(r.failed, r.d.failure(res.f, res.err))
	}
}

// flush writes the collected results, under r.hard.
func (r *run) flush() error {
	if len(r.ok)+len(r.failed)+len(r.released) == 0 {
		return nil
	}
	wctx := r.hard
	var w Report // what this flush wrote, added to the run's report as it goes
	defer func() { r.rep = r.rep.plus(w) }()
	acked, err := r.d.ack(wctx, r.db, r.ok)
	if err != nil {
		return err
	}
	w.Delivered = acked
	w.Skipped = min(r.duplicates, acked)
	w.LostLeases = len(r.ok) - acked
	r.ok, r.duplicates = r.ok[:0], 0
	retried, dead, err := r.d.fail(wctx, r.db, r.failed)
	if err != nil {
		return err
	}
	w.Retried, w.Dead = retried, dead
	w.LostLeases += len(r.failed) - retried - dead
	r.failed = r.failed[:0]
	back, err := r.d.release(wctx, r.db, r.released)
	if err != nil {
		return err
	}
	w.Released = back
	w.LostLeases += len(r.released) - back
	r.released = r.released[:0]
	r.d.signals.flushed.Signal(w)
	return nil
}

// hardStopDelay is how long a handler gets to return once its context has
// ended, before the run abandons it.
const hardStopDelay = time.Second

// graceTimer cancels the handlers ShutdownGrace after ctx ends.
func (r *run) graceTimer(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-r.finished:
		return
	}
	t := time.NewTimer(r.d.cfg.ShutdownGrace)
	defer t.Stop()
	select {
	case <-t.C:
		r.stopAll()
	case <-r.finished:
	}
}

// heartbeat extends the leases of everything in flight every third of the
// lease, except those whose handler has passed its deadline. A delivery
// whose lease could not be extended was taken over: its handler is
// cancelled and its result will not be written.
func (r *run) heartbeat() {
	every := r.d.cfg.LeaseDuration / 3
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-r.finished:
			return
		case <-t.C:
		}
		now := r.d.clock.Now()
		r.mu.Lock()
		ls := make([]lease, 0, len(r.held))
		for _, f := range r.held {
			if !f.lost && !(f.running && now.After(f.stop)) {
				ls = append(ls, f.lease)
			}
		}
		r.mu.Unlock()
		if len(ls) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(r.live, every)
		kept, err := r.d.extend(ctx, r.db, ls)
		cancel()
		if err != nil {
			r.d.log.Warn("lease heartbeat failed", slog.String("error", err.Error()))
			continue
		}
		r.d.signals.heartbeat.Signal(len(kept))
		extended := make(map[int64]bool, len(kept))
		for _, id := range kept {
			extended[id] = true
		}
		r.mu.Lock()
		for _, l := range ls {
			f, ok := r.held[l.id]
			if !ok || f.lost {
				continue
			}
			if extended[l.id] {
				f.until = now.Add(r.d.cfg.LeaseDuration)
				continue
			}
			f.lost = true
			if f.running {
				f.cancel()
			}
			r.d.log.Warn("lease lost to another worker", slog.Int64("delivery_id", l.id),
				slog.String("subscriber", f.Subscriber))
		}
		r.mu.Unlock()
	}
}

// failure turns a handler error into a retry or a dead letter, and logs it.
func (d *Drainer) failure(f *inflight, err error) failure {
	dead := IsPermanent(err) || f.Attempt >= d.cfg.MaxAttempts
	out := failure{lease: f.lease, err: err.Error(), dead: dead}
	if !dead {
		out.delay = d.cfg.Backoff(f.Attempt)
	}
	// The event's trace context links the log line to the request's trace.
	ctx := propagator.Extract(context.Background(), headerCarrier(f.Event.Headers))
	d.log.WarnContext(ctx, "delivery failed",
		slog.Int64("delivery_id", f.ID), slog.String("subscriber", f.Subscriber),
		slog.String("topic", f.Event.Topic), slog.String("event_id", f.Event.ID.String()),
		slog.Int("attempt", f.Attempt), slog.Bool("dead", dead), slog.String("error", out.err))
	return out
}

// call runs the subscriber's handler in a span that continues the event's
// trace, turning a panic into a failed attempt.
func (d *Drainer) call(ctx context.Context, dl Delivery) (err error) {
	// A delivery whose previous attempts kept ending without a result (a
	// handler that kills its process) must not loop forever: past the
	// maximum it goes dead. One that failed normally is always tried again,
	// whatever maximum another drain used.
	if dl.leaseExpired && dl.Attempt > d.cfg.MaxAttempts {
		return Permanent(fmt.Errorf("%s (attempt %d of %d)", leaseExpiredError, dl.Attempt, d.cfg.MaxAttempts))
	}
	ctx, span := startDeliverySpan(ctx, dl)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("handler panicked: %v\n%s", r, debug.Stack())
		}
		endDeliverySpan(span, err)
	}()
	return d.handlers[dl.Subscriber].Handle(ctx, dl)
}

// idle waits up to wait for a wake-up; it reports false when ctx ended or
// there was no time left to wait.
func (d *Drainer) idle(ctx context.Context, wait time.Duration) bool {
	return sleepOrWake(ctx, wait, d.wake)
}

func sleep(ctx context.Context, d time.Duration) bool {
	return sleepOrWake(ctx, d, nil)
}

// sleepOrWake waits d, or less when wake (nil: never) fires; it reports
// false when ctx ended or d was not positive.
func sleepOrWake(ctx context.Context, d time.Duration, wake <-chan struct{}) bool {
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-wake:
	}
	return true
}
