package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// machine names the machine a figure was measured on, for its caption:
// host, CPUs, memory.
func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %d CPUs (%s), %s RAM", host, runtime.NumCPU(), cpuModel(), memTotal())
}

// memTotal is /proc/meminfo's MemTotal in GiB, or "?".
func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "?"
	}
	for l := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(l, ":"); ok && k == "MemTotal" {
			if kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64); err == nil {
				return fmt.Sprintf("%.1f GiB", kb/(1<<20))
			}
		}
	}
	return "?"
}

// palette is the lines' and bars' colours, in order.
var palette = []color.Color{
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
}

// series is one named line.
type series struct {
	name string
	xy   plotter.XYs
}

// lineChart saves lines as a PNG with a title, a caption (machine, ratio to
// the same-run baseline) and axis labels.
func lineChart(path, title, caption, xLabel, yLabel string, lines []series) error {
	p := plot.New()
	p.Title.Text = title + "\n" + caption
	p.X.Label.Text = xLabel
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for i, s := range lines {
		l, err := plotter.NewLine(s.xy)
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Y.Max *= 1.25 // room for the legend above the lines
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

// barChart saves one bar per value as a PNG.
func barChart(path, title, caption, yLabel string, names []string, values []float64) error {
	p := plot.New()
	p.Title.Text = title + "\n" + caption
	p.Y.Label.Text = yLabel
	p.Add(plotter.NewGrid())
	for i, v := range values {
		b, err := plotter.NewBarChart(plotter.Values{v}, vg.Points(40))
		if err != nil {
			return err
		}
		b.Color = palette[i%len(palette)]
		b.LineStyle.Width = 0
		b.Offset = vg.Points(float64(i-len(values)/2) * 45)
		p.Add(b)
		p.Legend.Add(fmt.Sprintf("%s: %.0f", names[i], v), b)
	}
	p.Legend.Top = true
	p.X.Tick.Marker = plot.ConstantTicks(nil)
	return p.Save(9*vg.Inch, 5.5*vg.Inch, path)
}

// benchResults are the metrics of `go test -bench` output lines, by
// benchmark name (without the -GOMAXPROCS suffix) and unit; under
// loadKey, the one-minute load averages that `make bench` writes into the
// output ("load average: 44.12 45.30 46.01") as "min" and "max".
type benchResults map[string]map[string]float64

// loadKey holds a run's load averages in benchResults.
const loadKey = "load average"

var (
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)
	loadLine  = regexp.MustCompile(`^load average: ([0-9.]+)`)
)

// parseBench reads benchmark output; later lines of the same name win.
func parseBench(r io.Reader) (benchResults, error) {
	out := benchResults{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
		if l := loadLine.FindStringSubmatch(sc.Text()); l != nil {
			v, _ := strconv.ParseFloat(l[1], 64)
			if out[loadKey] == nil {
				out[loadKey] = map[string]float64{"min": v, "max": v}
			}
			out[loadKey]["min"], out[loadKey]["max"] = min(out[loadKey]["min"], v), max(out[loadKey]["max"], v)
			continue
		}
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[2])
		metrics := map[string]float64{}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", m[1], fields[i])
			}
			metrics[fields[i+1]] = v
		}
		out[m[1]] = metrics
	}
	return out, sc.Err()
}

// server is one PostgreSQL a benchmark output came from, for the caption.
type server struct {
	flag, label string
	res         benchResults
}

// caption is the machine, the server and the load average during the run.
func (sv server) caption() string {
	c := machine() + "\n" + sv.label
	if l := sv.res[loadKey]; l != nil {
		c += fmt.Sprintf("\nload average %.0f–%.0f (a shared machine)", l["min"], l["max"])
	}
	return c
}

