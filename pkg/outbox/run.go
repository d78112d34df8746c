package outbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/uuid"
)

// inflight is one claimed delivery between its claim and its written result.
type inflight struct {
	Delivery
	lease
	cancel  context.CancelFunc // set once its handler starts
	running bool
	lost    bool // the heartbeat found the lease taken over
}

// result is what a worker reports for one delivery.
type result struct {
	f         *inflight
	err       error
	duplicate bool // the handler found the event already processed
	released  bool // cut short by shutdown: hand back without using an attempt
}

// run is the state of one Run.
type run struct {
	d   *Drainer
	rep Report

	ctx      context.Context // the run's: cancelled by SIGTERM
	mu       sync.Mutex      // guards held and the inflight fields
	held     map[int64]*inflight
	hardStop chan struct{}   // closed a moment after the grace, for handlers that ignore cancellation
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
}

// Run drains until cfg.MaxDuration has passed, cfg.MaxDeliveries have been
// claimed, ctx ends, or (with StopWhenIdle) nothing is due.
//
// Deliveries stream through the run: it keeps up to BatchSize of them
// claimed, tops up with a new claim whenever half have finished, hands them
// to Concurrency workers, and writes results in groups as they come, so one
// slow handler never holds back the acknowledgement of others. Leases of
// claimed deliveries are extended every third of the lease while they wait
// or run.
//
// When ctx ends (SIGTERM), the run stops claiming and starting handlers;
// running handlers get ShutdownGrace to finish, then are cancelled, and a
// second later the run releases whatever is still unfinished and returns.
// Claimed work is always finished or released. Run returns the report, and
// an error only when the database cannot be used; handler failures are
// counted, not returned.
func (d *Drainer) Run(ctx context.Context) (Report, error) {
	start := time.Now()
	r := &run{
		ctx:      ctx,
		hardStop: make(chan struct{}),
		d:        d,
		held:     map[int64]*inflight{},
		work:     make(chan *inflight, d.cfg.BatchSize),
		results:  make(chan result, d.cfg.BatchSize),
		finished: make(chan struct{}),
	}
	r.base, r.stopAll = context.WithCancel(context.Background())
	defer r.stopAll()

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

	runErr := r.loop(ctx, start.Add(d.cfg.MaxDuration))
	close(r.work)
	stopped := make(chan struct{})
	go func() { workers.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-r.hardStop:
		// Handlers that ignore their cancelled context are abandoned; what
		// they held was released, and the process is about to exit.
	}
	close(r.finished)
	helpers.Wait()

	backlog, err := d.backlog(context.WithoutCancel(ctx))
	r.rep.Backlog = backlog
	r.rep.Duration = time.Since(start)
	return r.rep, errors.Join(runErr, err)
}

