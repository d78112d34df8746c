// Package jobrun is the main of every Lexora job binary: a JSON logger for
// Cloud Logging, a context cancelled by SIGTERM (Cloud Run's stop signal) or
// SIGINT, and an exit status the platform understands: 0 when the job ran,
// 1 when it could not.
package jobrun

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/lexora-app/lexora/pkg/platform/logging"
)

// Main runs fn and exits: with status 1, after logging fn's error as
// "<component> could not run", when fn fails; with 0 otherwise.
func Main(component string, fn func(ctx context.Context, log *slog.Logger) error) {
	log := logging.New(os.Stdout, component)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	err := fn(ctx, log)
	stop()
	if err != nil {
		log.Error(component+" could not run", slog.String("error", err.Error()))
		os.Exit(1)
	}
}
