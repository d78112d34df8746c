package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"time"
)

// fault is one injected fault: its kind, the drain execution it struck
// (drain kills and stops, and lease losses a drain logged; "" for the
// others) and when it began and ended (harness clock).
type fault struct {
	Kind       string
	Task       string
	Start, End time.Time
}

// faultLog records the faults injected so far.
type faultLog struct {
	mu     sync.Mutex
	faults []fault
}

func (l *faultLog) add(kind string, start time.Time) {
	l.addSpan(fault{Kind: kind, Start: start, End: time.Now()})
}

// addSpan records a fault, or an observed interruption.
func (l *faultLog) addSpan(f fault) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.faults = append(l.faults, f)
}

func (l *faultLog) all() []fault {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]fault(nil), l.faults...)
}

// injector injects faults at random moments until its context ends.
type injector struct {
	s   *stack
	w   *world
	log *faultLog
}

// weightedKinds are the faults picked at random, with their weights.
var weightedKinds = []struct {
	kind   string
	weight int
}{
	{"server-kill", 3},
	{"drain-kill", 4},
	{"drain-stop", 2},
	{"pg-restart", 1},
	{"reset pg-server", 2},
	{"reset pg-drain", 2},
	{"reset smtp", 2},
	{"latency pg-server", 1},
	{"latency pg-drain", 1},
	{"latency smtp", 1},
}

// run injects one random fault every interval on average (exponentially
// distributed gaps), and the receiver's two phases: 500 to everything for
// receiver500 at a third of the fault phase, and 410 Gone on the flaky
// endpoint from two thirds on.
func (in *injector) run(ctx context.Context, phase time.Duration, flaky string) {
	start := time.Now()
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, at := range []float64{1.0 / 3, 2.0 / 3} {
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Until(start.Add(time.Duration(at * float64(phase))))):
			}
			if at < 0.5 {
				t := time.Now()
				in.s.recv.fail500.Store(true)
				select {
				case <-ctx.Done():
				case <-time.After(in.s.cfg.receiver500):
				}
				in.s.recv.fail500.Store(false)
				in.log.add("receiver-500", t)
			} else {
				in.s.recv.setGone(flaky)
				in.log.add("receiver-410", time.Now())
			}
		}
	})
	total := 0
	for _, k := range weightedKinds {
		total += k.weight
	}
	script := faultKinds() // every kind once first, in random order
	for {
		gap := time.Duration(rand.ExpFloat64() * float64(in.s.cfg.faultEvery))
		if len(script) > 0 {
			gap /= 2
		}
		select {
		case <-ctx.Done():
			wg.Wait()
			return
		case <-time.After(gap):
		}
		kind := ""
		if len(script) > 0 {
			kind, script = script[0], script[1:]
		} else {
			n := rand.IntN(total)
			for _, k := range weightedKinds {
				if n -= k.weight; n < 0 {
					kind = k.kind
					break
				}
			}
		}
		if err := in.inject(ctx, kind); err != nil {
			in.s.logf("chaos: fault %s: %v\n", kind, err)
		}
	}
}

// inject performs one fault and records it, with a finer kind where the
// moment matters (a server killed with requests in flight, a drain killed
// while holding leases).
func (in *injector) inject(ctx context.Context, kind string) error {
	s := in.s
	start := time.Now()
	switch kind {
	case "server-kill":
		if in.w.inFlight.Load() > 0 {
			kind = "server-kill mid-request"
		}
		if err := s.killServer(time.Duration(200+rand.IntN(1500)) * time.Millisecond); err != nil {
			return err
		}
	case "drain-kill", "drain-stop":
		p := s.runningDrain()
		for i := 0; p == nil && i < 50; i++ { // between two executions
			time.Sleep(100 * time.Millisecond)
			p = s.runningDrain()
		}
		if p == nil {
			return fmt.Errorf("no drain task is running")
		}
		if s.heldLeases(ctx, p.name) > 0 {
			kind += " holding leases"
		}
		if strings.HasPrefix(kind, "drain-kill") {
			if err := p.p.Signal(syscall.SIGKILL); err != nil {
				return err
			}
		} else {
			if err := p.p.Signal(syscall.SIGSTOP); err != nil {
				return err
			}
			time.Sleep(leaseDuration + time.Duration(500+rand.IntN(2000))*time.Millisecond)
			if err := p.p.Signal(syscall.SIGCONT); err != nil {
				return err
			}
		}
		in.log.addSpan(fault{Kind: kind, Task: p.name, Start: start, End: time.Now()})
		return nil
	case "pg-restart":
		if err := s.pg.crashRestart(ctx); err != nil {
			return err
		}
	default:
		toxic, proxy, _ := strings.Cut(kind, " ")
		p := s.proxies[proxy]
		hold := 300 * time.Millisecond
		if toxic == "reset" {
			p.Reset()
		} else {
			p.Slow(time.Duration(100+rand.IntN(400))*time.Millisecond, 100*time.Millisecond)
			hold = time.Duration(1000+rand.IntN(3000)) * time.Millisecond
		}
		time.Sleep(hold)
		p.Heal()
	}
	in.log.add(kind, start)
	return nil
}

// heldLeases counts the deliveries drain execution exec holds a lease on
// right now: those its handlers are running (its trace), still leased
// (running, lease not expired); 0 when the database does not answer within
// a second. Another task's leases do not count.
func (s *stack) heldLeases(ctx context.Context, exec string) int {
	ids := s.trace.running(exec)
	if len(ids) == 0 {
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	var n int
	_ = s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox_deliveries WHERE id = ANY($1) AND state = 'running' AND available_at > now()`, ids).Scan(&n)
	return n
}
