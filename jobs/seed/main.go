// Command seed loads the WordNet word list, the library decks and the demo
// class (package seed) into DATABASE_URL. It is idempotent: a second run
// inserts nothing. For local and staging use.
package main

import (
	"context"
	"log/slog"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
	"github.com/lexora-app/lexora/pkg/seed"
)

func main() { jobrun.Main("seed", run) }

func run(ctx context.Context, log *slog.Logger) error {
	pool, err := database.OpenFromEnv(ctx)
	if err != nil {
		return err
	}
	defer pool.Close()
	rep, err := seed.Load(ctx, pool)
	if err != nil {
		return err
	}
	log.Info("seed loaded", slog.Int64("lexemes", rep.Lexemes), slog.Int64("decks", rep.Decks), slog.Int64("users", rep.Users))
	return nil
}
