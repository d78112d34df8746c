package outbox

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Defaults for Config, written once next to the setting they fill.
const (
	DefaultMaxDuration    = 45 * time.Second
	DefaultMaxDeliveries  = 100_000
	DefaultBatchSize      = 1000
	DefaultConcurrency    = 16
	DefaultLeaseDuration  = 30 * time.Second
	DefaultMaxAttempts    = 12
	DefaultBackoffBase    = time.Second
	DefaultBackoffMax     = time.Hour
	DefaultPollInterval   = time.Second
	DefaultHandlerTimeout = time.Minute
	// DefaultShutdownGrace leaves room inside Cloud Run's 10 s between
	// SIGTERM and SIGKILL for the final writes, which are cut 2 s after the
	// grace: a run ends within 8 s of SIGTERM even with the database gone.
	DefaultShutdownGrace = 6 * time.Second
	// DefaultStatementTimeout is far above what the drain's statements take
	// (a claim of 1,000 deliveries takes tens of milliseconds) and well
	// under the default lease.
	DefaultStatementTimeout = 5 * time.Second
)

// Config bounds one drain run. Zero fields take the defaults above. The env
// tags name the jobs/drain environment variables (Go duration syntax for
// durations, e.g. "45s").
type Config struct {
	// MaxDuration is how long a run keeps claiming work and starting
	// handlers. Handlers already started may finish after it, each within
	// HandlerTimeout (plus a second before it is abandoned); claimed
	// deliveries not started by then are released.
	MaxDuration time.Duration `env:"DRAIN_MAX_DURATION"`
	// MaxDeliveries caps how many deliveries one run claims.
	MaxDeliveries int `env:"DRAIN_MAX_DELIVERIES"`
	// BatchSize is the most deliveries one claim statement takes and a run
	// holds claimed; a run holds fewer when it would not finish them before
	// its deadline (see Run).
	BatchSize int `env:"DRAIN_BATCH_SIZE"`
	// Concurrency is how many handlers run at once.
	Concurrency int `env:"DRAIN_CONCURRENCY"`
	// LeaseDuration is how long a claimed delivery stays with its worker
	// before another may take it. While a handler runs, the lease is extended
	// (a heartbeat) every third of it; a handler whose lease was taken over
	// anyway has its context cancelled and its result is not written.
	LeaseDuration time.Duration `env:"DRAIN_LEASE_DURATION"`
	// HandlerTimeout is the deadline of one handler call. Past it the
	// delivery's lease is no longer extended; a handler that has not returned
	// a second later is abandoned (left running, counted in
	// Report.Abandoned) and its attempt counts as failed, so a delivery that
	// hangs on every attempt ends dead like any other failure.
	HandlerTimeout time.Duration `env:"DRAIN_HANDLER_TIMEOUT"`
	// StatementTimeout is the deadline of each statement the drain itself
	// issues (claim, lease extension, result writes, backlog). After
	// SIGTERM, statements are also cut at the end of the shutdown (grace
	// plus two seconds), so a run exits even when the database stops
	// answering.
	StatementTimeout time.Duration `env:"DRAIN_STATEMENT_TIMEOUT"`
	// ShutdownGrace is how long handlers may go on once the run's context is
	// cancelled (SIGTERM); then their contexts are cancelled and unfinished
	// deliveries are released for another worker, without using an attempt.
	ShutdownGrace time.Duration `env:"DRAIN_SHUTDOWN_GRACE"`
	// MaxAttempts is the number of attempts after which a failing delivery
	// becomes dead.
	MaxAttempts int `env:"DRAIN_MAX_ATTEMPTS"`
	// BackoffBase is the delay before the second attempt; each later attempt
	// doubles it, up to BackoffMax, with jitter (see Config.Backoff).
	BackoffBase time.Duration `env:"DRAIN_BACKOFF_BASE"`
	// BackoffMax caps the delay between attempts.
	BackoffMax time.Duration `env:"DRAIN_BACKOFF_MAX"`
	// StopWhenIdle ends the run as soon as a claim finds nothing due.
	StopWhenIdle bool `env:"DRAIN_STOP_WHEN_IDLE"`
	// PollInterval is how long an idle run waits before claiming again.
	PollInterval time.Duration `env:"DRAIN_POLL_INTERVAL"`
}

func (c Config) withDefaults() Config {
	c.MaxDuration = cmp.Or(c.MaxDuration, DefaultMaxDuration)
	c.MaxDeliveries = cmp.Or(c.MaxDeliveries, DefaultMaxDeliveries)
	c.BatchSize = cmp.Or(c.BatchSize, DefaultBatchSize)
	c.Concurrency = cmp.Or(c.Concurrency, DefaultConcurrency)
	c.LeaseDuration = cmp.Or(c.LeaseDuration, DefaultLeaseDuration)
	c.MaxAttempts = cmp.Or(c.MaxAttempts, DefaultMaxAttempts)
	c.BackoffBase = cmp.Or(c.BackoffBase, DefaultBackoffBase)
	c.BackoffMax = cmp.Or(c.BackoffMax, DefaultBackoffMax)
	c.PollInterval = cmp.Or(c.PollInterval, DefaultPollInterval)
	c.HandlerTimeout = cmp.Or(c.HandlerTimeout, DefaultHandlerTimeout)
	c.ShutdownGrace = cmp.Or(c.ShutdownGrace, DefaultShutdownGrace)
	c.StatementTimeout = cmp.Or(c.StatementTimeout, DefaultStatementTimeout)
	return c
}

// Validate rejects settings that cannot work, after applying defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.MaxDuration < 0 || c.MaxDeliveries < 0 || c.BatchSize < 0 || c.Concurrency < 0 ||
		c.MaxAttempts < 0 || c.BackoffBase < 0 || c.BackoffMax < 0 || c.PollInterval < 0 ||
		c.HandlerTimeout < 0 || c.ShutdownGrace < 0 || c.StatementTimeout < 0 {
		errs = append(errs, errors.New("outbox config: limits must not be negative"))
	}
	if c.LeaseDuration < time.Second {
		errs = append(errs, fmt.Errorf("outbox config: lease duration %s is under 1s", c.LeaseDuration))
	}
	if c.BackoffMax < c.BackoffBase {
		errs = append(errs, fmt.Errorf("outbox config: backoff max %s is below backoff base %s", c.BackoffMax, c.BackoffBase))
	}
	return errors.Join(errs...)
}

// Backoff returns the delay before the attempt after attempt number attempt
// (1-based): min(BackoffMax, BackoffBase * 2^(attempt-1)), of which the upper
// half is random ("equal jitter"), so delays grow while retries of many
// deliveries spread out.
func (c Config) Backoff(attempt int) time.Duration {
	c = c.withDefaults()
	d := c.BackoffBase
	for i := 1; i < attempt && d < c.BackoffMax; i++ {
		d *= 2
	}
	d = min(d, c.BackoffMax)
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(half)+1))
}