// charts are the benchmark charts: the file, the benchmarks each needs, the
// servers to draw it from in order of preference (the first whose output
// has them all), and how to draw it (a title and a caption ending with its
// ratio to the baseline measured in the same run).
var charts = []struct {
	file    string
	bench   []string
	servers []string
	draw    func(path, caption string, r benchResults) error
}{
	{"compare.png", []string{"BenchmarkCompare"}, []string{"shared"}, chartCompare},
	{"writepath-median.png", []string{"BenchmarkWritePath/clients=1", "BenchmarkWritePath/clients=8", "BenchmarkWritePath/clients=32"}, []string{"private", "shared"}, chartWritePathMedian},
	{"writepath-latency.png", []string{"BenchmarkWritePath/clients=8"}, []string{"private", "shared"}, chartWritePathDistribution},
	{"enqueue.png", []string{"BenchmarkEnqueue"}, []string{"private", "shared"}, chartEnqueue},
	{"prune.png", []string{"BenchmarkPrune"}, []string{"private", "shared"}, chartPrune},
	{"delivery-latency.png", []string{"BenchmarkLatency/rate=500/hint=true", "BenchmarkLatency/rate=500/hint=false"}, []string{"shared"}, chartDeliveryLatency},
}

// chartsMain is `chaos charts -shared bench.txt -private bench-prodlike.txt
// -out docs/bench`: it draws the charts of docs/benchmarks.md from the
// output of `make bench` on the machine's shared PostgreSQL and on the
// production-like cluster, each captioned with its machine, its server and
// the load average. A chart whose benchmarks no given output holds is left
// out (and said so). With -soak docs/bench/soak.csv it draws the soak's
// chart again from its samples and the run beside them (soak.json).
func chartsMain(args []string) int {
	fs := flag.NewFlagSet("charts", flag.ExitOnError)
	servers := []*server{
		{flag: "shared", label: "the machine's PostgreSQL 15 (autovacuum off, shared)"},
		{flag: "private", label: "the harness's production-like cluster (initdb, autovacuum on, fsync on)"},
	}
	files := map[string]*string{}
	for _, sv := range servers {
		files[sv.flag] = fs.String(sv.flag, "", "make bench's output on "+sv.label)
	}
	out := fs.String("out", "docs/bench", "folder for the PNG files")
	soak := fs.String("soak", "", "a soak's samples (soak.csv, with soak.json beside it) to chart again")
	_ = fs.Parse(args)
	if *soak != "" {
		png, err := drawSoak(*soak, *out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "charts:", err)
			return 2
		}
		fmt.Printf("charts: wrote %s from %s\n", png, *soak)
	}
	if *files["shared"] == "" && *files["private"] == "" {
		return 0
	}
	byFlag := map[string]*server{}
	for _, sv := range servers {
		byFlag[sv.flag] = sv
		if *files[sv.flag] == "" {
			continue
		}
		var err error
		if sv.res, err = readBench(*files[sv.flag]); err != nil {
			fmt.Fprintln(os.Stderr, "charts:", err)
			return 2
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		return 2
	}
	for _, c := range charts {
		var from *server
		for _, name := range c.servers {
			if sv := byFlag[name]; from == nil && sv.res != nil && hasAll(sv.res, c.bench) {
				from = sv
			}
		}
		if from == nil {
			fmt.Printf("charts: %s left out: no output of %v holds %v\n", c.file, c.servers, c.bench)
			continue
		}
		if err := c.draw(filepath.Join(*out, c.file), from.caption(), from.res); err != nil {
			fmt.Fprintln(os.Stderr, "charts:", c.file+":", err)
			return 2
		}
		fmt.Printf("charts: wrote %s from the %s server's output\n", filepath.Join(*out, c.file), from.flag)
	}
	return 0
}

// readBench parses the benchmark output in file.
func readBench(file string) (_ benchResults, err error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	res, err := parseBench(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return res, nil
}

// hasAll reports whether r holds every benchmark of names.
func hasAll(r benchResults, names []string) bool {
	for _, n := range names {
		if r[n] == nil {
			return false
		}
	}
	return true
}

func chartCompare(path, caption string, r benchResults) error {
	m := r["BenchmarkCompare"]
	return barChart(path, "One drain run over 100,000 no-op deliveries, deliveries per second",
		fmt.Sprintf("%s\nLexora / River = %.2f (same process)", caption, m["lexora/river"]), "per second",
		[]string{"Lexora drain", "River v0.51.2", "bare claim+ack SQL"},
		[]float64{m["lexora_deliveries/s"], m["river_jobs/s"], m["ceiling_rows/s"]})
}

// writePathDesigns are the designs of BenchmarkWritePath, in chart order.
var writePathDesigns = []string{"nooutbox", "outbox", "intx", "nohint", "naive"}

func chartWritePathMedian(path, caption string, r benchResults) error {
	var lines []series
	for _, d := range writePathDesigns {
		var xy plotter.XYs
		for _, n := range []int{1, 8, 32} {
			xy = append(xy, plotter.XY{X: float64(n), Y: r[fmt.Sprintf("BenchmarkWritePath/clients=%d", n)][d+"_p50_ms"]})
		}
		lines = append(lines, series{d, xy})
	}
	caption += "\n/ no outbox at the median, by clients (outbox; intx):"
	for _, n := range []int{1, 8, 32} {
		m := r[fmt.Sprintf("BenchmarkWritePath/clients=%d", n)]
		caption += fmt.Sprintf(" %d: %.2f; %.2f.", n, m["x_outbox_p50"], m["x_intx_p50"])
	}
	return lineChart(path, "SubmitReview over HTTP: median latency by concurrent clients", caption, "clients", "median latency (ms)", lines)
}

func chartWritePathDistribution(path, caption string, r benchResults) error {
	m := r["BenchmarkWritePath/clients=8"]
	qs := []string{"p50", "p90", "p99", "p99.9"}
	var lines []series
	for _, d := range writePathDesigns {
		var xy plotter.XYs
		for i, q := range qs {
			xy = append(xy, plotter.XY{X: float64(i), Y: m[d+"_"+q+"_ms"]})
		}
		lines = append(lines, series{d, xy})
	}
	return lineChart(path, "SubmitReview over HTTP at 8 clients: latency percentiles (x: p50, p90, p99, p99.9)",
		fmt.Sprintf("%s\noutbox / no outbox: p50 %.2f, p99 %.2f", caption, m["x_outbox_p50"], m["outbox_p99_ms"]/m["nooutbox_p99_ms"]),
		"percentile (0 = p50, 1 = p90, 2 = p99, 3 = p99.9)", "latency (ms)", lines)
}

func chartEnqueue(path, caption string, r benchResults) error {
	m := r["BenchmarkEnqueue"]
	return barChart(path, "Raw enqueue, 8 clients, one event per transaction",
		fmt.Sprintf("%s\nLexora / pgbench = %.2f (same database, alternating)", caption, m["x_pgbench"]), "events committed per second",
		[]string{"Outbox.Enqueue (pgx)", "pgbench, same rows"}, []float64{m["lexora_events/s"], m["pgbench_events/s"]})
}

func chartPrune(path, caption string, r benchResults) error {
	m := r["BenchmarkPrune"]
	return barChart(path, fmt.Sprintf("Drain throughput over 100,000 deliveries, alone and while prune removes %s events", thousands(m["pruned_events"])),
		fmt.Sprintf("%s\nduring / alone = %.2f; prune %.0f events/s", caption, m["x_during_prune"], m["pruned_events/s"]), "deliveries per second",
		[]string{"drain alone (mean of before and after)", "drain during prune"},
		[]float64{m["drain_alone_deliveries/s"], m["drain_during_prune_deliveries/s"]})
}

func chartDeliveryLatency(path, caption string, r benchResults) error {
	h, p := r["BenchmarkLatency/rate=500/hint=true"], r["BenchmarkLatency/rate=500/hint=false"]
	return barChart(path, "Commit to delivery at 500 events/s (ms)",
		fmt.Sprintf("%s\nhint / poll at the median = %.3f", caption, h["median_ms"]/p["median_ms"]), "ms",
		[]string{"hint, median", "hint, p99", "poll 1 s, median", "poll 1 s, p99"},
		[]float64{h["median_ms"], h["p99_ms"], p["median_ms"], p["p99_ms"]})
}

// thousands writes n with thousands separators: 500000 as "500,000".
func thousands(n float64) string {
	s := strconv.FormatFloat(n, 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
