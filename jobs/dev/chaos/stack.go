package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"github.com/lexora-app/lexora/jobs/dev/internal/childproc"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/testkit/faultproxy"
	"github.com/lexora-app/lexora/pkg/testkit/mailpit"
)

// stack is everything the harness runs: its PostgreSQL cluster, toxiproxy
// in front of it (one proxy for the server, one for the drains) and in
// front of mailpit's SMTP port, mailpit, the functions server, the drain
// tasks and the webhook receiver.
type stack struct {
	cfg  profile
	dir  string
	log  io.Writer // the children's output, one file
	pg   *cluster
	pool *pgxpool.Pool // direct to the database, for the checks

	toxics  *toxiproxy.ApiServer
	proxies map[string]*faultproxy.Proxy // pg-server, pg-drain, smtp

	mailpit   *childproc.Proc
	mail      mailpit.Client
	smtpAddr  string
	serverURL string
	recv      *receiver

	closeOnce sync.Once
	mu        sync.Mutex
	server    *childproc.Proc
	drains    []*drainExec // by task index; nil between executions
	faultsOn  atomic.Bool

	drainStats drainStats
	// observed are lease losses the drains logged, each with the execution
	// that logged it: a drain stalled past its lease (stopped, or starved of
	// CPU) and another took the work over.
	observed faultLog
	// trace holds the handler attempts the drains traced.
	trace *trace
}

// drainExec is one execution of a drain task: its process and its name
// ("drain-<task>.<run>"), which its trace lines and faults are tied to.
type drainExec struct {
	name string
	p    *childproc.Proc
}

// deliveryKey names the delivery of one event to one subscriber.
type deliveryKey struct{ event, subscriber string }

// drainStats adds up what the drain processes logged.
type drainStats struct {
	mu sync.Mutex
	// runs counts the summary lines read; total adds up their reports.
	runs  int
	total outbox.Report
	// unbalanced lists summaries whose claimed deliveries are not all
	// accounted for; unreadable, summary lines that did not decode.
	unbalanced, unreadable []string
	injected               map[string]int // subscriber faults by kind
	failedRuns             int            // runs that exited non-zero (not killed)
}

const dbName = "lexora"

// startStack brings everything up, migrated and seeded.
func startStack(ctx context.Context, cfg profile, dir string, logFile io.Writer) (*stack, error) {
	s := &stack{cfg: cfg, dir: dir, log: &lockedWriter{w: logFile}, proxies: map[string]*faultproxy.Proxy{},
		drainStats: drainStats{injected: map[string]int{}}, trace: newTrace()}
	bin := func(name string) string { return filepath.Join(cfg.binDir, name) }
	for _, name := range []string{"mailpit", "migrate", "seed", "server", "drain"} {
		if _, err := os.Stat(bin(name)); err != nil {
			return nil, fmt.Errorf("%s missing (make build and .ci/ensure-mailpit install it): %w", bin(name), err)
		}
	}

	var err error
	if s.pg, err = newCluster(ctx, dir, false); err != nil {
		return nil, err
	}
	if err := s.pg.exec(ctx, "postgres", "CREATE DATABASE "+dbName); err != nil {
		return nil, fmt.Errorf("create database: %w", err)
	}
	direct := []string{"DATABASE_URL=" + s.pg.URL(dbName)}
	for _, job := range []string{"migrate", "seed"} {
		p, err := childproc.Start(childproc.Spec{Name: job, Path: bin(job), Env: direct, Log: s.log})
		if err != nil {
			return nil, err
		}
		<-p.Done()
		if p.Err() != nil {
			return nil, fmt.Errorf("%s: %w (see %s)", job, p.Err(), filepath.Join(dir, "stack.log"))
		}
	}
	if s.pool, err = pgxpool.New(ctx, s.pg.URL(dbName)); err != nil {
		return nil, err
	}

	// mailpit, keeping every message.
	smtpPort, apiPort := freePort(), freePort()
	s.smtpAddr = "127.0.0.1:" + strconv.Itoa(smtpPort)
	s.mail = mailpit.Client{URL: "http://127.0.0.1:" + strconv.Itoa(apiPort)}
	if s.mailpit, err = childproc.Start(childproc.Spec{Name: "mailpit", Path: bin("mailpit"), Args: []string{"--smtp", s.smtpAddr,
		"--listen", "127.0.0.1:" + strconv.Itoa(apiPort), "--database", filepath.Join(dir, "mailpit.db"),
		"--max", "0", "--disable-version-check"}, Log: s.log}); err != nil {
		return nil, err
	}
	for _, addr := range []string{s.smtpAddr, "127.0.0.1:" + strconv.Itoa(apiPort)} {
		if err := waitDialable(addr, 30*time.Second); err != nil {
			return nil, fmt.Errorf("mailpit: %w", err)
		}
	}

	// toxiproxy, inside the harness.
	s.toxics = toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	for name, upstream := range map[string]string{"pg-server": s.pg.Addr(), "pg-drain": s.pg.Addr(), "smtp": s.smtpAddr} {
		if s.proxies[name], err = faultproxy.Start(s.toxics, name, "127.0.0.1:"+strconv.Itoa(freePort()), upstream); err != nil {
			return nil, err
		}
	}

	if s.recv, err = startReceiver(); err != nil {
		return nil, err
	}
	s.serverURL = "http://127.0.0.1:" + strconv.Itoa(freePort())
	if err := s.startServer(); err != nil {
		return nil, err
	}
	return s, nil
}

