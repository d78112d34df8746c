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
// release and no other. It records no hash: none could be had offline that
// is the registry's (terraform/README.md, "Lock file"), and a wrong one
// would make that init fail.
func TestLockFilePinsTheReleaseTheChecksBuild(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(".terraform.lock.hcl")
	require.NoError(t, err, "terraform/.terraform.lock.hcl is committed")
	lock := regexp.MustCompile(`(?s)provider "registry\.terraform\.io/hashicorp/google" \{\s*version\s*= "([^"]+)"\s*constraints = "([^"]+)"\s*\}`).FindStringSubmatch(string(raw))
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
