// Command seed loads the WordNet word list, the library decks and the demo
// class (package seed) into DATABASE_URL. It is idempotent: a second run
// inserts nothing. For local and staging use.
package main

import (
	"context"
	"log/slog"
	"os"

	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/logging"
	"github.com/lexora-app/lexora/pkg/seed"
)

func main() {
	log := logging.New(os.Stdout, "seed")
	if err := run(context.Background(), log); err != nil {
		log.Error("seed failed", slog.String("error", err.Error()))
		os.Exit(1)
	}
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
	rep, err := seed.Load(ctx, pool)
	if err != nil {
		return err
	}
	log.Info("seed loaded", slog.Int64("lexemes", rep.Lexemes), slog.Int64("decks", rep.Decks), slog.Int64("users", rep.Users))
	return nil
}
