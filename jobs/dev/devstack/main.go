// Command devstack runs the whole Lexora stack on a developer machine and
// stands in for Cloud Scheduler. It is what `make run` executes.
//
// In order, it:
//
//  1. starts mailpit (SMTP 127.0.0.1:1025, web UI and API 127.0.0.1:8025),
//     which receives every email the consumers send;
//  2. runs migrate, then seed, and stops if either fails;
//  3. starts the HTTP functions server, which also serves the built web
//     client (-web, frontend/dist) at / and the development sign-in, and
//     waits until its port accepts connections, then prints the URLs it serves;
//  4. starts a drain execution every 2 s, a prune execution every 60 s
//     and a fit execution (learners' own FSRS-6 parameters, jobs/fit) every
//     30 s, the first at once, so the seeded learner's fit is kept within
//     seconds of the start; never two executions of the same job at once. A tick that falls while
//     the previous execution still runs is not lost: the next execution
//     starts as soon as the previous one ends, so the outbox is drained
//     back to back instead of idling until the next tick.
//
// Every child's stdout and stderr are passed through line by line with a
// "[name]" prefix. A drain run that did nothing stays quiet: its JSON lines
// ("drain run" summary with claimed=0, info-level chatter) are held back and
// shown only when the run claimed work, logged a warning or an error, or
// exited with a failure.
//
// On SIGINT, SIGTERM or SIGHUP (the terminal closed), devstack stops every child it started (SIGTERM to the
// child's process group, SIGKILL after -stop-timeout) and exits 0; a second
// signal kills the children at once. If mailpit or the server dies on its
// own, or migrate or seed fails, it stops everything and exits 1.
//
// Children inherit devstack's environment plus:
//
//	all      DATABASE_URL (-database-url; default $DATABASE_URL or the local database)
//	server   PORT, WEBHOOK_ALLOW_HTTP=true (the demo's receiver is plain HTTP),
//	         AUTH_DEV=true (tokens from bin/devtoken and the sign-in at /dev/token),
//	         STATIC_DIR (-web, when not empty)
//	drain    SMTP_HOST, SMTP_PORT, DRAIN_MAX_DURATION=2s,
//	         DRAIN_POLL_INTERVAL=200ms, DRAIN_STOP_WHEN_IDLE=false, DRAIN_LISTEN=true
//
// Binaries are looked up in -bin (default ./bin, relative to the working
// directory, which `make run` sets to the repository root):
// mailpit, migrate, seed, server, drain, prune, fit.
//
// Usage:
//
//	devstack [-bin ./bin] [-web frontend/dist] [-port 8080] [-smtp 127.0.0.1:1025] [-mailpit-ui 127.0.0.1:8025]
//	         [-mailpit-db .run/mailpit.db] [-database-url URL] [-drain-every 2s] [-prune-every 60s]
//	         [-fit-every 30s] [-stop-timeout 5s]
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/lexora-app/lexora/jobs/dev/internal/childproc"
)

// localDatabaseURL is the development database that .ci/ensure-postgres provides.
const localDatabaseURL = "postgres://postgres@127.0.0.1:5432/lexora?sslmode=disable"

// Drain settings for the local scheduler: short bounded runs that keep
// polling while they last, so a new event is picked up within about 200 ms,
// and sooner when the LISTEN/NOTIFY hint wakes them.
var drainEnv = []string{
	"DRAIN_MAX_DURATION=2s",
	"DRAIN_POLL_INTERVAL=200ms",
	"DRAIN_STOP_WHEN_IDLE=false",
	"DRAIN_LISTEN=true",
	// Shorter than -stop-timeout, so a stopping drain hands its work back.
	"DRAIN_SHUTDOWN_GRACE=3s",
	// The demo's webhook receiver listens on loopback.
	"WEBHOOK_ALLOW_HTTP=true",
}

// config is the command line.
type config struct {
	binDir      string
	webDir      string
	port        int
	smtpAddr    string
	mailpitUI   string
	mailpitDB   string
	databaseURL string
	drainEvery  time.Duration
	pruneEvery  time.Duration
	fitEvery    time.Duration
	stopTimeout time.Duration
}

func parseFlags() config {
	var c config
	dbURL := os.Getenv("DATABASE_URL")
	if dbURL == "" {
		dbURL = localDatabaseURL
	}
	flag.StringVar(&c.binDir, "bin", "./bin", "directory holding mailpit, migrate, seed, server, drain, prune and fit")
	flag.StringVar(&c.webDir, "web", "frontend/dist", "the built web client, served at / (`make web` builds it); empty serves none")
	flag.IntVar(&c.port, "port", 8080, "port of the HTTP functions server")
	flag.StringVar(&c.smtpAddr, "smtp", "127.0.0.1:1025", "mailpit SMTP address (host:port)")
	flag.StringVar(&c.mailpitUI, "mailpit-ui", "127.0.0.1:8025", "mailpit web UI and API address (host:port)")
	flag.StringVar(&c.mailpitDB, "mailpit-db", ".run/mailpit.db", "mailpit database file; empty keeps mail in memory")
	flag.StringVar(&c.databaseURL, "database-url", dbURL, "PostgreSQL URL passed to every child as DATABASE_URL")
	flag.DurationVar(&c.drainEvery, "drain-every", 2*time.Second, "interval between drain executions")
	flag.DurationVar(&c.pruneEvery, "prune-every", 60*time.Second, "interval between prune executions")
	flag.DurationVar(&c.fitEvery, "fit-every", 30*time.Second, "interval between fit executions")
	flag.DurationVar(&c.stopTimeout, "stop-timeout", 5*time.Second, "grace between SIGTERM and SIGKILL when stopping a child")
	flag.Usage = func() {
		_, _ = fmt.Fprintf(flag.CommandLine.Output(), "usage: devstack [flags]\n\nRuns mailpit, migrate, seed, the functions server, and drain/prune/fit on a schedule.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	return c
}

func main() {
	os.Exit(run(parseFlags()))
}

// run starts the stack and supervises it until a signal (exit code 0) or a
// failure (exit code 1).
func run(cfg config) int {
	out := &console{w: os.Stdout}
	log := slog.New(slog.NewTextHandler(out.writer("devstack"), &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.Attr{} // the terminal does not need timestamps
			}
			return a
		},
	}))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &stack{
		cfg:      cfg,
		out:      out,
		log:      log,
		children: make(map[*child]struct{}),
		died:     make(chan *child, 2),
		force:    make(chan struct{}),
	}

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-sigs
		log.Info("stopping", "signal", sig.String())
		cancel()
		sig = <-sigs
		log.Warn("second signal: killing children", "signal", sig.String())
		close(s.force)
	}()

	err := s.run(ctx)
	cancel()
	s.stopAll()
	if err != nil {
		log.Error("devstack failed", "err", err)
		return 1
	}
	log.Info("stopped")
	return 0
}

// stack is the set of running children and the schedule that starts them.
type stack struct {
	cfg config
	out *console
	log *slog.Logger

	mu       sync.Mutex
	children map[*child]struct{}
	closed   bool // set by stopAll: start no more children

	loops sync.WaitGroup // the drain and prune schedulers
	died  chan *child    // a critical child (mailpit, server) exited
	force chan struct{}  // closed on a second signal: SIGKILL at once
}

