// Command server serves every Lexora HTTP function locally at
// /<FunctionName> on PORT (default 8080), through the Functions Framework,
// and answers any other path with a 404 problem document. With
// FUNCTION_TARGET set it serves only that function, at every path, as Cloud
// Run functions do.
//
// Two local additions, outside the functions themselves and off unless
// configured (the deployed image sets neither):
//
//   - STATIC_DIR (a built web client, frontend/dist): its files and its
//     routes are served at / on the same origin as the functions (see
//     static.go), so the client needs no CORS and no API address.
//   - AUTH_DEV=true: the development sign-in at /dev/users and /dev/token
//     (see devsignin.go), which mints development ID tokens for the users
//     in the database so that a browser signs in without Google. Like the
//     development verifier, it refuses to start on Cloud Run (K_SERVICE set).
package main

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/logging"
)

// config is the server's own environment; the functions read theirs
// (functions.Config) on their first request.
type config struct {
	Port string `env:"PORT, default=8080"`
	// StaticDir holds the built web client served at /; empty serves none.
	StaticDir string `env:"STATIC_DIR"`
	Auth      auth.Config
	Database  database.Config
}

func main() {
	log := logging.New(os.Stdout, "server")
	if err := run(context.Background(), log); err != nil {
		log.Error("server stopped", slog.String("error", err.Error()))
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger) error {
	var cfg config
	if err := envconfig.Process(ctx, &cfg); err != nil {
		return fmt.Errorf("read configuration: %w", err)
	}
	closeAll, err := register(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeAll()
	port := cmp.Or(cfg.Port, "8080")
	log.Info("serving functions", slog.String("port", port))
	return funcframework.Start(port)
}

// register adds what the Functions Framework's mux reaches for every path
// no function is registered at ("/"): the web client when cfg.StaticDir is
// set, with functions.UnknownPath for the paths it does not serve, else
// functions.UnknownPath alone; and, with AUTH_DEV, the development sign-in.
// The returned function closes what it opened.
func register(ctx context.Context, cfg config, log *slog.Logger) (func(), error) {
	var root http.Handler = http.HandlerFunc(functions.UnknownPath)
	if cfg.StaticDir != "" {
		h, err := staticHandler(cfg.StaticDir, root)
		if err != nil {
			return nil, err
		}
		root = h
		log.Info("serving the web client", slog.String("dir", cfg.StaticDir))
	}
	if err := funcframework.RegisterHTTPFunctionContext(ctx, "/", root.ServeHTTP); err != nil {
		return nil, fmt.Errorf("register /: %w", err)
	}
	if !cfg.Auth.Dev {
		return func() {}, nil
	}
	d, err := newDevSignIn(func(ctx context.Context) (*database.Pool, error) { return database.Open(ctx, cfg.Database) },
		cfg.Auth.Project, log)
	if err != nil {
		return nil, err
	}
	for path, h := range d.routes() {
		if err := funcframework.RegisterHTTPFunctionContext(ctx, path, h); err != nil {
			return nil, fmt.Errorf("register %s: %w", path, err)
		}
	}
	log.Info("development sign-in enabled", slog.String("path", "/dev/token"))
	return d.close, nil
}
