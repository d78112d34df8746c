// Command drain is the Cloud Run Job that drains the outbox in one bounded
// run (see outbox.Config for the DRAIN_* limits) into the consumers of
// pkg/consumers, logs one JSON summary line (the run's report, plus the
// outbox's standing dead deliveries and blocked keys) and exits: 0 when it ran, 1 when
// it could not (bad configuration, database unreachable). Failed deliveries
// are not a failed run; they are retried or dead-lettered and reported.
//
// Cloud Run runs CLOUD_RUN_TASK_COUNT tasks of one execution in parallel;
// they share the work through FOR UPDATE SKIP LOCKED, so each task takes an
// equal share of DRAIN_MAX_DELIVERIES. SIGTERM or SIGINT stops claiming;
// running handlers get DRAIN_SHUTDOWN_GRACE to finish, what is left is
// released for the next run, and the summary is logged.
//
// DRAIN_CHAOS_SUBSCRIBER_FAULTS (unset by default, and in every deployment)
// is for the fault-injection harness (jobs/dev/chaos) alone: for example
// "fail=0.02,timeout=0.01,panic=0.01" makes that share of deliveries fail,
// hang until their deadline, or panic before the subscriber runs, each
// logged as "injected subscriber fault". DRAIN_CHAOS_TRACE=true, also the
// harness's alone, logs each call of a subscriber's handler as it starts and
// returns ("chaos attempt", "chaos attempt done").
package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/pkg/consumers"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

type config struct {
	Database database.Config
	Mail     mail.Config
	Webhooks webhooks.Config
	Drain    outbox.Config
	// Listen starts a LISTEN/NOTIFY listener whose hints wake an idle run
	// early (loop mode: set DRAIN_MAX_DURATION long and
	// DRAIN_STOP_WHEN_IDLE=false). Polling goes on regardless. Not through
	// PgBouncer in transaction pooling.
	Listen bool `env:"DRAIN_LISTEN"`
	// ChaosFaults injects subscriber faults (see the package doc); only the
	// fault-injection harness sets it.
	ChaosFaults string `env:"DRAIN_CHAOS_SUBSCRIBER_FAULTS"`
	// ChaosTrace logs every handler call (see the package doc); only the
	// fault-injection harness sets it.
	ChaosTrace bool `env:"DRAIN_CHAOS_TRACE"`
	TaskIndex  int  `env:"CLOUD_RUN_TASK_INDEX, default=0"`
	TaskCount  int  `env:"CLOUD_RUN_TASK_COUNT, default=1"`
}

func main() { jobrun.Main("drain", run) }

func run(ctx context.Context, log *slog.Logger) (runErr error) {
	var cfg config
	if err := envconfig.Process(ctx, &cfg); err != nil {
		return err
	}
	if cfg.TaskCount > 1 {
		total := cfg.Drain.MaxDeliveries
		if total == 0 {
			total = outbox.DefaultMaxDeliveries
		}
		cfg.Drain.MaxDeliveries = (total + cfg.TaskCount - 1) / cfg.TaskCount
	}
	faults, err := parseFaultRates(cfg.ChaosFaults)
	if err != nil {
		return err
	}
	sender, err := mail.NewSMTP(cfg.Mail)
	if err != nil {
		return err
	}
	pool, err := database.Open(ctx, cfg.Database)
	if err != nil {
		return err
	}
	defer func() {
		if runErr != nil {
			// The database may have stopped answering: do not wait at all.
			go pool.Close()
			return
		}
		closeWithin(pool, closeWait)
	}()
	log = log.With(slog.Int("task_index", cfg.TaskIndex), slog.Int("task_count", cfg.TaskCount))
	handlers := consumers.Handlers(consumers.Deps{Pool: pool.Pool, Mail: sender, Webhooks: webhooks.NewSender(cfg.Webhooks, clock.System{}), Clock: clock.System{}})
	if cfg.ChaosTrace {
		handlers = withTrace(handlers, log)
	}
	handlers = withFaults(handlers, faults, log)
	drainer, err := outbox.NewDrainer(pool.Pool, handlers, cfg.Drain, log)
	if err != nil {
		return err
	}
	if cfg.Listen {
		l := outbox.NewListener(pool.Config().ConnConfig, outbox.DefaultWakeupChannel, log)
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go l.Run(lctx)
		drainer.WakeOn(l.Wake())
	}
	rep, err := drainer.Run(ctx)
	var counts []any
	if err == nil {
		counts = standing(ctx, pool.Pool, log)
	}
	log.Info("drain run", append([]any{slog.Any("report", rep)}, counts...)...)
	return err
}

// closeWait bounds how long the exit waits for the pool to close: closing
// connections to a database that stopped answering waits up to 15 s each
// for a cancel request, and Cloud Run kills the task 10 s after SIGTERM.
const closeWait = time.Second

// closeWithin closes pool (and then its Cloud SQL dialer), waiting at most
// wait for it.
func closeWithin(pool *database.Pool, wait time.Duration) {
	closed := make(chan struct{})
	go func() {
		pool.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(wait):
	}
}

// standingWait bounds the summary's read of the standing counts.
const standingWait = 2 * time.Second

// standing returns the outbox's dead deliveries and blocked ordering keys
// (all subscribers, not only this run's) as fields of the summary line, for
// the log-based metrics and alerts (terraform/monitoring.tf); none when they
// cannot be read within standingWait, or when the run was stopped (SIGTERM:
// the exit must be prompt, the next run reports them). run does not ask
// when the drain found the database unusable.
func standing(ctx context.Context, pool *pgxpool.Pool, log *slog.Logger) []any {
	if ctx.Err() != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, standingWait)
	defer cancel()
	h, err := outbox.ReadHealth(ctx, pool)
	if err != nil {
		log.Warn("drain summary without dead deliveries and blocked keys", slog.String("error", err.Error()))
		return nil
	}
	var dead int64
	for _, c := range h.Dead {
		dead += c.Count
	}
	return []any{slog.Int64("dead_deliveries", dead), slog.Int("blocked_keys", h.BlockedKeys)}
}
