package terraform_test

import (
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

type buildStep struct {
	ID             string   `yaml:"id"`
	Name           string   `yaml:"name"`
	Entrypoint     string   `yaml:"entrypoint"`
	Args           []string `yaml:"args"`
	Env            []string `yaml:"env"`
	WaitFor        []string `yaml:"waitFor"`
	AllowFailure   bool     `yaml:"allowFailure"`
	AllowExitCodes []int    `yaml:"allowExitCodes"`
}

func (s buildStep) script() string { return strings.Join(append(s.Env, s.Args...), "\n") }

// TestCloudBuildTestsBuildsMigratesThenDeploys parses cloudbuild.yaml and
// checks the rollout's order: tests, then the images (and the web bundle),
// then the migration executed and waited for, then services and jobs on the
// same digests, then the web client. Steps run in sequence (no waitFor), so
// a failing step stops everything after it.
func TestCloudBuildTestsBuildsMigratesThenDeploys(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../cloudbuild.yaml")
	require.NoError(t, err)
	var cb struct {
		Steps         []buildStep       `yaml:"steps"`
		Substitutions map[string]string `yaml:"substitutions"`
		Options       map[string]any    `yaml:"options"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &cb))

	ids := make([]string, len(cb.Steps))
	step := map[string]buildStep{}
	for i, s := range cb.Steps {
		ids[i] = s.ID
		step[s.ID] = s
		require.Empty(t, s.WaitFor, "step %s: waitFor would let it run out of order", s.ID)
		require.False(t, s.AllowFailure, "step %s: allowFailure would let the build go on after it fails", s.ID)
		require.Empty(t, s.AllowExitCodes, "step %s: allowExitCodes would let the build go on after it fails", s.ID)
	}
	require.Equal(t, []string{"test", "build", "web-build", "migrate", "deploy-services", "deploy-jobs", "web-publish"}, ids)

	require.Contains(t, step["test"].script(), ".ci/run", "the test step runs the suite as CI does")

	// The build covers every binary .ko.yaml builds, and records digests.
	ko, err := os.ReadFile("../.ko.yaml")
	require.NoError(t, err)
	var kc struct {
		Builds []struct {
			Main string `yaml:"main"`
		} `yaml:"builds"`
	}
	require.NoError(t, yaml.Unmarshal(ko, &kc))
	build := step["build"].script()
	require.Contains(t, build, "ko build")
	require.Contains(t, build, "--image-refs=/workspace/images.txt")
	for _, b := range kc.Builds {
		require.Contains(t, build, b.Main)
	}

	// A failed migration stops the rollout: bash -e exits with the first
	// failing command, the script is exactly the update and the execution
	// waited for (no ||, ;, & or pipe could swallow a failure), and every
	// later step runs only after this one succeeded (no waitFor above).
	m := step["migrate"]
	require.Equal(t, "bash", m.Entrypoint)
	require.Len(t, m.Args, 2)
	require.Regexp(t, `^-[a-z]*e[a-z]*c$`, m.Args[0], "migrate runs under bash -e")
	require.Empty(t, m.Env)
	require.Equal(t, []string{
		`gcloud run jobs update migrate --region=${_REGION} --image="$$(grep '/migrate@sha256:' /workspace/images.txt)" --quiet`,
		`gcloud run jobs execute migrate --region=${_REGION} --wait`,
	}, strings.Split(strings.TrimSpace(m.Args[1]), "\n"), "migrate: the job is updated to the new image, then executed and waited for, with nothing that could swallow a failure")
	for _, id := range []string{"migrate", "deploy-services", "deploy-jobs"} {
		require.Regexp(t, `grep .*@sha256:.* /workspace/images.txt`, step[id].script(), "%s deploys by digest", id)
	}
	require.Contains(t, step["deploy-services"].script(), "gcloud run services update")
	require.Contains(t, step["deploy-jobs"].script(), "grep -vx migrate", "migrate is deployed once, before the rest")
	require.Contains(t, step["web-publish"].script(), "gs://${_WEB_BUCKET}")

	// Substitutions: every one used is declared (with a default) and every
	// declared one used; shell variables are escaped ($$) so that Cloud
	// Build does not take them for substitutions.
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{?(_[A-Z0-9_]+)`).FindAllStringSubmatch(string(raw), -1) {
		used[m[1]] = true
	}
	require.Equal(t, slices.Sorted(maps.Keys(cb.Substitutions)), slices.Sorted(maps.Keys(used)))
	for _, s := range cb.Steps {
		unescaped := regexp.MustCompile(`(^|[^$])\$[a-z(]`).FindString(strings.Join(s.Args, "\n"))
		require.Empty(t, unescaped, "step %s uses a shell variable or command substitution without $$", s.ID)
	}
	require.Equal(t, true, cb.Options["dynamicSubstitutions"])
}
