package outbox

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReportReadsBackFromTheSummaryLine logs a Report as jobs/drain does
// (a JSON log line, the report under "report") and reads the line back into
// a Report: the summary's readers (the chaos harness, the log-based metrics
// of terraform/monitoring.tf) decode what the drain writes.
func TestReportReadsBackFromTheSummaryLine(t *testing.T) {
	t.Parallel()
	rep := Report{
		Claimed: 12, Delivered: 5, Skipped: 1, Retried: 2, Dead: 1, LostLeases: 1, Released: 1, Unwritten: 2, Abandoned: 1,
		Duration: 1500 * time.Millisecond,
		Backlog: []Backlog{
			{Subscriber: "email", Pending: 5, Due: 4, OldestAge: 200 * time.Millisecond},
			{Subscriber: "webhook", Pending: 3, Due: 1, OldestAge: 7 * time.Second},
		},
	}
	var line bytes.Buffer
	slog.New(slog.NewJSONHandler(&line, nil)).Info("drain run", slog.Any("report", rep))

	var m struct {
		Report Report `json:"report"`
	}
	require.NoError(t, json.Unmarshal(line.Bytes(), &m), line.String())
	require.Equal(t, rep, m.Report)

	// The fields the log-based metrics extract, as numbers.
	var raw struct {
		Report map[string]any `json:"report"`
	}
	var subs struct {
		Report struct {
			Subscribers map[string]map[string]float64 `json:"subscribers"`
		} `json:"report"`
	}
	require.NoError(t, json.Unmarshal(line.Bytes(), &subs))
	require.NoError(t, json.Unmarshal(line.Bytes(), &raw))
	for key, want := range map[string]float64{
		"claimed": 12, "delivered": 5, "unwritten": 2, "abandoned": 1, "duration_seconds": 1.5,
		"backlog": 5, "scheduled": 3, "oldest_pending_age_seconds": 7,
	} {
		require.Equal(t, want, raw.Report[key], key)
	}
	require.Equal(t, map[string]float64{"pending": 5, "due": 4, "oldest_age_seconds": 0.2}, subs.Report.Subscribers["email"])
}

// TestReportWithoutBacklog: a run that ended before measuring its backlog
// (the database stopped answering) logs zero totals and no subscribers.
func TestReportWithoutBacklog(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(Report{Claimed: 1, Unwritten: 1})
	require.NoError(t, err)
	require.NotContains(t, string(b), "subscribers")
	var back Report
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, Report{Claimed: 1, Unwritten: 1}, back)
	require.Error(t, json.Unmarshal([]byte(`{"backlog":[1]}`), &back))
}
