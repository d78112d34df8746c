package terraform_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeTools writes gcloud, git and curl stand-ins into a directory for
// deploy/* scripts run under test: each appends its arguments to calls.log;
// gcloud lists two function services and the jobs drain, prune and migrate;
// git ls-remote answers FAKE_HEAD as the branch head; curl answers an ID
// token for the sign-in and FAKE_SMOKE_CODE (200 unless set) for a function.
// gcloud run deploy logs "start S" and "end S" around FAKE_DEPLOY_SECONDS
// of sleep, and fails for the service FAKE_DEPLOY_FAIL.
func fakeTools(t *testing.T) (bin, calls string) {
	t.Helper()
	bin = t.TempDir()
	calls = filepath.Join(bin, "calls.log")
	scripts := map[string]string{
		"gcloud": `echo "gcloud $*" >> "$CALLS"
case "$*" in
*"services list"*) printf 'me\ngetschedule\n' ;;
*"jobs list"*) printf 'drain\nmigrate\nprune\n' ;;
"run deploy "*)
	echo "start $3" >> "$CALLS"
	sleep "${FAKE_DEPLOY_SECONDS:-0}"
	echo "end $3" >> "$CALLS"
	[ "$3" != "${FAKE_DEPLOY_FAIL:-}" ] ;;
esac`,
		"git": `echo "git $*" >> "$CALLS"
[ "$1" = ls-remote ] && printf '%s\trefs/heads/main\n' "$FAKE_HEAD"`,
		"curl": `echo "curl $*" >> "$CALLS"
case "$*" in
*signInWithPassword*) printf '{\n  "idToken": "token-1",\n  "expiresIn": "3600"\n}\n' ;;
*) printf '%s' "${FAKE_SMOKE_CODE:-200}" ;;
esac`,
	}
	for name, body := range scripts {
		require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755))
	}
	return bin, calls
}

// rollout runs deploy/rollout with the fake tools and returns the tools'
// calls (one line each), whether it marked the build superseded, and its error.
func rollout(t *testing.T, env ...string) ([]string, bool, error) {
	t.Helper()
	bin, calls := fakeTools(t)
	images := filepath.Join(bin, "images.txt")
	var refs []string
	for _, b := range []string{"server", "drain", "prune", "migrate", "seed", "outboxctl"} {
		refs = append(refs, "europe-west1-docker.pkg.dev/p/lexora/"+b+"@sha256:"+strings.Repeat(b[:1], 64))
	}
	require.NoError(t, os.WriteFile(images, []byte(strings.Join(refs, "\n")+"\n"), 0o644))
	superseded := filepath.Join(bin, "superseded")
	cmd := exec.Command("../deploy/rollout", images)
	cmd.Env = append([]string{
		"PATH=" + bin + ":" + os.Getenv("PATH"), "CALLS=" + calls, "SUPERSEDED=" + superseded,
		"REGION=europe-west1", "DOMAIN=app.lexora.test", "RELEASE=0f1e2d3c-aaaa", "RELEASES_BUCKET=p-build-source",
		"GIT_URL=https://git.invalid/lexora.git", "BRANCH=main", "COMMIT=c2", "FAKE_HEAD=c2",
		"SMOKE_EMAIL=smoke@lexora.test", "SMOKE_PASSWORD=pw", "AUTH_API_KEY=key",
	}, env...)
	out, err := cmd.CombinedOutput()
	t.Logf("deploy/rollout:\n%s", out)
	raw, readErr := os.ReadFile(calls)
	require.NoError(t, readErr)
	_, statErr := os.Stat(superseded)
	return strings.Split(strings.TrimSpace(string(raw)), "\n"), statErr == nil, err
}

// index answers the position of the first call containing s, or -1.
func index(calls []string, s string) int {
	for i, c := range calls {
		if strings.Contains(c, s) {
			return i
		}
	}
	return -1
}

