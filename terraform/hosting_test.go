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

// Cloud CDN's fill agent exists only once the project has a signed URL key
// on a backend bucket, so the bucket binding to it waits for one.
func TestCDNBindingWaitsForTheAgent(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("hosting.tf")
	require.NoError(t, err)
	binding := regexp.MustCompile(`(?s)resource "google_storage_bucket_iam_member" "cdn_reads_web" \{(.*?)\n\}`).FindSubmatch(raw)
	require.NotNil(t, binding, "hosting.tf grants the CDN's agent the web bucket")
	require.Contains(t, string(binding[1]), "@cloud-cdn-fill.iam.gserviceaccount.com")
	require.Regexp(t, `depends_on\s*= \[google_compute_backend_bucket_signed_url_key\.web\]`, string(binding[1]))
	require.Regexp(t, `(?s)resource "google_compute_backend_bucket_signed_url_key" "web" \{\s*name\s*= "[a-z-]+"\s*backend_bucket = google_compute_backend_bucket\.web\.name`, string(raw))
}
