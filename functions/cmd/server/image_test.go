package main

import (
	"bytes"
	"context"
	"debug/elf"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/testkit/testport"
)

// koConfig is the part of .ko.yaml that decides the binary.
type koConfig struct {
	DefaultBaseImage string    `yaml:"defaultBaseImage"`
	DefaultPlatforms []string  `yaml:"defaultPlatforms"`
	Builds           []koBuild `yaml:"builds"`
}

type koBuild struct {
	ID      string   `yaml:"id"`
	Main    string   `yaml:"main"`
	Env     []string `yaml:"env"`
	Flags   []string `yaml:"flags"`
	Ldflags []string `yaml:"ldflags"`
}

// The image Cloud Build deploys for every function (ko, .ko.yaml) cannot be
// built here: there is no registry to pull its distroless base from. This
// test builds the same binary the way ko does (go build with the build's
// env, flags and ldflags, for the image's platform), checks that it needs
// nothing from the base image (static: no dynamic loader, no libc), and
// starts it the way Cloud Run starts each function's service: PORT and
// FUNCTION_TARGET=SubmitReview, answering at /.
func TestImageBinaryServesItsFunctionTargetAtRoot(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("../../..")
	require.NoError(t, err)
	raw, err := os.ReadFile(filepath.Join(root, ".ko.yaml"))
	require.NoError(t, err)
	var ko koConfig
	require.NoError(t, yaml.Unmarshal(raw, &ko))
	require.Equal(t, []string{"linux/amd64"}, ko.DefaultPlatforms)
	require.Contains(t, ko.DefaultBaseImage, "distroless/static")
	i := slices.IndexFunc(ko.Builds, func(b koBuild) bool { return b.ID == "server" })
	require.GreaterOrEqual(t, i, 0, ".ko.yaml has no build \"server\"")
	b := ko.Builds[i]
	require.Equal(t, "./functions/cmd/server", b.Main)

	bin := filepath.Join(t.TempDir(), "server")
	args := append(append([]string{"build"}, b.Flags...), "-ldflags="+strings.Join(b.Ldflags, " "), "-o", bin, b.Main)
	build := exec.Command("go", args...)
	build.Dir = root
	build.Env = append(append(os.Environ(), "GOOS=linux", "GOARCH=amd64"), b.Env...)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go %s\n%s", strings.Join(args, " "), out)

	f, err := elf.Open(bin)
	require.NoError(t, err)
	defer func() { require.NoError(t, f.Close()) }()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "the binary needs a dynamic loader, which distroless/static lacks")
	}
	libs, err := f.ImportedLibraries()
	require.NoError(t, err)
	require.Empty(t, libs)

	pool := pgtest.New(t)
	_, err = seed.Load(context.Background(), pool, clock.System{})
	require.NoError(t, err)
	port := strconv.Itoa(testport.Free(t))
	ctx, cancel := context.WithCancel(context.Background())
	server := exec.CommandContext(ctx, bin)
	// Only what Cloud Run and Terraform give the container (plus the
	// development issuer, since no Identity Platform is reachable).
	server.Env = []string{"PORT=" + port, "FUNCTION_TARGET=SubmitReview", "DATABASE_URL=" + pgtest.URL(pool),
		"DATABASE_MAX_CONNS=2", "AUTH_DEV=true"}
	var logs bytes.Buffer
	server.Stdout, server.Stderr = &logs, &logs
	require.NoError(t, server.Start())
	exited := make(chan error, 1)
	go func() { exited <- server.Wait() }()
	t.Cleanup(func() {
		cancel()
		<-exited //nolint:errcheck // killed by this cleanup: Wait only says so
	})
	require.NoError(t, testport.Await("127.0.0.1:"+port, 30*time.Second, exited), "%s", &logs)

	learner := "00000000-0000-4000-8000-000000000001" // Mia, from the seed
	token, err := auth.DevToken("lexora-dev", learner, "", time.Hour)
	require.NoError(t, err)
	post := func(path, body string) (*http.Response, map[string]any) {
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:"+port+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { require.NoError(t, resp.Body.Close()) }()
		var doc map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&doc)
		return resp, doc
	}
	// A rating of 7 is a SubmitReview validation error: the function at /
	// is SubmitReview, authenticated the learner, and decoded the request.
	body := fmt.Sprintf(`{"card_id":%q,"rating":7}`, uuid.NewString())
	resp, doc := post("/", body)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%v\n%s", doc, &logs)
	require.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	require.Contains(t, fmt.Sprint(doc["errors"]), "rating")

	// Every path is the target, as on Cloud Run functions.
	resp, doc = post("/SubmitReview", body)
	require.Equal(t, http.StatusBadRequest, resp.StatusCode, "%v", doc)
}