// The newest commit rolls out in order: migration, then candidates with no
// traffic, the smoke test against them, then traffic to the new revisions,
// then the other jobs' images, then the release's record.
func TestRolloutMigratesSmokesThenMovesTraffic(t *testing.T) {
	t.Parallel()
	calls, superseded, err := rollout(t)
	require.NoError(t, err)
	require.False(t, superseded)
	migrate := index(calls, "gcloud run jobs execute migrate --region=europe-west1 --wait")
	candidate := index(calls, "gcloud run deploy me --region=europe-west1 --image=europe-west1-docker.pkg.dev/p/lexora/server@sha256:")
	smokeMe := index(calls, "https://app.lexora.test/Me")
	smokeSchedule := index(calls, "https://app.lexora.test/GetSchedule")
	traffic := index(calls, "gcloud run services update-traffic me --region=europe-west1 --to-revisions=me-r0f1e2d3c=100")
	jobs := index(calls, "gcloud run jobs update drain --region=europe-west1 --image=europe-west1-docker.pkg.dev/p/lexora/drain@sha256:")
	record := index(calls, "gcloud storage cp")
	require.True(t, 0 < migrate && migrate < candidate && candidate < smokeMe && smokeMe < smokeSchedule &&
		smokeSchedule < traffic && traffic < jobs && jobs < record,
		"order: migrate %d, candidate %d, smoke %d/%d, traffic %d, jobs %d, record %d", migrate, candidate, smokeMe, smokeSchedule, traffic, jobs, record)
	require.Contains(t, calls[candidate], "--revision-suffix=r0f1e2d3c --no-traffic --tag=candidate")
	require.Contains(t, calls[smokeMe], "X-Lexora-Candidate: 1")
	require.Contains(t, calls[smokeMe], "Authorization: Bearer token-1")
	require.Equal(t, 2, strings.Count(strings.Join(calls, "\n"), "git ls-remote"), "the head is compared before the migration and before traffic moves")
	require.Equal(t, 1, strings.Count(strings.Join(calls, "\n"), "jobs update migrate"), "migrate is updated once, before the rest")
	require.NotEqual(t, -1, index(calls, "gcloud run jobs update prune"))
}

// The candidates deploy at the same time (the build's longest part was 21
// services one after another): both start before either ends. One that
// fails fails the rollout after the other has ended, before the smoke test
// and with no traffic moved.
func TestRolloutDeploysTheCandidatesInParallel(t *testing.T) {
	t.Parallel()
	calls, _, err := rollout(t, "FAKE_DEPLOY_SECONDS=1")
	require.NoError(t, err)
	startMe, startSchedule := index(calls, "start me"), index(calls, "start getschedule")
	endMe, endSchedule := index(calls, "end me"), index(calls, "end getschedule")
	require.True(t, startMe >= 0 && startSchedule >= 0 && max(startMe, startSchedule) < min(endMe, endSchedule),
		"both deploys start before either ends: %v", calls)
	require.Less(t, max(endMe, endSchedule), index(calls, "https://app.lexora.test/Me"), "the smoke test waits for every candidate")

	calls, _, err = rollout(t, "FAKE_DEPLOY_FAIL=me")
	require.Error(t, err)
	require.NotEqual(t, -1, index(calls, "end getschedule"), "the other candidate still deploys")
	require.Equal(t, -1, index(calls, "https://app.lexora.test/Me"), "no smoke test")
	require.Equal(t, -1, index(calls, "update-traffic"), "no traffic moves")
	require.Equal(t, -1, index(calls, "jobs update drain"))
}

// A failed smoke test fails the rollout with no traffic moved and no job
// changed: the old revisions keep serving.
func TestRolloutStopsWhenTheSmokeTestFails(t *testing.T) {
	t.Parallel()
	calls, _, err := rollout(t, "FAKE_SMOKE_CODE=500")
	require.Error(t, err)
	require.NotEqual(t, -1, index(calls, "--no-traffic --tag=candidate"))
	require.Equal(t, -1, index(calls, "update-traffic"), "no traffic moves after a failed smoke test")
	require.Equal(t, -1, index(calls, "jobs update drain"))
}

// A build whose commit is no longer the head of the branch deploys nothing
// (not even the migration), marks itself superseded and succeeds.
func TestRolloutOfASupersededCommitDeploysNothing(t *testing.T) {
	t.Parallel()
	calls, superseded, err := rollout(t, "FAKE_HEAD=c3")
	require.NoError(t, err)
	require.True(t, superseded)
	require.Equal(t, []string{"git ls-remote --exit-code https://git.invalid/lexora.git refs/heads/main"}, calls)
}

