package main

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestDuplicateNeedsAnInterruption: a second copy of an email or webhook is
// a violation unless an interrupting fault overlaps the copies, or an
// attempt at that event failed after the first copy.
func TestDuplicateNeedsAnInterruption(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 7, 0, 0, 0, time.UTC)
	copies := []time.Time{t0.Add(5 * time.Second), t0}
	for _, tc := range []struct {
		name      string
		faults    []fault
		failed    map[string][]failedAttempt
		explained bool
	}{
		{"no fault", nil, nil, false},
		{"a server kill does not cut a consumer", []fault{{Kind: "server-kill mid-request", Start: t0.Add(time.Second), End: t0.Add(time.Second)}}, nil, false},
		{"a drain kill between the copies", []fault{{Kind: "drain-kill holding leases", Start: t0.Add(time.Second), End: t0.Add(time.Second)}}, nil, true},
		{"a drain kill after the last copy", []fault{{Kind: "drain-kill", Start: t0.Add(6 * time.Second), End: t0.Add(6 * time.Second)}}, nil, false},
		{"latency that began before and lasted past the first copy", []fault{{Kind: "latency pg-drain", Start: t0.Add(-3 * time.Second), End: t0.Add(time.Second)}}, nil, true},
		{"latency that ended long before", []fault{{Kind: "latency pg-drain", Start: t0.Add(-9 * time.Second), End: t0.Add(-5 * time.Second)}}, nil, false},
		{"a drain run that lost leases overlapping the copies", []fault{{Kind: "lease lost (drain run summary)", Start: t0.Add(-4 * time.Second), End: t0.Add(3 * time.Second)}}, nil, true},
		{"a drain run that lost leases long before", []fault{{Kind: "lease lost (drain run summary)", Start: t0.Add(-20 * time.Second), End: t0.Add(-10 * time.Second)}}, nil, false},
		{"the event's attempt failed after its effect", nil, map[string][]failedAttempt{"e1": {{at: t0.Add(2 * time.Second), err: "context deadline exceeded"}}}, true},
		{"another event's attempt failed", nil, map[string][]failedAttempt{"e2": {{at: t0.Add(2 * time.Second), err: "context deadline exceeded"}}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := &stack{failedAttempts: tc.failed}
			if s.failedAttempts == nil {
				s.failedAttempts = map[string][]failedAttempt{}
			}
			c := &checker{s: s, faults: tc.faults}
			f := &findings{}
			iv := f.invariant("emails")
			c.duplicate(f, iv, "email e1.email@lexora.app", "e1", append([]time.Time(nil), copies...))
			require.Len(t, f.Duplicates, 1)
			require.Equal(t, 2, f.Duplicates[0].Copies)
			require.Equal(t, tc.explained, f.Duplicates[0].Explained != "", f.Duplicates[0].Explained)
			require.Equal(t, !tc.explained, iv.count == 1)
		})
	}
}

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := `goos: linux
BenchmarkCompare-2   	       1	9876 ns/op	  29511 lexora_deliveries/s	 1.67 lexora/river
BenchmarkWritePath/clients=8-2 	1	2 ns/op	 5.5 outbox_p50_ms	 5.0 nooutbox_p50_ms
PASS
`
	r, err := parseBench(strings.NewReader(out))
	require.NoError(t, err)
	require.Equal(t, 29511.0, r["BenchmarkCompare"]["lexora_deliveries/s"])
	require.Equal(t, 1.67, r["BenchmarkCompare"]["lexora/river"])
	require.Equal(t, 5.5, r["BenchmarkWritePath/clients=8"]["outbox_p50_ms"])
	_, err = parseBench(strings.NewReader("BenchmarkX-2 1 abc ns/op\n"))
	require.Error(t, err)
}
