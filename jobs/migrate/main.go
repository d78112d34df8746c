// Command migrate applies the embedded schema migrations (package schema) to
// DATABASE_URL and exits: 0 when the schema is current, 1 otherwise. Cloud
// Build runs it before each deploy; it is safe to run again.
package main

import (
	"context"
	"log/slog"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
)

func main() { jobrun.Main("migrate", run) }

func run(ctx context.Context, log *slog.Logger) error {
	pool, err := database.OpenFromEnv(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := database.Migrate(ctx, pool, log); err != nil {
		return err
	}
	log.Info("schema is current")
	return nil
}
