package terraform_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// The lock file is committed and pins the registry release whose source the
// offline checks build (RELEASE in .ci/ensure-terraform-provider), inside
// versions.tf's constraint, so the first real terraform init installs that
// release and no other. It records no hash yet: none could be had offline
// that is the registry's (terraform/README.md, "Lock file"); the first real
// terraform init adds a hashes list, which is committed and still passes.
func TestLockFilePinsTheReleaseTheChecksBuild(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(".terraform.lock.hcl")
	require.NoError(t, err, "terraform/.terraform.lock.hcl is committed")
	lock := lockedGoogle(string(raw))
	require.NotNil(t, lock, "the lock file has hashicorp/google's version and constraints: %s", raw)

	script, err := os.ReadFile("../.ci/ensure-terraform-provider")
	require.NoError(t, err)
	release := regexp.MustCompile(`(?m)^RELEASE=(\S+)$`).FindSubmatch(script)
	require.NotNil(t, release, ".ci/ensure-terraform-provider names the release it builds")
	require.Equal(t, string(release[1]), lock[1], "the lock file pins the release the checks build")

	versions, err := os.ReadFile("versions.tf")
	require.NoError(t, err)
	constraint := regexp.MustCompile(`source\s*= "hashicorp/google"\s*version\s*= "([^"]+)"`).FindSubmatch(versions)
	require.NotNil(t, constraint)
	require.Equal(t, string(constraint[1]), lock[2], "the lock file records versions.tf's constraint")
	require.Regexp(t, `^~> 8\.0$`, lock[2])
	require.Regexp(t, `^8\.\d+\.\d+$`, lock[1], "a release the constraint admits")
}

// lockedGoogle returns hashicorp/google's block in a lock file as {block,
// version, constraints}, with or without the hashes list terraform init
// writes; nil when the block or either attribute is missing.
func lockedGoogle(lockFile string) []string {
	return regexp.MustCompile(`(?s)provider "registry\.terraform\.io/hashicorp/google" \{\s*version\s*= "([^"]+)"\s*constraints = "([^"]+)"\s*(?:hashes\s*= \[[^\]]*\]\s*)?\}`).FindStringSubmatch(lockFile)
}

// The lock file as the first real terraform init leaves it (README: commit
// it) still passes, and its version is still read.
func TestLockFileWithHashes(t *testing.T) {
	t.Parallel()
	initialised := `# This file is maintained automatically by "terraform init".
# Manual edits may be lost in future updates.

provider "registry.terraform.io/hashicorp/google" {
  version     = "8.0.0"
  constraints = "~> 8.0"
  hashes = [
    "h1:TLQkRK6UtWzxaDsk1ExYpe49fZm8retdvKXkhEiXmMY=",
    "zh:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  ]
}
`
	lock := lockedGoogle(initialised)
	require.NotNil(t, lock, "a lock file with hashes is read")
	require.Equal(t, []string{"8.0.0", "~> 8.0"}, lock[1:])
	require.Nil(t, lockedGoogle(`provider "registry.terraform.io/hashicorp/google" {
  constraints = "~> 8.0"
  hashes = []
}`), "a block without a version is refused")
}
