package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/database"
)

// soakMain is `chaos soak`: on a cluster of its own with production-like
// settings (autovacuum on, fsync on), it commits events at a steady rate
// for -duration while one drain in loop mode delivers them to two no-op
// subscribers and a prune runs every minute, and samples the outbox tables'
// sizes, dead tuples, the claim scan's time and the machine's load average
// every -every. It writes the samples as CSV, the run (machine, cluster,
// settings) as JSON beside them, and a chart (PNG) to -out.
func soakMain(args []string) int {
	fs := flag.NewFlagSet("soak", flag.ExitOnError)
	duration := fs.Duration("duration", 30*time.Minute, "how long to run")
	rate := fs.Int("rate", 200, "events committed per second (one per transaction)")
	every := fs.Duration("every", 15*time.Second, "sampling interval")
	retention := fs.Duration("retention", 2*time.Minute, "PRUNE_RETENTION of the prune that runs every minute")
	autovacuum := fs.Bool("autovacuum", true, "autovacuum on (production) or off (as on this machine's shared server)")
	out := fs.String("out", "docs/bench", "folder for soak.csv and soak.png (suffixed -noautovacuum when -autovacuum=false)")
	bin := fs.String("bin", "./bin", "folder with migrate")
	_ = fs.Parse(args)

	ctx := context.Background()
	head := commit() // now: the checkout may move during the half hour
	_, pool, stopCluster, err := benchCluster(ctx, "soak", *bin, !*autovacuum)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	defer stopCluster()
	defer pool.Close()

	ob, err := outbox.New(outbox.Subscription{Topic: "soak", Subscriber: "a"}, outbox.Subscription{Topic: "soak", Subscriber: "b"})
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	noop := outbox.HandlerFunc(func(context.Context, outbox.Delivery) error { return nil })
	drainer, err := outbox.NewDrainer(pool, map[string]outbox.Handler{"a": noop, "b": noop},
		outbox.Config{MaxDuration: *duration + time.Hour, MaxDeliveries: 1 << 30, PollInterval: 200 * time.Millisecond}, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	runCtx, stop := context.WithTimeout(ctx, *duration)
	defer stop()
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = drainer.Run(runCtx) })

	// The producer: slot i at start + i/rate, eight committing goroutines.
	start := time.Now()
	var committed int64
	var mu sync.Mutex
	var lat []time.Duration
	slots := make(chan time.Time, 64)
	wg.Go(func() {
		defer close(slots)
		for i := 0; ; i++ {
			at := start.Add(time.Duration(i) * time.Second / time.Duration(*rate))
			select {
			case <-runCtx.Done():
				return
			case <-time.After(time.Until(at)):
				slots <- at
			}
		}
	})
	for range 8 {
		wg.Go(func() {
			for at := range slots {
				t0 := time.Now()
				tx, err := pool.Begin(runCtx)
				if err != nil {
					continue
				}
				ev, _ := outbox.NewEvent("soak", strconv.Itoa(int(at.UnixNano()%1000)), map[string]int64{"at": at.UnixNano()})
				if ob.Enqueue(runCtx, tx, ev) != nil || tx.Commit(runCtx) != nil {
					_ = tx.Rollback(context.Background())
					continue
				}
				mu.Lock()
				committed++
				lat = append(lat, time.Since(t0))
				mu.Unlock()
			}
		})
	}
	// Prune every minute, as Cloud Scheduler would.
	pruned := int64(0)
	wg.Go(func() {
		tick := time.NewTicker(time.Minute)
		defer tick.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-tick.C:
				rep, err := outbox.Prune(runCtx, pool, outbox.PruneConfig{Retention: *retention, DedupRetention: 2 * *retention})
				if err == nil {
					pruned += rep.Events
				}
			}
		}
	})

	// The samples.
	var samples []soakSample
	tick := time.NewTicker(*every)
sampling:
	for {
		select {
		case <-runCtx.Done():
			break sampling
		case <-tick.C:
		}
		s, err := sample(ctx, pool)
		if err != nil {
			fmt.Fprintln(os.Stderr, "soak: sample:", err)
			continue
		}
		s.Minute = time.Since(start).Minutes()
		mu.Lock()
		s.Committed = committed
		s.CommitP50 = percentile(lat, 0.5)
		lat = lat[:0]
		mu.Unlock()
		samples = append(samples, s)
		fmt.Printf("soak %5.1f min: events %6.2f MB (%d live), deliveries %6.2f MB (%d live, %d dead tuples), claim scan %.2f ms, commit p50 %.2f ms\n",
			s.Minute, mb(s.EventsBytes), s.EventsLive, mb(s.DeliveriesBytes), s.DeliveriesLive, s.DeliveriesDead, s.ClaimMs, ms(s.CommitP50))
	}
	tick.Stop()
	wg.Wait()

	suffix := ""
	if !*autovacuum {
		suffix = "-noautovacuum"
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	if err := writeSoakCSV(filepath.Join(*out, "soak"+suffix+".csv"), samples); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	run := soakRun{When: start.UTC().Format("2006-01-02 15:04") + "–" + time.Now().UTC().Format("15:04 UTC"), Machine: machine(),
		Cluster: soakCluster(*autovacuum), Rate: *rate, Duration: duration.String(), Retention: retention.String(), Autovacuum: *autovacuum,
		Commit: head, Command: soakCommand(args), Committed: committed, Pruned: pruned}
	if err := writeSoakRun(filepath.Join(*out, "soak"+suffix+".json"), run); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	if err := soakChart(filepath.Join(*out, "soak"+suffix+".png"), run, samples); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 2
	}
	fmt.Printf("soak: %d events committed, %d pruned; samples in %s\n", committed, pruned, *out)
	return 0
}

