// Package clock is Lexora's one source of the current instant.
//
// Every component that decides with time (a request's due dates and
// invitation expiries, the drain's deadlines and heartbeat, the webhook
// sender, the seed) takes a Clock instead of calling time.Now, so tests can
// stub it. Following River's TimeGenerator, a Clock also answers NowOrNil:
// nil in production, so that SQL falls back to the database's now()
// (`coalesce($n::timestamptz, now())`) and a transaction's instants come from
// one clock; the stubbed instant in tests, so that the database sees the
// test's time too. Lease expiry is always taken from the database's now(),
// never from a Clock.
//
// Instants have microsecond precision (Precision), the precision of
// PostgreSQL's timestamptz, so that an instant answered to a client, put in
// an event payload and stored in a row is one value everywhere.
package clock

import (
	"time"
)

// Precision is the resolution of every instant Lexora stores or answers:
// one microsecond, as PostgreSQL's timestamptz keeps.
const Precision = time.Microsecond

// Clock tells the current instant.
type Clock interface {
	// Now returns the current instant in UTC, truncated to Precision.
	Now() time.Time
	// NowOrNil returns nil when the database's now() should decide (in
	// production), or the stubbed instant (in tests), truncated to Precision.
	NowOrNil() *time.Time
}

// System is the production Clock: the process's clock for Now, and the
// database's now() in SQL (NowOrNil is nil).
type System struct{}

// Now returns time.Now in UTC, truncated to Precision.
func (System) Now() time.Time { return time.Now().UTC().Truncate(Precision) }

// NowOrNil returns nil: SQL uses the database's now().
func (System) NowOrNil() *time.Time { return nil }
