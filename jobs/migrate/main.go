// Command migrate applies the embedded schema migrations (package schema) to
// DATABASE_URL and exits: 0 when the schema is current, 1 otherwise. Cloud
// Build runs it before each deploy; it is safe to run again.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/logging"
)

func main() {
	log := logging.New(os.Stdout, "migrate")
	if err := run(context.Background(), log); err != nil {
		log.Error("migration failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
	log.Info("schema is current")
}

func run(ctx context.Context, log *slog.Logger) error {
	var cfg database.Config
	if err := envconfig.Process(ctx, &cfg); err != nil {
		return err
	}
	pool, err := database.Open(ctx, cfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	return database.Migrate(ctx, pool, log)
}