// benchCluster starts, in a new temporary folder, a private cluster with
// production-like settings (fsync and autovacuum on, unless noAutovacuum)
// and a migrated database. stop stops the cluster and removes the folder,
// writing what fails to stderr after name (the command's, as its other
// messages). On error nothing is left running or on disk.
func benchCluster(ctx context.Context, name, bin string, noAutovacuum bool) (pg *cluster, pool *pgxpool.Pool, stop func(), err error) {
	dir, err := os.MkdirTemp("", "lexora-"+name+"-")
	if err != nil {
		return nil, nil, nil, err
	}
	removeDir := func() {
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintln(os.Stderr, name+":", err)
		}
	}
	pg, err = newCluster(ctx, dir, true)
	if err != nil {
		removeDir()
		return nil, nil, nil, err
	}
	fail := func(err error) (*cluster, *pgxpool.Pool, func(), error) {
		_ = pg.stop()
		removeDir()
		return nil, nil, nil, err
	}
	if noAutovacuum {
		if err := pg.exec(ctx, "postgres", "ALTER SYSTEM SET autovacuum = off"); err != nil {
			return fail(err)
		}
		if err := pg.exec(ctx, "postgres", "SELECT pg_reload_conf()"); err != nil {
			return fail(err)
		}
	}
	if err := pg.exec(ctx, "postgres", "CREATE DATABASE "+dbName); err != nil {
		return fail(err)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "migrate"))
	cmd.Env = append(os.Environ(), "DATABASE_URL="+pg.URL(dbName))
	if out, err := cmd.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("migrate: %w: %s", err, out))
	}
	p, err := database.Open(ctx, database.Config{URL: pg.URL(dbName), MaxConns: 16,
		StatementTimeout: 30 * time.Second, IdleInTransactionTimeout: time.Minute})
	if err != nil {
		return fail(err)
	}
	return pg, p.Pool, func() {
		if err := pg.stop(); err != nil {
			fmt.Fprintln(os.Stderr, name+":", err)
		}
		removeDir()
	}, nil
}

// soakSample is one sample of the outbox tables.
type soakSample struct {
	Minute                                       float64
	EventsBytes, DeliveriesBytes, ProcessedBytes int64 // table + indexes + TOAST
	EventsLive, DeliveriesLive, DeliveriesDead   int64 // pg_stat_user_tables n_live_tup, n_dead_tup
	ClaimMs                                      float64
	Committed                                    int64
	CommitP50                                    time.Duration
	Load1                                        float64 // the machine's one-minute load average; -1 when unknown
}

// claimScanSQL is the claim's index scan without its update: what an idle
// or emptied outbox costs a claim.
const claimScanSQL = `SELECT id FROM outbox_deliveries WHERE state IN ('pending', 'running') AND available_at <= now()
ORDER BY available_at, id LIMIT 1000`

func sample(ctx context.Context, pool *pgxpool.Pool) (soakSample, error) {
	var s soakSample
	err := pool.QueryRow(ctx, `SELECT pg_total_relation_size('outbox_events'), pg_total_relation_size('outbox_deliveries'),
		pg_total_relation_size('outbox_processed'),
		(SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'outbox_events'),
		(SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'outbox_deliveries'),
		(SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'outbox_deliveries')`).Scan(
		&s.EventsBytes, &s.DeliveriesBytes, &s.ProcessedBytes, &s.EventsLive, &s.DeliveriesLive, &s.DeliveriesDead)
	if err != nil {
		return s, err
	}
	t0 := time.Now()
	rows, err := pool.Query(ctx, claimScanSQL)
	if err != nil {
		return s, err
	}
	rows.Close()
	s.ClaimMs = float64(time.Since(t0).Microseconds()) / 1000
	s.Load1 = load1()
	return s, rows.Err()
}

// percentile returns the p-quantile (0..1) of ds, nearest rank; 0 when empty.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p*float64(len(s))+0.5) - 1
	return s[min(max(i, 0), len(s)-1)]
}

func mb(b int64) float64         { return float64(b) / (1 << 20) }
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// clusterMain is `chaos cluster -- command args...`: it runs the command
// with LEXORA_TEST_DATABASE_URL pointing at a cluster of its own with
// production-like settings (autovacuum and fsync on), which it stops
// afterwards, so that benchmarks can be measured on it as well as on the
// machine's shared server (autovacuum off). The exit status is the command's.
func clusterMain(args []string) int {
	fs := flag.NewFlagSet("cluster", flag.ExitOnError)
	bin := fs.String("bin", "./bin", "folder with migrate")
	_ = fs.Parse(args)
	if fs.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: chaos cluster [-bin ./bin] -- command [args...]")
		return 2
	}
	ctx := context.Background()
	pg, pool, stopCluster, err := benchCluster(ctx, "cluster", *bin, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		return 2
	}
	pool.Close()
	defer stopCluster()
	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Env = append(os.Environ(), "LEXORA_TEST_DATABASE_URL="+pg.URL("postgres"))
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	fmt.Fprintf(os.Stderr, "cluster: PostgreSQL with autovacuum and fsync on at %s\n", pg.Addr())
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 2
	}
	return 0
}

// soakCommand is the command line that ran this soak (`make soak` runs
// `bin/chaos soak -bin bin -out docs/bench`), with the paths inside the
// working directory made relative to it, so that it reproduces from any
// clone.
func soakCommand(args []string) string {
	wd, _ := os.Getwd()
	parts := []string{"bin/chaos", "soak"}
	for _, a := range args {
		if rel, err := filepath.Rel(wd, a); err == nil && filepath.IsAbs(a) && !strings.HasPrefix(rel, "..") {
			a = rel
		}
		parts = append(parts, a)
	}
	return strings.Join(parts, " ")
}
