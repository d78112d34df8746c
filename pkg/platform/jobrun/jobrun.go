// Package jobrun is the main of every Lexora job binary: a JSON logger for
// Cloud Logging, a context cancelled by SIGTERM (Cloud Run's stop signal) or
// SIGINT, and an exit status the platform understands: 0 when the job ran,
// 1 when it could not.
package jobrun

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/logging"
)

// Main runs fn and exits: with status 1, after logging fn's error as
// "<component> could not run", when fn fails, or as "<component> ran,
// some of its work failed" when the error is a [PartialFailure]; with 0
// otherwise.
func Main(component string, fn func(ctx context.Context, log *slog.Logger) error) {
	log := logging.New(os.Stdout, component)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := fn(ctx, log)
	stop()
	if err != nil {
		log.Error(FailureMessage(component, err), slog.String("error", err.Error()))
		os.Exit(1)
	}
}

// FailureMessage is the message [Main] logs for fn's error err:
// "<component> ran, some of its work failed" for a [PartialFailure],
// "<component> could not run" otherwise.
func FailureMessage(component string, err error) string {
	if errors.As(err, new(*PartialFailure)) {
		return component + " ran, some of its work failed"
	}
	return component + " could not run"
}

// PartialFailure is the error of a job that ran but some of whose work
// failed (a fit of one learner of several): [Main] exits 1, so the
// platform's failure alert fires, without saying the job could not run.
type PartialFailure struct {
	// Summary says what the run did and what failed ("kept 3, refused 0,
	// failed 1: timeout after 45s").
	Summary string
}

func (e *PartialFailure) Error() string { return e.Summary }

// MainOnDatabase is Main for a job that works on one database: it reads
// cfg from the environment and opens the database it names
// (database.OpenFromEnv), runs fn with the pool, and closes the pool. A
// configuration that does not read or a database that does not open fails
// the job as fn's error does.
func MainOnDatabase(component string, cfg database.Configured, fn func(context.Context, *slog.Logger, *database.Pool) error) {
	Main(component, func(ctx context.Context, log *slog.Logger) error {
		pool, err := database.OpenFromEnv(ctx, cfg)
		if err != nil {
			return err
		}
		defer pool.Close()
		return fn(ctx, log, pool)
	})
}
