package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/platform/logging"
	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
	"github.com/lexora-app/lexora/pkg/testkit/testport"
)

// TestMain fails the package's tests when they leave goroutines running.
func TestMain(m *testing.M) {
	leaktest.Main(m)
}

// TestUnknownPathIsAProblemDocument: the local server answers a path that
// names no function with a 404 problem document, not text/plain.
func TestUnknownPathIsAProblemDocument(t *testing.T) {
	t.Parallel()
	h, closeAll, err := handler(config{}, logging.New(io.Discard, "server"))
	require.NoError(t, err)
	defer closeAll()
	srv := httptest.NewServer(h)
	defer srv.Close()
	for _, path := range []string{"/NoSuchFunction", "/", "/GetSchedule/extra", "/getschedule"} {
		resp, err := srv.Client().Get(srv.URL + path)
		require.NoError(t, err)
		var p map[string]any
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&p), path)
		require.NoError(t, resp.Body.Close())
		require.Equal(t, http.StatusNotFound, resp.StatusCode, path)
		require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), path)
		require.Contains(t, p["detail"], "/GetSchedule", path)
	}
}

// lockedBuffer is a bytes.Buffer that the server's goroutines and the test
// may use at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// startLine is what the server's start-up line says.
type startLine struct {
	Message   string   `json:"message"`
	Severity  string   `json:"severity"`
	Port      string   `json:"port"`
	Functions []string `json:"functions"`
	WebClient string   `json:"web_client"`
	DevSignIn bool     `json:"dev_sign_in"`
}

func (b *lockedBuffer) lines(t *testing.T) []startLine {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []startLine
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var line startLine
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), "a log line that is not JSON: %s", sc.Text())
		out = append(out, line)
	}
	return out
}

// TestServerSaysOnceWhichFunctionsItServes: the local server logs one
// structured line at start naming every function it serves (and the web
// client and the development sign-in), prints nothing else of its own on
// stdout (the Functions Framework printed a plain line per function), and
// logs nothing per request.
func TestServerSaysOnceWhichFunctionsItServes(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/index.html", []byte("<!doctype html><title>Lexora</title>"), 0o644))
	port := testport.Free(t)
	t.Setenv("PORT", strconv.Itoa(port))
	t.Setenv("STATIC_DIR", dir)
	t.Setenv("AUTH_DEV", "true")

	stdout := os.Stdout
	r, w, err := os.Pipe()
	require.NoError(t, err)
	os.Stdout = w
	printed := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(r)
		printed <- b
	}()
	defer func() { os.Stdout = stdout }()

	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- run(ctx, logging.New(&logs, "server")) }()
	require.NoError(t, testport.Await("127.0.0.1:"+strconv.Itoa(port), 10*time.Second, stopped))
	defer http.DefaultClient.CloseIdleConnections()
	for _, path := range []string{"/", "/review", "/NoSuchFunction", "/"} {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(port) + path)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
	}
	cancel()
	require.NoError(t, <-stopped)
	os.Stdout = stdout
	require.NoError(t, w.Close())
	require.Empty(t, string(<-printed), "nothing printed besides the logger's lines")

	lines := logs.lines(t)
	require.Len(t, lines, 1, "one line at start, none per request: %v", lines)
	require.Equal(t, startLine{
		Message:   "serving functions",
		Severity:  "INFO",
		Port:      strconv.Itoa(port),
		Functions: slices.Sorted(maps.Keys(functions.Functions)),
		WebClient: dir,
		DevSignIn: true,
	}, lines[0])
}