// run brings the stack up and then waits. It returns nil when ctx ends
// (a signal) and an error when the stack cannot start or a critical child dies.
func (s *stack) run(ctx context.Context) error {
	cfg := s.cfg
	bin := func(name string) string { return filepath.Join(cfg.binDir, name) }
	for _, name := range []string{"mailpit", "migrate", "seed", "server", "drain", "prune", "fit"} {
		if _, err := os.Stat(bin(name)); err != nil {
			return fmt.Errorf("%s missing (run `make build` and .ci/ensure-mailpit): %w", bin(name), err)
		}
	}
	serverAddr := net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.port))
	for _, addr := range []string{cfg.smtpAddr, cfg.mailpitUI, serverAddr} {
		if dialable(addr) {
			return fmt.Errorf("%s is already in use (is another devstack running?)", addr)
		}
	}
	dbEnv := []string{"DATABASE_URL=" + cfg.databaseURL}

	// 1. mailpit
	// No version check: it calls GitHub, which local and CI machines may not reach.
	mailpitArgs := []string{"--smtp", cfg.smtpAddr, "--listen", cfg.mailpitUI, "--disable-version-check",
		"--max", "0"} // keep every message: the demo and the on-call count them against email_sends
	if cfg.mailpitDB != "" {
		if err := os.MkdirAll(filepath.Dir(cfg.mailpitDB), 0o755); err != nil {
			return err
		}
		mailpitArgs = append(mailpitArgs, "--database", cfg.mailpitDB)
	}
	mailpit, err := s.start("mailpit", bin("mailpit"), mailpitArgs, nil, nil)
	if err != nil {
		return err
	}
	s.critical(mailpit)

	// 2. schema and seed data
	for _, name := range []string{"migrate", "seed"} {
		if err := s.runOnce(ctx, name, bin(name), dbEnv); err != nil || ctx.Err() != nil {
			return err
		}
	}

	// 3. the functions server, once mail can be received
	for _, addr := range []string{cfg.smtpAddr, cfg.mailpitUI} {
		if err := s.waitDialable(ctx, "mailpit", addr, 30*time.Second); err != nil || ctx.Err() != nil {
			return err
		}
	}
	serverEnv := append(dbEnv, "PORT="+strconv.Itoa(cfg.port), "WEBHOOK_ALLOW_HTTP=true", "AUTH_DEV=true")
	if cfg.webDir != "" {
		serverEnv = append(serverEnv, "STATIC_DIR="+cfg.webDir)
	}
	server, err := s.start("server", bin("server"), nil, serverEnv, nil)
	if err != nil {
		return err
	}
	s.critical(server)
	if err := s.waitDialable(ctx, "server", serverAddr, 60*time.Second); err != nil || ctx.Err() != nil {
		return err
	}
	s.printReady(serverAddr)

	// 4. the scheduler
	smtpHost, smtpPort, err := net.SplitHostPort(cfg.smtpAddr)
	if err != nil {
		return fmt.Errorf("-smtp: %w", err)
	}
	drainArgs := append(append(dbEnv, "SMTP_HOST="+smtpHost, "SMTP_PORT="+smtpPort), drainEnv...)
	s.every(ctx, "drain", cfg.drainEvery, bin("drain"), drainArgs, quietDrain)
	s.every(ctx, "prune", cfg.pruneEvery, bin("prune"), dbEnv, nil)
	s.every(ctx, "fit", cfg.fitEvery, bin("fit"), dbEnv, nil)

	select {
	case <-ctx.Done():
		return nil
	case c := <-s.died:
		return fmt.Errorf("%s exited unexpectedly: %v", c.Name(), exitText(c.Err()))
	}
}

func (s *stack) printReady(serverAddr string) {
	s.out.line("devstack", "ready")
	if s.cfg.webDir != "" {
		s.out.line("devstack", "  web client  http://"+serverAddr+"/")
	}
	s.out.line("devstack", "  functions   http://"+serverAddr+"/<FunctionName>")
	s.out.line("devstack", "  mailpit UI  http://"+s.cfg.mailpitUI)
	s.out.line("devstack", "  database    "+s.cfg.databaseURL)
	s.out.line("devstack", "press Ctrl-C to stop")
}

// critical makes the death of c, outside shutdown, fatal for the stack.
func (s *stack) critical(c *child) {
	go func() {
		<-c.Done()
		s.died <- c // buffered for every critical child
	}()
}