// newest-commit: 0 for the head, 1 for an older commit, 2 when the head
// cannot be read; an empty commit (a work tree's build) is let through.
func TestNewestCommitComparesWithTheBranchHead(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@invalid"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "one")
	older := git("rev-parse", "HEAD")
	git("commit", "-q", "--allow-empty", "-m", "two")
	head := git("rev-parse", "HEAD")
	code := func(branch, commit string) int {
		err := exec.Command("../deploy/newest-commit", repo, branch, commit).Run()
		if err == nil {
			return 0
		}
		var exit *exec.ExitError
		require.ErrorAs(t, err, &exit)
		return exit.ExitCode()
	}
	require.Equal(t, 0, code("main", head))
	require.Equal(t, 1, code("main", older))
	require.Equal(t, 2, code("no-such-branch", head))
	require.Equal(t, 0, code("main", ""))
}

// SMOKE=false (an environment's first build) rolls out without the smoke
// test, and says so.
func TestRolloutWithoutSmokeTestOnlyWhenAsked(t *testing.T) {
	t.Parallel()
	calls, _, err := rollout(t, "SMOKE=false", "FAKE_SMOKE_CODE=500")
	require.NoError(t, err)
	require.Equal(t, -1, index(calls, "curl"))
	require.NotEqual(t, -1, index(calls, "update-traffic me"))
}

// deploy/rollback reads the image list where deploy/rollout wrote it: one
// release, one object, gs://<project>-build-source/releases/<release>/images.txt
// (cloudbuild.yaml gives rollout RELEASES_BUCKET=<project>-build-source).
func TestRollbackReadsTheReleaseRolloutRecorded(t *testing.T) {
	t.Parallel()
	const want = "gs://p-build-source/releases/0f1e2d3c-aaaa/images.txt"
	calls, _, err := rollout(t)
	require.NoError(t, err)
	record := index(calls, "gcloud storage cp")
	require.NotEqual(t, -1, record)
	require.True(t, strings.HasSuffix(calls[record], " "+want), "rollout records %q", calls[record])

	bin, log := fakeTools(t)
	cmd := exec.Command("../deploy/rollback", "0f1e2d3c-aaaa")
	cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CALLS="+log, "PROJECT=p", "REGION=europe-west1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	raw, err := os.ReadFile(log)
	require.NoError(t, err)
	back := strings.Split(strings.TrimSpace(string(raw)), "\n")
	read := index(back, "storage cp")
	require.NotEqual(t, -1, read)
	require.Contains(t, back[read], " "+want+" ", "rollback reads %q", back[read])
	require.NotEqual(t, -1, index(back, "update-traffic me --region=europe-west1 --to-revisions=me-r0f1e2d3c=100"))
}

// first-accounts identity leaves the smoke account's email verified, also
// when it signs the account up: signin.Resolve links a Lexora user only to
// a verified email, and an Identity Platform signUp leaves it unverified,
// so without the admin update the next build's smoke test gets 401 from Me.
func TestFirstAccountsVerifiesTheSmokeAccount(t *testing.T) {
	t.Parallel()
	for name, signUp := range map[string]string{"new": "0", "existing": "22"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			bin := t.TempDir()
			log := filepath.Join(bin, "calls.log")
			fakes := map[string]string{
				"gcloud": `echo "gcloud $*" >> "$CALLS"; [ "$1" = auth ] && echo access-token; cat >/dev/null 2>&1 || true`,
				"curl": `echo "curl $*" >> "$CALLS"
case "$*" in
*accounts:signUp*) [ "$SIGNUP_EXIT" = 0 ] || exit "$SIGNUP_EXIT"; printf '{\n  "localId": "uid-new"\n}\n' ;;
*accounts:lookup*) printf '{"users": [{"localId": "uid-old"}]}\n' ;;
esac`,
			}
			for n, body := range fakes {
				require.NoError(t, os.WriteFile(filepath.Join(bin, n), []byte("#!/usr/bin/env bash\n"+body+"\n"), 0o755))
			}
			cmd := exec.Command("../deploy/first-accounts", "identity")
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "CALLS="+log, "SIGNUP_EXIT="+signUp,
				"PROJECT=p", "REGION=europe-west1", "DOMAIN=app.lexora.test", "AUTH_API_KEY=key")
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "%s", out)
			raw, err := os.ReadFile(log)
			require.NoError(t, err)
			calls := strings.Split(strings.TrimSpace(string(raw)), "\n")
			update := index(calls, "accounts:update")
			require.NotEqual(t, -1, update, "no admin update: the smoke account's email stays unverified")
			require.Contains(t, calls[update], `"emailVerified":true`)
			uid := map[string]string{"new": "uid-new", "existing": "uid-old"}[name]
			require.Contains(t, calls[update], `"localId":"`+uid+`"`)
			require.Less(t, update, index(calls, "secrets versions add smoke-password"))
		})
	}
}