// proxiedURL is the database URL through proxy name.
func (s *stack) proxiedURL(name string) string {
	return fmt.Sprintf("postgres://postgres@%s/%s?sslmode=disable", s.proxies[name].Listen, dbName)
}

// startServer starts the functions server and waits until it listens.
func (s *stack) startServer() error {
	port := strings.TrimPrefix(s.serverURL, "http://127.0.0.1:")
	p, err := childproc.Start(childproc.Spec{Name: "server", Path: filepath.Join(s.cfg.binDir, "server"), Env: []string{
		"DATABASE_URL=" + s.proxiedURL("pg-server"), "PORT=" + port, "AUTH_DEV=true",
		"WEBHOOK_ALLOW_HTTP=true", "DATABASE_MAX_CONNS=16",
	}, Log: s.log})
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.server = p
	s.mu.Unlock()
	return waitDialable("127.0.0.1:"+port, 60*time.Second)
}

// killServer kills the server (SIGKILL) and starts it again after a pause.
func (s *stack) killServer(pause time.Duration) error {
	s.mu.Lock()
	p := s.server
	s.mu.Unlock()
	if err := p.Signal(syscall.SIGKILL); err != nil {
		return err
	}
	<-p.Done()
	time.Sleep(pause)
	return s.startServer()
}

// drainEnv is the environment of drain task i: short bounded runs that keep
// polling, short leases (so a stopped task loses them within seconds), few
// attempts and short backoffs (so that faults make dead letters), and the
// subscriber faults while faults are on.
func (s *stack) drainEnv(i int) []string {
	host, port, _ := net.SplitHostPort(s.proxies["smtp"].Listen)
	env := []string{
		"DATABASE_URL=" + s.proxiedURL("pg-drain"), "DATABASE_MAX_CONNS=6",
		"SMTP_HOST=" + host, "SMTP_PORT=" + port, "SMTP_TIMEOUT=3s",
		"WEBHOOK_ALLOW_HTTP=true", "WEBHOOK_TIMEOUT=2s",
		"DRAIN_MAX_DURATION=6s", "DRAIN_STOP_WHEN_IDLE=false", "DRAIN_POLL_INTERVAL=250ms", "DRAIN_LISTEN=true",
		"DRAIN_LEASE_DURATION=" + leaseDuration.String(), "DRAIN_HANDLER_TIMEOUT=2s", "DRAIN_SHUTDOWN_GRACE=2s",
		"DRAIN_MAX_ATTEMPTS=5", "DRAIN_BACKOFF_BASE=250ms", "DRAIN_BACKOFF_MAX=2s",
		"DRAIN_CHAOS_TRACE=true",
		"CLOUD_RUN_TASK_INDEX=" + strconv.Itoa(i), "CLOUD_RUN_TASK_COUNT=" + strconv.Itoa(s.cfg.drainTasks),
	}
	if s.faultsOn.Load() {
		env = append(env, "DRAIN_CHAOS_SUBSCRIBER_FAULTS="+s.cfg.subscriberFaults)
	}
	return env
}

// leaseDuration is the drains' lease: a SIGSTOP longer than this loses it.
const leaseDuration = 3 * time.Second

// runDrains starts the drain tasks, each a loop of executions (as Cloud
// Scheduler starts a Cloud Run Job execution of several tasks), until ctx
// ends; then it stops the running executions (SIGTERM) and returns.
func (s *stack) runDrains(ctx context.Context) {
	s.mu.Lock()
	s.drains = make([]*drainExec, s.cfg.drainTasks)
	s.mu.Unlock()
	var wg sync.WaitGroup
	for i := range s.cfg.drainTasks {
		wg.Go(func() {
			for n := 1; ctx.Err() == nil; n++ {
				name := fmt.Sprintf("drain-%d.%d", i, n)
				p, err := childproc.Start(childproc.Spec{Name: "drain-" + strconv.Itoa(i), Path: filepath.Join(s.cfg.binDir, "drain"),
					Env: s.drainEnv(i), Log: s.log, OnLine: func(l string) { s.drainLine(name, l) }})
				if err != nil {
					s.logf("chaos: %v\n", err)
					time.Sleep(time.Second)
					continue
				}
				s.mu.Lock()
				s.drains[i] = &drainExec{name: name, p: p}
				s.mu.Unlock()
				select {
				case <-p.Done():
				case <-ctx.Done():
					if _, err := p.Stop(5*time.Second, nil); err != nil {
						s.logf("chaos: %v\n", err)
					}
				}
				s.trace.exit(name, time.Now())
				s.mu.Lock()
				s.drains[i] = nil
				s.mu.Unlock()
				if p.ExitCode() > 0 {
					s.drainStats.mu.Lock()
					s.drainStats.failedRuns++
					s.drainStats.mu.Unlock()
					time.Sleep(200 * time.Millisecond) // e.g. the database is restarting
				}
			}
		})
	}
	wg.Wait()
}

