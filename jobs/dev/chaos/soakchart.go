package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot/plotter"
)

// soakRun is what a soak ran on and with. `chaos soak` writes it beside its
// samples (soak.json next to soak.csv), so that `chaos charts -soak` can
// draw the chart again from the two files, captioned with the machine, the
// cluster and the load, without running the soak again.
type soakRun struct {
	When       string `json:"when"`       // start and end, UTC
	Machine    string `json:"machine"`    // host, CPUs, CPU model, memory
	Cluster    string `json:"cluster"`    // the PostgreSQL it ran on and its settings
	Load       string `json:"load"`       // the load average, when the samples do not hold it (their load1 column)
	Rate       int    `json:"rate"`       // events committed per second
	Duration   string `json:"duration"`   // of the load, e.g. "30m0s"
	Retention  string `json:"retention"`  // PRUNE_RETENTION of the prune that runs every minute
	Autovacuum bool   `json:"autovacuum"` // the cluster's autovacuum setting
	// Commit is what the harness ran from (git rev-parse --short HEAD),
	// Command what ran it; a run that predates them has neither.
	Commit    string `json:"commit,omitempty"`
	Command   string `json:"command,omitempty"`
	Committed int64  `json:"committed,omitempty"` // events committed
	Pruned    int64  `json:"pruned,omitempty"`    // events the minutely prune removed
}

// soakCluster names the cluster `chaos soak` runs on, for the caption.
func soakCluster(autovacuum bool) string {
	return fmt.Sprintf("the harness's private cluster with production-like settings (initdb, PostgreSQL defaults, autovacuum %s, fsync on)", onOff(autovacuum))
}

// soakColumns are soak.csv's columns, in order. load1 (the machine's
// one-minute load average at the sample) came after the soak of 30
// November 2026, whose file lacks it.
var soakColumns = []string{"minute", "events_bytes", "deliveries_bytes", "processed_bytes", "events_live", "deliveries_live",
	"deliveries_dead_tuples", "claim_scan_ms", "committed", "commit_p50_ms", "load1"}

func writeSoakCSV(path string, samples []soakSample) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(soakColumns)
	for _, s := range samples {
		_ = w.Write([]string{fmt.Sprintf("%.2f", s.Minute), fmt.Sprint(s.EventsBytes), fmt.Sprint(s.DeliveriesBytes), fmt.Sprint(s.ProcessedBytes),
			fmt.Sprint(s.EventsLive), fmt.Sprint(s.DeliveriesLive), fmt.Sprint(s.DeliveriesDead), fmt.Sprintf("%.3f", s.ClaimMs),
			fmt.Sprint(s.Committed), fmt.Sprintf("%.3f", ms(s.CommitP50)), fmt.Sprintf("%.2f", s.Load1)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return errors.Join(err, f.Close())
	}
	return f.Close()
}

// readSoakCSV reads the samples writeSoakCSV wrote. A file without the
// load1 column gives samples with Load1 -1.
func readSoakCSV(path string) (_ []soakSample, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: empty", path)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	for _, name := range soakColumns[:len(soakColumns)-1] {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("%s: no column %s", path, name)
		}
	}
	var samples []soakSample
	for n, r := range rows[1:] {
		s, err := soakRow(r, col)
		if err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, n+2, err)
		}
		samples = append(samples, s)
	}
	return samples, nil
}

// soakRow is one row of soak.csv, its columns found by name in col.
func soakRow(r []string, col map[string]int) (soakSample, error) {
	var errs []error
	num := func(name string) float64 {
		v, err := strconv.ParseFloat(r[col[name]], 64)
		errs = append(errs, err)
		return v
	}
	s := soakSample{
		Minute: num("minute"), EventsBytes: int64(num("events_bytes")), DeliveriesBytes: int64(num("deliveries_bytes")),
		ProcessedBytes: int64(num("processed_bytes")), EventsLive: int64(num("events_live")), DeliveriesLive: int64(num("deliveries_live")),
		DeliveriesDead: int64(num("deliveries_dead_tuples")), ClaimMs: num("claim_scan_ms"), Committed: int64(num("committed")),
		CommitP50: time.Duration(num("commit_p50_ms") * float64(time.Millisecond)), Load1: -1,
	}
	if _, ok := col["load1"]; ok {
		s.Load1 = num("load1")
	}
	return s, errors.Join(errs...)
}