// runOnce runs one job to completion. It returns an error if the job fails,
// or if a critical child dies meanwhile; nil if ctx ends first.
func (s *stack) runOnce(ctx context.Context, name, path string, env []string) error {
	c, err := s.start(name, path, nil, env, nil)
	if err != nil {
		return err
	}
	select {
	case <-c.Done():
		if c.Err() != nil {
			return fmt.Errorf("%s failed: %v", name, exitText(c.Err()))
		}
		return nil
	case <-ctx.Done():
		return nil
	case d := <-s.died:
		return fmt.Errorf("%s exited unexpectedly: %v", d.Name(), exitText(d.Err()))
	}
}

// waitDialable waits until addr accepts TCP connections. It gives up after
// timeout or when a critical child dies, and returns nil if ctx ends.
func (s *stack) waitDialable(ctx context.Context, name, addr string, timeout time.Duration) error {
	deadline := time.After(timeout)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !dialable(addr) {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return nil
		case <-deadline:
			return fmt.Errorf("%s: nothing listens on %s after %s", name, addr, timeout)
		case d := <-s.died:
			return fmt.Errorf("%s exited unexpectedly: %v", d.Name(), exitText(d.Err()))
		}
	}
	return nil
}

func dialable(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return false
	}
	return conn.Close() == nil
}

// every starts an execution of a job at once and then every interval, the
// way Cloud Scheduler triggers a Cloud Run Job, until ctx ends. At most one
// execution runs at a time; ticks that fall during an execution collapse into
// one execution started when it ends.
func (s *stack) every(ctx context.Context, name string, interval time.Duration, path string, env []string, f *filter) {
	s.loops.Go(func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		var running *child
		var done <-chan struct{} // nil while nothing runs
		pending := true          // run once right away
		for {
			if pending && running == nil && ctx.Err() == nil {
				pending = false
				c, err := s.start(name, path, nil, env, f)
				if err != nil {
					s.log.Error("cannot start", "job", name, "err", err)
				} else {
					running, done = c, c.Done()
				}
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				pending = true
			case <-done:
				if running.Err() != nil && ctx.Err() == nil {
					running.flushHeld()
					s.out.line(name, "exited: "+exitText(running.Err()))
				}
				running, done = nil, nil
			}
		}
	})
}

// stopAll stops the schedulers, then every child still running, in parallel.
// The caller must have cancelled the context given to the schedulers.
func (s *stack) stopAll() {
	s.loops.Wait()
	s.mu.Lock()
	s.closed = true
	running := make([]*child, 0, len(s.children))
	for c := range s.children {
		running = append(running, c)
	}
	s.mu.Unlock()

	var wg sync.WaitGroup
	for _, c := range running {
		wg.Go(func() { c.stop(s.cfg.stopTimeout, s.force) })
	}
	wg.Wait()
}

// child is one started process and the lines its filter holds back.
type child struct {
	*childproc.Proc
	out *console
	f   *filter

	heldMu sync.Mutex
	held   []string // lines f held back from the current run
}

// start starts path with args (childproc.Start: its own process group, dies
// with devstack), its stdout and stderr going line by line to the console
// through f (nil shows every line).
func (s *stack) start(name, path string, args, env []string, f *filter) (*child, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("stack is stopping")
	}
	c := &child{out: s.out, f: f}
	p, err := childproc.Start(childproc.Spec{Name: name, Path: path, Args: args, Env: env,
		OnLine: func(line string) { c.handleLine(name, line) }})
	if err != nil {
		return nil, err
	}
	c.Proc = p
	s.children[c] = struct{}{}
	go func() {
		<-p.Done()
		s.mu.Lock()
		delete(s.children, c)
		s.mu.Unlock()
	}()
	return c, nil
}

