// Command fit is the Cloud Run Job that fits learners' own FSRS-6
// parameters (pkg/fitting): in one bounded run (FIT_MAX_DURATION,
// FIT_MAX_LEARNERS, FIT_TIMEOUT; see fitting.Config) it fits the learners
// of its task (CLOUD_RUN_TASK_INDEX of CLOUD_RUN_TASK_COUNT, split by the
// hash of the learner id) who have enough new cross-day reviews since
// their last fit, records every fit and adopts those that predict better.
// Overlapping executions are safe: a learner being fitted by one is
// skipped by the other. It logs one JSON summary line "fit run" and exits
// 0 when every fit it tried ran (kept or refused); 1 when it could not
// select the learners ("fit could not run"), or when a fit failed ("fit
// ran, some of its work failed", with "kept 3, refused 0, failed 1:
// timeout after 45s"): the failure is recorded, so the learner is not
// retried before 100 new reviews and the alert does not fire every run.
package main

import (
	"context"
	"log/slog"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/fitting"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
)

type config struct {
	database.Config
	Fit fitting.Config
}

func main() {
	var cfg config
	jobrun.MainOnDatabase("fit", &cfg, cfg.run)
}

func (cfg *config) run(ctx context.Context, log *slog.Logger, pool *database.Pool) error {
	rep, err := fitting.Run(ctx, pool.Pool, events.NewOutbox(), clock.System{}, cfg.Fit)
	if err != nil {
		return err
	}
	for learner, err := range rep.Errors {
		log.Error("fit failed", slog.String("learner_id", learner.String()), slog.String("error", err.Error()))
	}
	log.Info("fit run", slog.Int("task_index", cfg.Fit.TaskIndex), slog.Int("selected", rep.Selected),
		slog.Int("kept", rep.Kept), slog.Int("refused", rep.Refused), slog.Int("locked", rep.Locked),
		slog.Int("already_fitted", rep.AlreadyFitted), slog.Int("failed", rep.Failed), slog.Int("reviews", rep.Reviews), slog.String("summary", rep.String()),
		slog.Bool("reached_deadline", rep.ReachedDeadline), slog.Float64("duration_seconds", rep.Duration.Seconds()))
	return outcome(rep)
}

// outcome is the run's exit: nil when every fit it tried ran (kept or
// refused), a jobrun.PartialFailure that says what was kept and what failed
// ("kept 3, refused 0, failed 1: timeout after 45s") otherwise.
func outcome(rep fitting.Report) error {
	if rep.Failed == 0 {
		return nil
	}
	return &jobrun.PartialFailure{Summary: rep.String()}
}