// writeSoakRun writes run as JSON to path.
func writeSoakRun(path string, run soakRun) error {
	b, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readSoakRun reads what writeSoakRun wrote.
func readSoakRun(path string) (soakRun, error) {
	var run soakRun
	b, err := os.ReadFile(path)
	if err != nil {
		return run, err
	}
	if err := json.Unmarshal(b, &run); err != nil {
		return run, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// soakChart draws the outbox tables' sizes over the soak, titled with its
// settings and captioned with the machine, the cluster, the load average
// (the samples' range, or run.Load when they lack it) and the tables' size
// at the end as a ratio to their size at minute 5, the same run's baseline.
func soakChart(path string, run soakRun, samples []soakSample) error {
	var ev, de, pr plotter.XYs
	lo, hi := -1.0, -1.0
	for _, s := range samples {
		ev = append(ev, plotter.XY{X: s.Minute, Y: mb(s.EventsBytes)})
		de = append(de, plotter.XY{X: s.Minute, Y: mb(s.DeliveriesBytes)})
		pr = append(pr, plotter.XY{X: s.Minute, Y: mb(s.ProcessedBytes)})
		if s.Load1 >= 0 {
			lo, hi = cmpMin(lo, s.Load1), max(hi, s.Load1)
		}
	}
	load := "load average " + run.Load
	if hi >= 0 {
		load = fmt.Sprintf("load average %.0f–%.0f (sampled with the tables)", lo, hi)
	}
	caption := run.Machine + "\n" + run.When + "\n" + run.Cluster + "\n" + load
	if run.Commit != "" {
		caption += fmt.Sprintf("\n%s at %s: %s events committed, %s pruned", run.Command, run.Commit, thousands(float64(run.Committed)), thousands(float64(run.Pruned)))
	}
	if base := baselineAt(samples, 5); base != nil {
		last := samples[len(samples)-1]
		caption += fmt.Sprintf("\nat the end / at minute %.0f: outbox_events %.2f×, outbox_deliveries %.2f×",
			base.Minute, float64(last.EventsBytes)/float64(base.EventsBytes), float64(last.DeliveriesBytes)/float64(base.DeliveriesBytes))
	}
	title := fmt.Sprintf("Soak: %d events/s for %s, prune every minute (retention %s), autovacuum %s",
		run.Rate, run.Duration, run.Retention, onOff(run.Autovacuum))
	return lineChart(path, title, caption, "minutes", "MiB (table + indexes + TOAST)",
		[]series{{"outbox_events", ev}, {"outbox_deliveries", de}, {"outbox_processed", pr}})
}

// cmpMin is the smaller of a and b, where a negative a means none yet.
func cmpMin(a, b float64) float64 {
	if a < 0 {
		return b
	}
	return min(a, b)
}

// baselineAt is the first sample at or after minute m, the soak's baseline
// (the tables have reached their steady state by then).
func baselineAt(samples []soakSample, m float64) *soakSample {
	for i := range samples {
		if samples[i].Minute >= m {
			return &samples[i]
		}
	}
	return nil
}

// drawSoak draws the chart of the soak whose samples are in csvPath (and
// its run in the .json beside it) into outDir, named after the CSV
// (soak.csv gives soak.png).
func drawSoak(csvPath, outDir string) (string, error) {
	base := strings.TrimSuffix(csvPath, ".csv")
	run, err := readSoakRun(base + ".json")
	if err != nil {
		return "", fmt.Errorf("the soak's run (machine, cluster, load): %w", err)
	}
	samples, err := readSoakCSV(csvPath)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return "", err
	}
	png := filepath.Join(outDir, filepath.Base(base)+".png")
	return png, soakChart(png, run, samples)
}