// drainLine reads one line of drain execution exec: its summary, injected
// faults, traced attempts and lost leases.
func (s *stack) drainLine(exec, line string) {
	var m struct {
		Message    string          `json:"message"`
		Kind       string          `json:"kind"`
		EventID    string          `json:"event_id"`
		Subscriber string          `json:"subscriber"`
		DeliveryID int64           `json:"delivery_id"`
		Error      string          `json:"error"`
		Time       time.Time       `json:"time"`
		Report     json.RawMessage `json:"report"`
	}
	if json.Unmarshal([]byte(line), &m) != nil {
		return
	}
	if m.Time.IsZero() {
		m.Time = time.Now()
	}
	switch m.Message {
	case "chaos attempt":
		s.trace.started(exec, deliveryKey{m.EventID, m.Subscriber}, m.DeliveryID, m.Time)
		return
	case "chaos attempt done":
		s.trace.done(exec, m.DeliveryID, m.Time, m.Error)
		return
	case "lease lost to another worker", "lease heartbeat failed":
		s.observed.addSpan(fault{Kind: "lease lost (observed)", Task: exec, Start: m.Time.Add(-leaseDuration), End: m.Time})
		return
	}
	st := &s.drainStats
	st.mu.Lock()
	defer st.mu.Unlock()
	switch m.Message {
	case "drain run":
		var r outbox.Report
		if err := json.Unmarshal(m.Report, &r); err != nil {
			st.unreadable = append(st.unreadable, fmt.Sprintf("%v: %s", err, shorten(line)))
			return
		}
		st.add(r, string(m.Report))
		if r.LostLeases > 0 {
			// Leases lost without the heartbeat noticing (the handler had
			// finished) show only here: the whole run may have stalled.
			s.observed.addSpan(fault{Kind: "lease lost (drain run summary)", Task: exec,
				Start: m.Time.Add(-r.Duration - leaseDuration), End: m.Time})
		}
	case "injected subscriber fault":
		st.injected[m.Kind]++
	}
}

// add counts one run's report (raw is its summary, for the report of an
// unbalanced one); st.mu is held.
func (st *drainStats) add(r outbox.Report, raw string) {
	st.runs++
	t := &st.total
	t.Claimed += r.Claimed
	t.Delivered += r.Delivered
	t.Skipped += r.Skipped
	t.Retried += r.Retried
	t.Dead += r.Dead
	t.LostLeases += r.LostLeases
	t.Released += r.Released
	t.Unwritten += r.Unwritten
	t.Abandoned += r.Abandoned
	if r.Claimed != r.Delivered+r.Retried+r.Dead+r.LostLeases+r.Released+r.Unwritten {
		st.unbalanced = append(st.unbalanced, raw)
	}
}

// runningDrain returns a random drain task's current execution, or nil.
func (s *stack) runningDrain() *drainExec {
	s.mu.Lock()
	defer s.mu.Unlock()
	var live []*drainExec
	for _, p := range s.drains {
		if p != nil {
			live = append(live, p)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return live[rand.IntN(len(live))]
}

// close stops everything the stack started; later calls do nothing.
func (s *stack) close() { s.closeOnce.Do(s.stopAll) }

// logf writes a line of the run's own to the stack's log. The log is where
// such lines go; a failed write has nowhere else to go and changes no check.
func (s *stack) logf(format string, args ...any) { _, _ = fmt.Fprintf(s.log, format, args...) }

func (s *stack) stopAll() {
	s.mu.Lock()
	server := s.server
	s.mu.Unlock()
	for _, p := range []*childproc.Proc{server, s.mailpit} {
		if p == nil {
			continue
		}
		if _, err := p.Stop(5*time.Second, nil); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
		}
	}
	for _, p := range s.proxies {
		p.Stop()
	}
	if s.recv != nil {
		s.recv.close()
	}
	if s.pool != nil {
		s.pool.Close()
	}
	if s.pg != nil {
		if err := s.pg.stop(); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
		}
	}
}
