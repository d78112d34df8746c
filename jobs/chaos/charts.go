package main

import (
	"bufio"
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

// machine names the machine a figure was measured on, for its caption.
func machine() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %d CPUs (%s)", host, runtime.NumCPU(), cpuModel())
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
	return p.Save(9*vg.Inch, 5*vg.Inch, path)
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
	return p.Save(7*vg.Inch, 5*vg.Inch, path)
}

// soakChart draws the outbox tables' sizes over the soak.
func soakChart(path, title string, samples []soakSample) error {
	var ev, de, pr plotter.XYs
	for _, s := range samples {
		ev = append(ev, plotter.XY{X: s.Minute, Y: mb(s.EventsBytes)})
		de = append(de, plotter.XY{X: s.Minute, Y: mb(s.DeliveriesBytes)})
		pr = append(pr, plotter.XY{X: s.Minute, Y: mb(s.ProcessedBytes)})
	}
	caption := machine()
	if base := baselineAt(samples, 5); base != nil && len(samples) > 0 {
		last := samples[len(samples)-1]
		caption += fmt.Sprintf("; at the end / at minute %.0f: events %.2f×, deliveries %.2f×",
			base.Minute, float64(last.EventsBytes)/float64(base.EventsBytes), float64(last.DeliveriesBytes)/float64(base.DeliveriesBytes))
	}
	return lineChart(path, title, caption, "minutes", "MB (table + indexes + TOAST)",
		[]series{{"outbox_events", ev}, {"outbox_deliveries", de}, {"outbox_processed", pr}})
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

// benchResults are the metrics of `go test -bench` output lines, by
// benchmark name (without the -GOMAXPROCS suffix) and unit.
type benchResults map[string]map[string]float64

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

// parseBench reads benchmark output; later lines of the same name win.
func parseBench(r io.Reader) (benchResults, error) {
	out := benchResults{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for sc.Scan() {
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

// chartsMain is `chaos charts -in bench.txt -out docs/bench`: it draws the
// charts of docs/benchmarks.md from the output of `make bench`, each with
// the machine and its ratio to the baseline measured in the same run.
// Benchmarks missing from the input are left out (and said so).
func chartsMain(args []string) int {
	fs := flag.NewFlagSet("charts", flag.ExitOnError)
	in := fs.String("in", "", "output of make bench (go test -bench lines)")
	out := fs.String("out", "docs/bench", "folder for the PNG files")
	_ = fs.Parse(args)
	f, err := os.Open(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		return 2
	}
	res, err := parseBench(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		return 2
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		return 2
	}
	for _, c := range []struct {
		file  string
		bench []string
		draw  func(path string, r benchResults) error
	}{
		{"compare.png", []string{"BenchmarkCompare"}, chartCompare},
		{"writepath-median.png", []string{"BenchmarkWritePath/clients=1", "BenchmarkWritePath/clients=8", "BenchmarkWritePath/clients=32"}, chartWritePathMedian},
		{"writepath-latency.png", []string{"BenchmarkWritePath/clients=8"}, chartWritePathDistribution},
		{"enqueue.png", []string{"BenchmarkEnqueue"}, chartEnqueue},
		{"prune.png", []string{"BenchmarkPrune"}, chartPrune},
		{"delivery-latency.png", []string{"BenchmarkLatency/rate=500/hint=true", "BenchmarkLatency/rate=500/hint=false"}, chartDeliveryLatency},
	} {
		missing := ""
		for _, b := range c.bench {
			if res[b] == nil {
				missing = b
			}
		}
		if missing != "" {
			fmt.Printf("charts: %s left out: no %s in %s\n", c.file, missing, *in)
			continue
		}
		if err := c.draw(filepath.Join(*out, c.file), res); err != nil {
			fmt.Fprintln(os.Stderr, "charts:", c.file+":", err)
			return 2
		}
		fmt.Println("charts: wrote", filepath.Join(*out, c.file))
	}
	return 0
}

func chartCompare(path string, r benchResults) error {
	m := r["BenchmarkCompare"]
	return barChart(path, "One drain run over 100,000 no-op deliveries, deliveries per second",
		fmt.Sprintf("%s; Lexora / River = %.2f (same process)", machine(), m["lexora/river"]), "per second",
		[]string{"Lexora drain", "River v0.51.2", "bare claim+ack SQL"},
		[]float64{m["lexora_deliveries/s"], m["river_jobs/s"], m["ceiling_rows/s"]})
}

// writePathDesigns are the designs of BenchmarkWritePath, in chart order.
var writePathDesigns = []string{"nooutbox", "outbox", "nohint", "naive"}

func chartWritePathMedian(path string, r benchResults) error {
	var lines []series
	for _, d := range writePathDesigns {
		var xy plotter.XYs
		for _, n := range []int{1, 8, 32} {
			xy = append(xy, plotter.XY{X: float64(n), Y: r[fmt.Sprintf("BenchmarkWritePath/clients=%d", n)][d+"_p50_ms"]})
		}
		lines = append(lines, series{d, xy})
	}
	caption := machine() + "; outbox / no outbox at the median:"
	for _, n := range []int{1, 8, 32} {
		caption += fmt.Sprintf(" %.2f (%d)", r[fmt.Sprintf("BenchmarkWritePath/clients=%d", n)]["x_outbox_p50"], n)
	}
	return lineChart(path, "SubmitReview over HTTP: median latency by concurrent clients", caption, "clients", "median latency (ms)", lines)
}

func chartWritePathDistribution(path string, r benchResults) error {
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
		fmt.Sprintf("%s; outbox / no outbox: p50 %.2f, p99 %.2f", machine(), m["x_outbox_p50"], m["outbox_p99_ms"]/m["nooutbox_p99_ms"]),
		"percentile (0 = p50, 1 = p90, 2 = p99, 3 = p99.9)", "latency (ms)", lines)
}

func chartEnqueue(path string, r benchResults) error {
	m := r["BenchmarkEnqueue"]
	return barChart(path, "Raw enqueue, 8 clients, one event per transaction",
		fmt.Sprintf("%s; Lexora / pgbench = %.2f (same database, alternating)", machine(), m["x_pgbench"]), "events committed per second",
		[]string{"Outbox.Enqueue (pgx)", "pgbench, same rows"}, []float64{m["lexora_events/s"], m["pgbench_events/s"]})
}

func chartPrune(path string, r benchResults) error {
	m := r["BenchmarkPrune"]
	return barChart(path, "Drain throughput over 100,000 deliveries, alone and while prune removes 600,000 events",
		fmt.Sprintf("%s; during / alone = %.2f; prune %.0f events/s", machine(), m["x_during_prune"], m["pruned_events/s"]), "deliveries per second",
		[]string{"drain alone (mean of before and after)", "drain during prune"},
		[]float64{m["drain_alone_deliveries/s"], m["drain_during_prune_deliveries/s"]})
}

func chartDeliveryLatency(path string, r benchResults) error {
	h, p := r["BenchmarkLatency/rate=500/hint=true"], r["BenchmarkLatency/rate=500/hint=false"]
	return barChart(path, "Commit to delivery at 500 events/s (ms)",
		fmt.Sprintf("%s; hint / poll at the median = %.3f", machine(), h["median_ms"]/p["median_ms"]), "ms",
		[]string{"hint, median", "hint, p99", "poll 1 s, median", "poll 1 s, p99"},
		[]float64{h["median_ms"], h["p99_ms"], p["median_ms"], p["p99_ms"]})
}
