package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/GoogleCloudPlatform/functions-framework-go/funcframework"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
	"github.com/lexora-app/lexora/pkg/testkit/testport"
)

// TestMain fails the package's tests when they leave goroutines running,
// except the Functions Framework's server, which has no way to stop: the
// test process ends it.
func TestMain(m *testing.M) {
	leaktest.Main(m, goleak.IgnoreAnyFunction("github.com/GoogleCloudPlatform/functions-framework-go/funcframework.StartHostPort"))
}

// TestUnknownPathIsAProblemDocument: the local server answers a path that
// names no function with a 404 problem document, not text/plain.
func TestUnknownPathIsAProblemDocument(t *testing.T) {
	closeAll, err := register(context.Background(), config{}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	defer closeAll()
	port := strconv.Itoa(testport.Free(t))
	served := make(chan error, 1)
	go func() { served <- funcframework.StartHostPort("127.0.0.1", port) }()
	defer http.DefaultClient.CloseIdleConnections()
	require.NoError(t, testport.Await("127.0.0.1:"+port, 10*time.Second, served))
	for _, path := range []string{"/NoSuchFunction", "/", "/GetSchedule/extra", "/getschedule"} {
		resp, err := http.Get("http://127.0.0.1:" + port + path)
		require.NoError(t, err)
		var p map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&p), path)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), path)
		require.Contains(t, p["detail"], "/GetSchedule", path)
	}
}
