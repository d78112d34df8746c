// Command server serves every Lexora HTTP function locally at
// /<FunctionName> on PORT (default 8080), through the Functions Framework.
// With FUNCTION_TARGET set it serves only that function, at every path, as
// Cloud Run functions do.
package main

import (
	"cmp"
	"log/slog"
	"os"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"

	_ "github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/platform/logging"
)

func main() {
	log := logging.New(os.Stdout, "server")
	port := cmp.Or(os.Getenv("PORT"), "8080")
	log.Info("serving functions", slog.String("port", port))
	if err := funcframework.Start(port); err != nil {
		log.Error("server stopped", slog.String("error", err.Error()))
		os.Exit(1)
	}
}
