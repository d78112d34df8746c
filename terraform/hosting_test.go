package terraform_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// Vite copies frontend/public to the bundle's root, and vite-plugin-pwa
// writes the manifest and the service worker there (frontend/vite.config.ts);
// the load balancer serves those files as they are only when hosting.tf's
// web_root_files names them (every other path outside /assets/ is the
// client's index.html, and a service worker answered with index.html would
// fail to install).
func TestEveryRootFileOfTheBundleIsServed(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("hosting.tf")
	require.NoError(t, err)
	list := regexp.MustCompile(`web_root_files = \[([^\]]*)\]`).FindSubmatch(raw)
	require.NotNil(t, list, "hosting.tf has local.web_root_files")
	var served []string
	for _, m := range regexp.MustCompile(`"([^"]+)"`).FindAllSubmatch(list[1], -1) {
		served = append(served, string(m[1]))
	}
	entries, err := os.ReadDir("../frontend/public")
	require.NoError(t, err)
	files := []string{"/manifest.webmanifest", "/sw.js"}
	for _, e := range entries {
		require.False(t, e.IsDir(), "frontend/public/%s: a directory would need a prefix route in hosting.tf", e.Name())
		files = append(files, "/"+e.Name())
	}
	slices.Sort(served)
	slices.Sort(files)
	require.Equal(t, files, served)
}
