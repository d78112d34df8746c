package terraform_test

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// gcloud builds submit uploads the tree minus .gcloudignore: the local
// caches and state (terraform/.terraform/, node_modules, bin/, .run/, the
// tfstate and tfvars files) stay out, and so does everything .gitignore
// leaves out, since with a .gcloudignore gcloud no longer reads .gitignore.
func TestGcloudignoreLeavesOutLocalState(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../.gcloudignore")
	require.NoError(t, err, "the repository has a .gcloudignore")
	patterns := map[string]bool{}
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns[line] = true
		}
	}
	for _, p := range []string{".git/", "terraform/.terraform/", "node_modules/", "bin/", ".run/", "*.tfstate", "*.tfvars"} {
		require.True(t, patterns[p], ".gcloudignore leaves out %s", p)
	}
	gitignore, err := os.ReadFile("../.gitignore")
	require.NoError(t, err)
	for _, line := range strings.Split(string(gitignore), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			require.True(t, patterns[line] || patterns[strings.TrimPrefix(line, "/")], ".gcloudignore also leaves out .gitignore's %s", line)
		}
	}
}
