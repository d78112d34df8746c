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
	ID      string   `yaml:"id"`
	Name    string   `yaml:"name"`
	Args    []string `yaml:"args"`
	Env     []string `yaml:"env"`
	WaitFor []string `yaml:"waitFor"`
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

	migrate := step["migrate"].script()
	update := strings.Index(migrate, "gcloud run jobs update migrate")
	execute := strings.Index(migrate, "gcloud run jobs execute migrate")
	require.True(t, update >= 0 && execute > update, "migrate: the job is updated to the new image, then executed")
	require.Contains(t, migrate[execute:], "--wait")
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
