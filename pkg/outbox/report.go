package outbox

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"
)

// reportJSON is a Report's JSON form: the counts, durations in seconds,
// and the backlog added up over subscribers (due, not yet due, oldest due
// age) and per subscriber. It is the one definition of the drain's summary
// log line (jobs/drain logs the Report under "report"), which alerts and
// the chaos harness read back with json.Unmarshal into a Report.
type reportJSON struct {
	Claimed         int     `json:"claimed"`
	Delivered       int     `json:"delivered"`
	Skipped         int     `json:"skipped"`
	Retried         int     `json:"retried"`
	Dead            int     `json:"dead"`
	LostLeases      int     `json:"lost_leases"`
	Released        int     `json:"released"`
	Unwritten       int     `json:"unwritten"`
	Abandoned       int     `json:"abandoned"`
	DurationSeconds float64 `json:"duration_seconds"`
	// Backlog counts due deliveries, Scheduled the pending ones not due yet.
	Backlog                 int64                     `json:"backlog"`
	Scheduled               int64                     `json:"scheduled"`
	OldestPendingAgeSeconds float64                   `json:"oldest_pending_age_seconds"`
	Subscribers             map[string]subscriberJSON `json:"subscribers,omitempty"`
}

// subscriberJSON is one Backlog in a reportJSON.
type subscriberJSON struct {
	Pending          int64   `json:"pending"`
	Due              int64   `json:"due"`
	OldestAgeSeconds float64 `json:"oldest_age_seconds"`
}

// MarshalJSON renders r as one JSON object: {"claimed": 3, "delivered": 2,
// ..., "duration_seconds": 1.5, "backlog": 4, "scheduled": 1,
// "oldest_pending_age_seconds": 0.2, "subscribers": {"email": {"pending":
// 5, "due": 4, "oldest_age_seconds": 0.2}}}. backlog, scheduled and
// oldest_pending_age_seconds add up the subscribers' Backlog.
func (r Report) MarshalJSON() ([]byte, error) {
	out := reportJSON{
		Claimed: r.Claimed, Delivered: r.Delivered, Skipped: r.Skipped, Retried: r.Retried, Dead: r.Dead,
		LostLeases: r.LostLeases, Released: r.Released, Unwritten: r.Unwritten, Abandoned: r.Abandoned,
		DurationSeconds: r.Duration.Seconds(),
	}
	var oldest time.Duration
	for _, b := range r.Backlog {
		out.Backlog += b.Due
		out.Scheduled += b.Pending - b.Due
		oldest = max(oldest, b.OldestAge)
		if out.Subscribers == nil {
			out.Subscribers = map[string]subscriberJSON{}
		}
		out.Subscribers[b.Subscriber] = subscriberJSON{Pending: b.Pending, Due: b.Due, OldestAgeSeconds: b.OldestAge.Seconds()}
	}
	out.OldestPendingAgeSeconds = oldest.Seconds()
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes (durations to the
// nanosecond, Backlog in subscriber order); the totals over subscribers are
// derived, not read.
func (r *Report) UnmarshalJSON(b []byte) error {
	var in reportJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("outbox: decode a run report: %w", err)
	}
	*r = Report{
		Claimed: in.Claimed, Delivered: in.Delivered, Skipped: in.Skipped, Retried: in.Retried, Dead: in.Dead,
		LostLeases: in.LostLeases, Released: in.Released, Unwritten: in.Unwritten, Abandoned: in.Abandoned,
		Duration: seconds(in.DurationSeconds),
	}
	for _, name := range slices.Sorted(maps.Keys(in.Subscribers)) {
		s := in.Subscribers[name]
		r.Backlog = append(r.Backlog, Backlog{Subscriber: name, Pending: s.Pending, Due: s.Due, OldestAge: seconds(s.OldestAgeSeconds)})
	}
	return nil
}

// seconds converts a duration in seconds, rounded to the nanosecond.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }
