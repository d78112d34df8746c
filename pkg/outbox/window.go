package outbox

import (
	"math"
	"time"
)

// claimWindow sizes a run's claims to what the run can finish. A run that
// claims more than its workers start before its deadline releases the rest
// unstarted, after extending their leases all along: measured under load
// (the long chaos run of 30 November, docs/chaos.md), runs claiming 1,000 at a time
// delivered 18 % of what they claimed and lease extensions of ~1,000 rows
// timed out. So a run holds at most what it finishes, at the rate measured
// since it last found work, before its deadline: never fewer than floor
// (twice Concurrency, so the workers are never idle for want of a claim),
// never more than ceiling (BatchSize). Until a delivery has finished, the
// window is floor.
type claimWindow struct {
	floor, ceiling int
	since          time.Time // start of the current busy spell
	finished       int       // deliveries finished since then
}

func newClaimWindow(cfg Config, now time.Time) *claimWindow {
	return &claimWindow{floor: min(2*cfg.Concurrency, cfg.BatchSize), ceiling: cfg.BatchSize, since: now}
}

// restart begins a new busy spell at now, after the run idled: the rate of
// the previous spell says nothing of the next.
func (w *claimWindow) restart(now time.Time) { w.since, w.finished = now, 0 }

// done counts one finished delivery.
func (w *claimWindow) done() { w.finished++ }

// size is how many deliveries the run may hold claimed at now.
func (w *claimWindow) size(now, deadline time.Time) int {
	elapsed := now.Sub(w.since).Seconds()
	if w.finished == 0 || elapsed <= 0 {
		return w.floor
	}
	finishable := float64(w.finished) / elapsed * deadline.Sub(now).Seconds()
	return max(w.floor, min(w.ceiling, int(math.Ceil(finishable))))
}
