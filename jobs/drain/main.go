// Command drain is the Cloud Run Job that drains the outbox in one bounded
// run (see outbox.Config for the DRAIN_* limits) into the consumers of
// pkg/consumers, logs one JSON summary line and exits: 0 when it ran, 1 when
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
// is for the fault-injection harness (jobs/chaos) alone: for example
// "fail=0.02,timeout=0.01,panic=0.01" makes that share of deliveries fail,
// hang until their deadline, or panic before the subscriber runs, each
// logged as "injected subscriber fault".
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
	TaskIndex   int    `env:"CLOUD_RUN_TASK_INDEX, default=0"`
	TaskCount   int    `env:"CLOUD_RUN_TASK_COUNT, default=1"`
}

func main() { jobrun.Main("drain", run) }

func run(ctx context.Context, log *slog.Logger) error {
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
	defer closeWithin(pool, closeWait)
	log = log.With(slog.Int("task_index", cfg.TaskIndex), slog.Int("task_count", cfg.TaskCount))
	handlers := consumers.Handlers(consumers.Deps{Pool: pool, Mail: sender, Webhooks: webhooks.NewSender(cfg.Webhooks), Log: log})
	handlers = withFaults(handlers, faults, log)
	drainer, err := outbox.NewDrainer(pool, handlers, cfg.Drain, log)
	if err != nil {
		return err
	}
	if cfg.Listen {
		l := outbox.NewListener(cfg.Database.URL, outbox.DefaultWakeupChannel, log)
		lctx, stop := context.WithCancel(ctx)
		defer stop()
		go l.Run(lctx)
		drainer.WakeOn(l.Wake())
	}
	rep, err := drainer.Run(ctx)
	log.Info("drain run", slog.Any("report", rep))
	return err
}

// closeWait bounds how long the exit waits for the pool to close: closing
// connections to a database that stopped answering waits up to 15 s each
// for a cancel request, and Cloud Run kills the task 10 s after SIGTERM.
const closeWait = time.Second

// closeWithin closes pool, waiting at most wait for it.
func closeWithin(pool *pgxpool.Pool, wait time.Duration) {
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
