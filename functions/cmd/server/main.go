// Command server serves the Lexora HTTP functions on PORT (default 8080).
// With FUNCTION_TARGET set (Cloud Run) it serves only that function, at
// every path, through the Functions Framework. Without it (locally) it
// serves every function at /<FunctionName> and answers any other path with
// a 404 problem document, on a net/http server of its own: the Functions
// Framework would print a line of plain text per function at start.
//
// Either way it logs once, at start, one structured line that says what
// it serves ("serving functions": port, functions, and locally web_client
// and dev_sign_in), and nothing of the kind per request.
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
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"time"

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
	// Target is the one function a Cloud Run service serves; empty serves all.
	Target string `env:"FUNCTION_TARGET"`
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

// run serves until the server fails, or, locally, until ctx ends: then it
// stops the server (letting requests in flight finish, for at most 5 s) and
// returns nil.
func run(ctx context.Context, log *slog.Logger) error {
	var cfg config
	if err := envconfig.Process(ctx, &cfg); err != nil {
		return fmt.Errorf("read configuration: %w", err)
	}
	port := cmp.Or(cfg.Port, "8080")
	if cfg.Target != "" {
		log.Info("serving functions", slog.String("port", port), slog.Any("functions", []string{cfg.Target}))
		return funcframework.Start(port)
	}
	h, closeAll, err := handler(cfg, log)
	if err != nil {
		return err
	}
	defer closeAll()
	log.Info("serving functions", slog.String("port", port),
		slog.Any("functions", slices.Sorted(maps.Keys(functions.Functions))),
		slog.String("web_client", cfg.StaticDir), slog.Bool("dev_sign_in", cfg.Auth.Dev))
	srv := &http.Server{
		Addr:              ":" + port,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelError),
	}
	served := make(chan error, 1)
	go func() { served <- srv.ListenAndServe() }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shutdown); err != nil {
			return fmt.Errorf("stop serving: %w", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// handler is the local server's mux: every function at /<FunctionName>
// (functions.Handlers), and at every other path the web client when
// cfg.StaticDir is set, with functions.UnknownPath for the paths it does not
// serve, else functions.UnknownPath alone; and, with AUTH_DEV, the
// development sign-in. The returned function closes what it opened.
func handler(cfg config, log *slog.Logger) (http.Handler, func(), error) {
	mux := http.NewServeMux()
	for name, h := range functions.Handlers() {
		mux.Handle("/"+name, h)
	}
	var root http.Handler = http.HandlerFunc(functions.UnknownPath)
	if cfg.StaticDir != "" {
		h, err := staticHandler(cfg.StaticDir, root)
		if err != nil {
			return nil, nil, err
		}
		root = h
	}
	mux.Handle("/", root)
	if !cfg.Auth.Dev {
		return mux, func() {}, nil
	}
	d, err := newDevSignIn(func(ctx context.Context) (*database.Pool, error) { return database.Open(ctx, cfg.Database) },
		cfg.Auth.Project, log)
	if err != nil {
		return nil, nil, err
	}
	for path, h := range d.routes() {
		mux.HandleFunc(path, h)
	}
	return mux, d.close, nil
}