// loop claims, dispatches and collects until the run is over and nothing
// is in flight.
func (r *run) loop(ctx context.Context, deadline time.Time) error {
	d := r.d
	var runErr error
	inflightN, claimed := 0, 0
	// exhausted: the last claim found less than it asked for, so the next
	// one waits for a poll, a wake-up, or everything in flight to finish.
	exhausted := false
	var poll <-chan time.Time
	for {
		stopping := runErr != nil || ctx.Err() != nil || !time.Now().Before(deadline) || claimed >= d.cfg.MaxDeliveries
		if !stopping && inflightN <= d.cfg.BatchSize/2 && (!exhausted || inflightN == 0) {
			want := min(d.cfg.BatchSize-inflightN, d.cfg.MaxDeliveries-claimed)
			batch, token, err := d.claim(ctx, want)
			if err != nil {
				if ctx.Err() == nil {
					runErr = err
				}
				continue
			}
			claimed += len(batch)
			inflightN += len(batch)
			r.rep.Claimed += len(batch)
			exhausted = len(batch) < want
			r.dispatch(batch, token)
			if exhausted && inflightN == 0 {
				if err := r.flush(ctx); err != nil {
					runErr = err
					continue
				}
				if d.cfg.StopWhenIdle || !d.idle(ctx, min(d.cfg.PollInterval, time.Until(deadline))) {
					break
				}
				exhausted = false
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
		case <-r.hardStop:
			r.abandon()
			inflightN = 0
			continue
		case <-poll:
			poll, exhausted = nil, false
			continue
		case <-d.wake:
			poll, exhausted = nil, false
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
		if err := r.flush(ctx); err != nil {
			runErr = err
		}
	}
	return errors.Join(runErr, r.flush(ctx))
}

// dispatch registers a claimed batch and queues it for the workers. The
// work channel holds BatchSize and at most BatchSize are in flight, so this
// never blocks.
func (r *run) dispatch(batch []Delivery, token uuid.UUID) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, dl := range batch {
		f := &inflight{Delivery: dl, lease: lease{id: dl.ID, token: token}}
		r.held[dl.ID] = f
		r.work <- f
	}
}

// handle runs one delivery's handler with its deadline, unless the run is
// stopping (SIGTERM): then the delivery is released without being started.
func (r *run) handle(f *inflight) result {
	if r.ctx.Err() != nil || r.base.Err() != nil {
		return result{f: f, err: context.Canceled, released: true}
	}
	ctx, cancel := context.WithTimeout(r.base, r.d.cfg.HandlerTimeout)
	defer cancel()
	ctx, duplicate := withDuplicateFlag(ctx)
	r.mu.Lock()
	f.cancel, f.running = cancel, true
	r.mu.Unlock()
	err := r.d.call(ctx, f.Delivery)
	r.mu.Lock()
	f.running = false
	r.mu.Unlock()
	return result{f: f, err: err, duplicate: duplicate.Load(), released: err != nil && r.base.Err() != nil}
}

// collect sorts one result into the groups to write.
func (r *run) collect(res result) {
	r.mu.Lock()
	delete(r.held, res.f.id)
	lost := res.f.lost
	r.mu.Unlock()
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

// flush writes the collected results. It uses a context that outlives a
// cancelled run, so a shutdown does not throw away finished work.
func (r *run) flush(ctx context.Context) error {
	wctx := context.WithoutCancel(ctx)
	acked, err := r.d.ack(wctx, r.ok)
	if err != nil {
		return err
	}
	retried, dead, err := r.d.fail(wctx, r.failed)
	if err != nil {
		return err
	}
	back, err := r.d.release(wctx, r.released)
	if err != nil {
		return err
	}
	r.rep.Delivered += acked
	r.rep.Skipped += min(r.duplicates, acked)
	r.rep.Retried += retried
	r.rep.Dead += dead
	r.rep.Released += back
	r.rep.LostLeases += len(r.ok) - acked + len(r.failed) - retried - dead + len(r.released) - back
	r.ok, r.failed, r.released, r.duplicates = r.ok[:0], r.failed[:0], r.released[:0], 0
	return nil
}

// hardStopDelay is how long handlers get to return once their contexts are
// cancelled at the end of the grace, before the run abandons them.
const hardStopDelay = time.Second

// graceTimer cancels the handlers ShutdownGrace after ctx ends, and gives
// up on them hardStopDelay later.
func (r *run) graceTimer(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-r.finished:
		return
	}
	for _, step := range []func(){r.stopAll, func() { close(r.hardStop) }} {
		wait := r.d.cfg.ShutdownGrace
		if r.base.Err() != nil {
			wait = hardStopDelay
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
			step()
		case <-r.finished:
			t.Stop()
			return
		}
	}
}

// abandon releases every delivery still held, for handlers that did not
// return after their cancellation; their late results are ignored.
func (r *run) abandon() {
	r.mu.Lock()
	for id, f := range r.held {
		if !f.lost {
			r.released = append(r.released, f.lease)
		}
		delete(r.held, id)
	}
	r.mu.Unlock()
	r.d.log.Warn("handlers did not stop after the shutdown grace; their deliveries are released")
}

// heartbeat extends the leases of everything in flight every third of the
// lease. A delivery whose lease could not be extended was taken over: its
// handler is cancelled and its result will not be written.
func (r *run) heartbeat() {
	t := time.NewTicker(r.d.cfg.LeaseDuration / 3)
	defer t.Stop()
	for {
		select {
		case <-r.finished:
			return
		case <-t.C:
		}
		r.mu.Lock()
		ls := make([]lease, 0, len(r.held))
		for _, f := range r.held {
			ls = append(ls, f.lease)
		}
		r.mu.Unlock()
		if len(ls) == 0 {
			continue
		}
		kept, err := r.d.extend(context.Background(), ls)
		if err != nil {
			r.d.log.Warn("lease heartbeat failed", slog.String("error", err.Error()))
			continue
		}
		extended := make(map[int64]bool, len(kept))
		for _, id := range kept {
			extended[id] = true
		}
		r.mu.Lock()
		for _, l := range ls {
			f, ok := r.held[l.id]
			if !ok || extended[l.id] || f.lost {
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
	if wait <= 0 {
		return false
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
	case <-d.wake:
	}
	return true
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
