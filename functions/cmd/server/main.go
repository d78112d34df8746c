// Command server serves every Lexora HTTP function locally at
// /<FunctionName> on PORT (default 8080), through the Functions Framework,
// and answers any other path with a 404 problem document. With
// FUNCTION_TARGET set it serves only that function, at every path, as Cloud
// Run functions do.
package main

import (
	"cmp"
	"context"
	"log/slog"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"

	"github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/platform/logging"
)

func main() {
	log := logging.New(os.Stdout, "server")
	if err := register(); err != nil {
		log.Error("register the unknown-path answer", slog.String("error", err.Error()))
		os.Exit(1)
	}
	port := cmp.Or(os.Getenv("PORT"), "8080")
	log.Info("serving functions", slog.String("port", port))
	if err := funcframework.Start(port); err != nil {
		log.Error("server stopped", slog.String("error", err.Error()))
		os.Exit(1)
	}
}

// register adds functions.UnknownPath at "/", which the Functions
// Framework's mux reaches for every path no function is registered at.
func register() error {
	return funcframework.RegisterHTTPFunctionContext(context.Background(), "/", functions.UnknownPath)
}