// handleLine shows line, or holds it back if the child's filter says so.
func (c *child) handleLine(name, line string) {
	if c.f == nil {
		c.out.line(name, line)
		return
	}
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	switch c.f.classify(line) {
	case show:
		c.out.line(name, line)
	case hold:
		if len(c.held) < maxHeld {
			c.held = append(c.held, line)
		}
	case release:
		for _, h := range c.held {
			c.out.line(name, h)
		}
		c.held = nil
		c.out.line(name, line)
	}
}

// flushHeld shows the lines still held back (the run failed).
func (c *child) flushHeld() {
	c.heldMu.Lock()
	defer c.heldMu.Unlock()
	for _, h := range c.held {
		c.out.line(c.Name(), h)
	}
	c.held = nil
}

// stop stops the child (childproc.Proc.Stop: SIGTERM to its process group,
// SIGKILL after grace or when force is closed) and says on the console when
// it had to be killed or could not be signalled.
func (c *child) stop(grace time.Duration, force <-chan struct{}) {
	killed, err := c.Stop(grace, force)
	if killed {
		c.out.line("devstack", fmt.Sprintf("%s did not stop within %s: killed it", c.Name(), grace))
	}
	if err != nil {
		c.out.line("devstack", "stop: "+err.Error())
	}
}

func exitText(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// maxHeld bounds the lines held back from one run.
const maxHeld = 1000

// verdict is what a filter decides for one output line.
type verdict int

const (
	show    verdict = iota // show this line now
	hold                   // keep it; shown only if the run turns out interesting
	release                // show the held lines, then this one
)

// filter decides which lines of a job's output reach the console.
type filter struct {
	classify func(line string) verdict
}

// quietDrain keeps idle drain runs off the console. Plain-text lines and
// warnings or errors are shown at once. Other JSON lines are held until the
// run's summary ("drain run"): shown with it if the run claimed work or
// reports an error. Otherwise they, and the summary, are shown only if the
// run exits with a failure, before its exit status.
var quietDrain = &filter{classify: func(line string) verdict {
	var m map[string]any
	if json.Unmarshal([]byte(line), &m) != nil {
		return show
	}
	severe := false
	for _, k := range []string{"level", "severity"} {
		if lvl, ok := m[k].(string); ok {
			switch strings.ToUpper(lvl) {
			case "WARN", "WARNING", "ERROR", "CRITICAL", "ALERT", "EMERGENCY":
				severe = true
			}
		}
	}
	msg, _ := m["message"].(string)
	if msg == "" {
		msg, _ = m["msg"].(string)
	}
	if msg != "drain run" {
		if severe {
			return show
		}
		return hold
	}
	if severe || m["error"] != nil || m["err"] != nil {
		return release
	}
	if claimed, ok := findNumber(m, "claimed"); !ok || claimed > 0 {
		return release // no count to judge by: better shown than hidden
	}
	return hold
}}

// findNumber returns the number under key in m or in an object nested in m
// (the summary may be logged as a group, e.g. {"report":{"claimed":3}}).
func findNumber(m map[string]any, key string) (float64, bool) {
	if v, ok := m[key].(float64); ok {
		return v, true
	}
	for _, v := range m {
		if sub, ok := v.(map[string]any); ok {
			if n, ok := findNumber(sub, key); ok {
				return n, true
			}
		}
	}
	return 0, false
}

// console writes whole lines, each prefixed with its source, from many
// goroutines.
type console struct {
	mu sync.Mutex
	w  io.Writer
}

// prefixWidth aligns the text after the longest prefix, "[devstack]".
const prefixWidth = len("[devstack] ")

func (c *console) line(name, text string) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%-*s%s\n", prefixWidth, "["+name+"]", text)
	c.mu.Lock()
	defer c.mu.Unlock()
	_, _ = c.w.Write(b.Bytes()) // the terminal: a line it cannot take has nowhere else to go
}

// writer returns an io.Writer that writes each line given to it as a line
// from name. It suits slog handlers, which write one record per call.
func (c *console) writer(name string) io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		for l := range strings.Lines(string(p)) {
			c.line(name, strings.TrimRight(l, "\n"))
		}
		return len(p), nil
	})
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
