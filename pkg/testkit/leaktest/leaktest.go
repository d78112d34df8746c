// Package leaktest is the TestMain of Lexora's test packages: it runs the
// tests and then fails them when goroutines they started are still running
// (go.uber.org/goleak).
package leaktest

import (
	"testing"

	"go.uber.org/goleak"
)

// Main runs m's tests and exits, failing when goroutines are left running.
// It ignores the goroutines of opts, and opencensus' view worker, which an
// init function of a dependency of the Cloud SQL connector starts for the
// life of the process.
func Main(m *testing.M, opts ...goleak.Option) {
	goleak.VerifyTestMain(m, append(opts, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))...)
}
