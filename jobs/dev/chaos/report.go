package main

import (
	"cmp"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// injectedAll adds the invariant that the run really was under fire: every
// fault kind, each kind of subscriber fault, dead letters and redeliveries
// happened at least once.
func injectedAll(f *findings, faults []fault, st *drainStats) {
	iv := f.invariant("under fire: every kind of fault injected at least once")
	for _, k := range faultKinds() {
		iv.Checked++
		if !slices.ContainsFunc(faults, func(ft fault) bool { return strings.HasPrefix(ft.Kind, k) }) {
			iv.fail("no %s fault was injected", k)
		}
	}
	for _, k := range []string{"receiver-500", "receiver-410"} {
		iv.Checked++
		if !slices.ContainsFunc(faults, func(ft fault) bool { return ft.Kind == k }) {
			iv.fail("no %s phase", k)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, k := range []string{"fail", "timeout", "panic"} {
		iv.Checked++
		if st.injected[k] == 0 {
			iv.fail("no subscriber %s was injected", k)
		}
	}
}

// summariesRead adds the invariant that the drains' summary lines were
// read: at least one, each decoded into the outbox.Report the drain logs,
// each accounting for every delivery it claimed, and together reporting
// deliveries. Without it a reader that silently dropped every line (as one
// did when the line's shape changed) would leave the drain figures at zero
// and still pass.
func summariesRead(f *findings, st *drainStats) {
	iv := f.invariant("drain summaries: read, decoded, every claimed delivery accounted for")
	st.mu.Lock()
	defer st.mu.Unlock()
	iv.Checked += st.runs + len(st.unreadable)
	if st.runs == 0 || st.total.Delivered == 0 {
		iv.fail("%d drain summaries read, reporting %d deliveries", st.runs, st.total.Delivered)
	}
	for _, l := range st.unreadable {
		iv.fail("a drain summary did not decode: %s", l)
	}
	for _, r := range st.unbalanced {
		iv.fail("claimed is not delivered + retried + dead + lost leases + released + unwritten: %s", r)
	}
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	digitRE = regexp.MustCompile(`[0-9]+`)
	portRE  = regexp.MustCompile(`127\.0\.0\.1:[0-9]+`)
)

// report renders the run as Markdown.
func report(cfg profile, wall time.Duration, w *world, faults []fault, st *drainStats, dead []deadLetter, replayed int, f *findings) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	host, _ := os.Hostname()
	p("# Chaos report: profile %s", cfg.name)
	p("")
	p("Run %s on %s (%d CPUs, %s/%s, %s, %s RAM; load average %s at the end, over 1, 5 and 15 minutes); wall time %s, of which %s of load and faults.",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), host, runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, cpuModel(), memTotal(),
		loadAverage(), wall.Round(time.Second), cfg.duration)
	p("%d clients, %d drain tasks, subscriber faults %s, %.0f%% of actions abandoned after a first failure.",
		cfg.clients, cfg.drainTasks, cfg.subscriberFaults, 100*cfg.abandonRate)
	p("")
	p("Reproduce from a clean clone: `git checkout %s && make chaos` (the long profile, which writes .run/chaos-report.md; "+
		"`make test` ends with the short one); see docs/chaos.md.", commit())

	p("\n## Actions\n")
	p("| action | ok | rejected (4xx) | abandoned | attempts | idempotent replays |")
	p("|---|---:|---:|---:|---:|---:|")
	type row struct{ ok, rejected, abandoned, attempts, replays int }
	rows := map[string]*row{}
	total := row{}
	for _, a := range w.actions {
		r := rows[a.Kind]
		if r == nil {
			r = &row{}
			rows[a.Kind] = r
		}
		for _, x := range []*row{r, &total} {
			switch a.Outcome {
			case outcomeOK:
				x.ok++
			case outcomeRejected:
				x.rejected++
			default:
				x.abandoned++
			}
			x.attempts += a.Attempts
			if a.Replayed {
				x.replays++
			}
		}
	}
	kinds := make([]string, 0, len(rows))
	for k := range rows {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		r := rows[k]
		p("| %s | %d | %d | %d | %d | %d |", k, r.ok, r.rejected, r.abandoned, r.attempts, r.replays)
	}
	p("| **all** (%d) | %d | %d | %d | %d | %d |", len(w.actions), total.ok, total.rejected, total.abandoned, total.attempts, total.replays)
	u := cmp.Or(rows["undo"], &row{})
	p("\n**Undos: %d** asked, %d acknowledged, %d refused, %d abandoned; %d reviews are undone in the review log (the acknowledged undos "+
		"and the abandoned ones that committed), left out of the FSRS replay.", u.ok+u.rejected+u.abandoned, u.ok, u.rejected, u.abandoned, f.Undone)

	p("\n## Faults\n")
	p("| fault | count |")
	p("|---|---:|")
	byKind := map[string]int{}
	for _, ft := range faults {
		byKind[ft.Kind]++
	}
	fk := make([]string, 0, len(byKind))
	for k := range byKind {
		fk = append(fk, k)
	}
	sort.Strings(fk)
	for _, k := range fk {
		p("| %s | %d |", k, byKind[k])
	}
	st.mu.Lock()
	for _, k := range []string{"fail", "timeout", "panic"} {
		p("| subscriber %s (drain logs) | %d |", k, st.injected[k])
	}
	p("\n## Drains\n")
	t := st.total
	p("%d runs logged a summary (killed ones do not), %d exited with an error (database down): claimed %d, delivered %d, "+
		"**redeliveries made harmless (skipped) %d**, retried %d, dead %d, lost leases %d, released at shutdown %d, "+
		"results unwritten (database gone) %d, handlers abandoned %d.",
		st.runs, st.failedRuns, t.Claimed, t.Delivered, t.Skipped, t.Retried, t.Dead, t.LostLeases, t.Released, t.Unwritten, t.Abandoned)
	st.mu.Unlock()

	p("\n## Dead letters before the replay\n")
	type deadKind struct{ subscriber, topic, reason string }
	grouped := map[deadKind]int{}
	for _, d := range dead {
		reason := portRE.ReplaceAllString(uuidRE.ReplaceAllString(d.Reason, "<id>"), "<addr>")
		grouped[deadKind{d.Subscriber, d.Topic, digitRE.ReplaceAllString(reason, "N")}] += d.Count
	}
	if len(grouped) == 0 {
		p("None.")
	} else {
		p("| subscriber | topic | last error | count |")
		p("|---|---|---|---:|")
		keys := slices.SortedFunc(maps.Keys(grouped), func(a, b deadKind) int {
			return cmp.Or(cmp.Compare(a.subscriber, b.subscriber), cmp.Compare(a.topic, b.topic), cmp.Compare(a.reason, b.reason))
		})
		n := 0
		for _, k := range keys {
			p("| %s | %s | %s | %d |", cell(k.subscriber), cell(k.topic), cell(k.reason), grouped[k])
			n += grouped[k]
		}
		p("\n%d dead letters; ReplayDeadLetters replayed %d, then all were delivered (see *nothing stuck*).", n, replayed)
	}
	p("%d reminder deliveries wait for a later not-before time.", f.Scheduled)

	p("\n## Duplicates\n")
	p("%d extra copies explained, %d unexplained (each a violation).\n", f.ExtraExplained, f.ExtraUnexplained)
	if len(f.Duplicates) > 0 {
		p("An email or webhook received more than once, with the same Message-ID or webhook-id, and what cut each attempt that sent an extra copy off from the delivery's commit (a fault of that attempt's own drain execution, its failure after sending, or a database restart):\n")
		p("| what | copies | first | last | explained by | unexplained |")
		p("|---|---:|---|---|---|---:|")
		for _, d := range f.Duplicates {
			ex := d.Explained
			if d.Unexplained > 0 {
				ex += " **(violation)**"
			}
			p("| %s | %d | %s | %s | %s | %d |", cell(d.What), d.Copies, d.First.Format("15:04:05.000"), d.Last.Format("15:04:05.000"), cell(ex), d.Unexplained)
		}
	}
	p("%d webhooks were answered 503 because they were signed with a secret whose rotation had not yet been answered to the teacher (retried).", f.RotationRetries)

	p("\n## Invariants\n")
	p("| invariant | cases checked | violations |")
	p("|---|---:|---:|")
	for _, iv := range f.Invariants {
		p("| %s | %d | %d |", iv.Name, iv.Checked, iv.count)
	}
	for _, iv := range f.Invariants {
		for _, v := range iv.Violations {
			p("\n- VIOLATION (%s): %s", iv.Name, v)
		}
	}
	return b.String()
}

// cell makes s one cell of a Markdown table: its pipes escaped, its line
// breaks and tabs spaces.
func cell(s string) string {
	return strings.NewReplacer("|", "\\|", "\r", " ", "\n", " ", "\t", " ").Replace(s)
}

// loadAverage is /proc/loadavg's three load averages, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return "unknown"
}

// load1 is /proc/loadavg's one-minute load average, or -1.
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) >= 1 {
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			return v
		}
	}
	return -1
}

// commit is `git rev-parse --short HEAD` in the working directory (the
// commit the harness was built from when run by make), or "unknown".
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if c := strings.TrimSpace(string(out)); err == nil && c != "" {
		return c
	}
	return "unknown"
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "".
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for l := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
