package terraform_test

import (
	"cmp"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	SecretEnv      []string `yaml:"secretEnv"`
	WaitFor        []string `yaml:"waitFor"`
	AllowFailure   bool     `yaml:"allowFailure"`
	AllowExitCodes []int    `yaml:"allowExitCodes"`
}

func (s buildStep) script() string { return strings.Join(append(s.Env, s.Args...), "\n") }

type cloudBuild struct {
	Steps         []buildStep       `yaml:"steps"`
	Substitutions map[string]string `yaml:"substitutions"`
	Options       map[string]any    `yaml:"options"`
	Available     struct {
		SecretManager []struct {
			VersionName string `yaml:"versionName"`
			Env         string `yaml:"env"`
		} `yaml:"secretManager"`
	} `yaml:"availableSecrets"`
}

func readCloudBuild(t *testing.T) (cloudBuild, string) {
	t.Helper()
	raw, err := os.ReadFile("../cloudbuild.yaml")
	require.NoError(t, err)
	var cb cloudBuild
	require.NoError(t, yaml.Unmarshal(raw, &cb))
	return cb, string(raw)
}

// imageTools is what each image a step may run in ships, beyond the Debian
// base every one of them has (baseTools): from each image's own
// documentation and Dockerfile. golang:*-bookworm is buildpack-deps'
// bookworm-scm (curl, wget, git, no make) with Go in /usr/local/go;
// node:*-bookworm is the full buildpack-deps:bookworm (also make, gcc,
// python3) with Node and npm; Cloud SDK's slim image has gcloud, gsutil,
// curl and python3 (git is not counted on: a step that needs it installs it).
var imageTools = map[string][]string{
	"golang:1.26-bookworm": {"go", "gofmt", "git", "curl", "wget", "apt-get"},
	// HashiCorp's image: Alpine (busybox's sh and core utilities, which
	// cover baseTools' file and text commands), git, and /bin/terraform.
	"hashicorp/terraform:1.11.4":                    {"terraform", "git"},
	"node:20-bookworm":                              {"node", "npm", "npx", "git", "curl", "wget", "make", "gcc", "python3", "apt-get"},
	"gcr.io/google.com/cloudsdktool/cloud-sdk:slim": {"gcloud", "gsutil", "curl", "python3", "apt-get"},
}

// imageShell is the shell of the images that have no bash (the step's
// entrypoint); every other image runs its steps in bash.
var imageShell = map[string]string{"hashicorp/terraform:1.11.4": "sh"}

// baseTools are in every Debian bookworm image (essential packages and
// bash's builtins and keywords).
var baseTools = strings.Fields(`bash sh cat cp mv rm ln mkdir mktemp chmod tee touch test [ echo printf
	cd exit export set read true false grep sed awk cut tr head tail sort uniq xargs dirname basename
	date sleep env id pwd wc command local case esac for while until if then elif else fi do done
	return shift trap wait seq : continue break`)

// aptTools is what `apt-get install PACKAGE` adds, for the packages steps install.
var aptTools = map[string][]string{
	"postgresql-15": {"psql", "pg_ctlcluster", "pg_isready", "initdb"},
	"make":          {"make"},
	"git":           {"git"},
}

// repoScripts is what the repository's own entry points call, for those
// not parsed here (.ci/run runs make test, whose recipes call these).
var repoScripts = map[string][]string{
	".ci/run": {"go", "gofmt", "make", "git", "node", "npm", "npx", "psql", "pg_ctlcluster", "pg_isready", "apt-get"},
	// The previous release's tests: git worktree, go test, on PostgreSQL.
	".ci/compat-previous": {"go", "git", "psql", "pg_isready"},
	".ci/ensure-postgres": {"pg_isready", "pg_ctlcluster", "psql"},
	".ci/ensure-mailpit":  {"go"},
	// fmt, validate and test, with the provider built by go install.
	".ci/terraform-check": {"terraform", "go"},
}

var (
	commandSplit = regexp.MustCompile(`\|\||&&|[|;]|\$\$\(|\$\(|\bthen\b|\bdo\b|\belse\b|\{|\}|!`)
	assignment   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)
	braced       = regexp.MustCompile(`\$\$?\{[^}]*\}`)
	quoted       = regexp.MustCompile(`"[^"]*"|'[^']*'`)
	function     = regexp.MustCompile(`(?m)^\s*([a-z_]+)\(\) \{`)
	// deploy/* scripts call each other as "$here/NAME".
	sibling = regexp.MustCompile(`"\$here/([a-z-]+)"`)
)

// calledTools lists the programs a shell script calls: the first word of
// every simple command (after variable assignments), not counting comments,
// function definitions, case patterns and words that are expansions.
func calledTools(script string) []string {
	var tools []string
	for _, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") || strings.HasSuffix(line, "() {") {
			continue
		}
		for _, cmd := range commandSplit.Split(quoted.ReplaceAllString(braced.ReplaceAllString(line, "$$VAR"), "''"), -1) {
			words := strings.Fields(cmd)
			for len(words) > 0 && assignment.MatchString(words[0]) {
				words = words[1:]
			}
			if len(words) == 0 {
				continue
			}
			w := words[0]
			if strings.ContainsAny(w, `)"'$*<>=`) || strings.HasPrefix(w, "-") || w == "in" || w == "for" || w == "case" {
				continue
			}
			tools = append(tools, w)
		}
	}
	return tools
}

// missingTools answers which tools script calls that image does not ship,
// that no earlier apt-get install of the script adds, and (for the
// repository's scripts, deploy/* parsed recursively) that they need.
func missingTools(t *testing.T, image, script string) []string {
	t.Helper()
	have := map[string]bool{}
	for _, tool := range append(slices.Clone(baseTools), imageTools[image]...) {
		have[tool] = true
	}
	var missing []string
	var need func(script, where string)
	need = func(script, where string) {
		script = sibling.ReplaceAllString(script, "deploy/$1")
		for _, m := range function.FindAllStringSubmatch(script, -1) {
			have[m[1]] = true
		}
		for _, line := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
			f := strings.Fields(line)
			if len(f) > 2 && f[0] == "apt-get" && f[1] == "install" {
				for _, pkg := range f[2:] {
					for _, tool := range aptTools[pkg] {
						have[tool] = true
					}
				}
			}
			if len(f) == 3 && f[0] == "go" && f[1] == "install" && have["go"] {
				path, _, _ := strings.Cut(f[2], "@")
				have[filepath.Base(path)] = true
			}
			if strings.Contains(line, "ln -s /workspace/.toolchain/go /usr/local/go") {
				have["go"], have["gofmt"] = true, true
			}
			// The terraform-binary step's copy, on PATH in a later step.
			if strings.Contains(line, "export PATH=/workspace/.toolchain/bin:") {
				have["terraform"] = true
			}
			for _, tool := range calledTools(line) {
				switch {
				case have[tool]:
				case strings.HasPrefix(tool, "deploy/"):
					raw, err := os.ReadFile(filepath.Join("..", tool))
					require.NoError(t, err, "%s calls %s", where, tool)
					need(string(raw), tool)
				case repoScripts[tool] != nil:
					for _, sub := range repoScripts[tool] {
						if !have[sub] {
							missing = append(missing, tool+" needs "+sub)
						}
					}
				case strings.HasPrefix(tool, "/workspace/.toolchain/"):
				default:
					missing = append(missing, where+" calls "+tool)
				}
			}
		}
	}
	need(script, "the step")
	return missing
}

// Every step runs in an image that has what its commands call: a step that
// calls a tool its image lacks (make test's Node in the golang image, git in
// Cloud SDK's slim image without installing it) fails here, not in Cloud
// Build. deploy/* scripts are read and checked with the step that calls them.
func TestCloudBuildStepsRunInImagesThatHaveTheirTools(t *testing.T) {
	t.Parallel()
	cb, _ := readCloudBuild(t)
	for _, s := range cb.Steps {
		require.Contains(t, imageTools, s.Name, "step %s: image %s is not in imageTools; add what it ships", s.ID, s.Name)
		shell := cmp.Or(imageShell[s.Name], "bash")
		require.Equal(t, shell, s.Entrypoint, "step %s runs a %s script", s.ID, shell)
		require.Regexp(t, `^-[a-z]*e[a-z]*c$`, s.Args[0], "step %s runs under bash -e", s.ID)
		require.Empty(t, missingTools(t, s.Name, strings.Join(s.Args[1:], "\n")), "step %s (%s)", s.ID, s.Name)
	}
}

// The checker itself: the step main had (make test in the golang image)
// and a gcloud call in the golang image are refused; a tool installed by
// apt-get first is accepted.
func TestMissingToolsFindsAToolTheImageLacks(t *testing.T) {
	t.Parallel()
	require.Equal(t, []string{".ci/run needs make", ".ci/run needs node", ".ci/run needs npm", ".ci/run needs npx", ".ci/run needs psql", ".ci/run needs pg_ctlcluster", ".ci/run needs pg_isready"},
		missingTools(t, "golang:1.26-bookworm", "apt-get update -qq\n.ci/run"))
	require.Empty(t, missingTools(t, "golang:1.26-bookworm", "apt-get install -y -qq --no-install-recommends make\nmake build"))
	require.Equal(t, []string{"the step calls gcloud"}, missingTools(t, "golang:1.26-bookworm", "x=$$(gcloud run services list)"))
	require.Equal(t, []string{"the step calls make"}, missingTools(t, "golang:1.26-bookworm", "if [ -d x ]; then make build; fi"))
	require.Equal(t, []string{".ci/terraform-check needs terraform"}, missingTools(t, "golang:1.26-bookworm", "TERRAFORM_REQUIRED=1 .ci/terraform-check"),
		"the Go image has no terraform unless the terraform-binary step's copy is put on PATH")
	require.Empty(t, missingTools(t, "golang:1.26-bookworm", "export PATH=/workspace/.toolchain/bin:$$PATH\nTERRAFORM_REQUIRED=1 .ci/terraform-check"))
	require.Equal(t, []string{".ci/compat-previous needs psql", ".ci/compat-previous needs pg_isready"}, missingTools(t, "golang:1.26-bookworm", ".ci/compat-previous BASE"),
		"the previous release's tests need PostgreSQL installed first")
	require.Equal(t, []string{".ci/terraform-check needs go"}, missingTools(t, "hashicorp/terraform:1.11.4", ".ci/terraform-check"), "HashiCorp's image has no Go")
}

// The rollout's order: the toolchain, the tests, the images and the web
// bundle, then deploy/rollout (newest-commit check, migration, candidates,
// smoke test, traffic, jobs), then the web client. Steps run in sequence
// (no waitFor), so a failing step stops everything after it.
func TestCloudBuildTestsBuildsThenRollsOut(t *testing.T) {
	t.Parallel()
	cb, raw := readCloudBuild(t)
	ids := make([]string, len(cb.Steps))
	step := map[string]buildStep{}
	for i, s := range cb.Steps {
		ids[i] = s.ID
		step[s.ID] = s
		require.Empty(t, s.WaitFor, "step %s: waitFor would let it run out of order", s.ID)
		require.False(t, s.AllowFailure, "step %s: allowFailure would let the build go on after it fails", s.ID)
		require.Empty(t, s.AllowExitCodes, "step %s: allowExitCodes would let the build go on after it fails", s.ID)
	}
	require.Equal(t, []string{"toolchain", "test", "compat", "terraform-binary", "terraform", "build", "web-build", "rollout", "web-publish"}, ids)
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
	require.Contains(t, build, "./jobs/outboxctl", "outboxctl is shipped as an image (its Cloud Run Job)")

	require.Contains(t, step["rollout"].script(), "deploy/rollout /workspace/images.txt")
	require.Contains(t, step["rollout"].script(), "COMMIT=${COMMIT_SHA}")
	require.Equal(t, []string{"SMOKE_EMAIL", "SMOKE_PASSWORD"}, step["rollout"].SecretEnv)
	require.Contains(t, step["web-publish"].script(), "gs://${_WEB_BUCKET}")
	require.Contains(t, step["web-publish"].script(), "/workspace/superseded", "a superseded build publishes no web client")
	// The service worker last and never cached: published before index.html,
	// its precache could keep the old index.html under the new revision.
	publish := strings.Split(strings.TrimSpace(step["web-publish"].script()), "\n")
	require.Equal(t, []string{
		"gcloud storage cp frontend/dist/index.html gs://${_WEB_BUCKET}/index.html --cache-control='no-cache'",
		"gcloud storage cp frontend/dist/sw.js gs://${_WEB_BUCKET}/sw.js --cache-control='no-cache'",
	}, publish[len(publish)-2:])

	// Substitutions: every one used is declared (with a default) and every
	// declared one used; shell variables are escaped ($$) so that Cloud
	// Build does not take them for substitutions.
	used := map[string]bool{}
	for _, m := range regexp.MustCompile(`\$\{?(_[A-Z0-9_]+)`).FindAllStringSubmatch(raw, -1) {
		used[m[1]] = true
	}
	require.Equal(t, slices.Sorted(maps.Keys(cb.Substitutions)), slices.Sorted(maps.Keys(used)))
	for _, s := range cb.Steps {
		unescaped := regexp.MustCompile(`(^|[^$])\$[a-z(]`).FindString(strings.Join(s.Args, "\n"))
		require.Empty(t, unescaped, "step %s uses a shell variable or command substitution without $$", s.ID)
	}
	require.Equal(t, true, cb.Options["dynamicSubstitutions"])
	var secrets []string
	for _, s := range cb.Available.SecretManager {
		secrets = append(secrets, s.Env)
	}
	require.Equal(t, []string{"SMOKE_EMAIL", "SMOKE_PASSWORD"}, secrets)
}

// The previous release's tests run in Cloud Build on the new migrations:
// the compat step fetches that commit (a build's source has no history)
// and runs .ci/compat-previous as make test does, where a missing commit
// fails (COMPAT_REQUIRED) instead of printing SKIPPED.
func TestCloudBuildRunsThePreviousReleasesTests(t *testing.T) {
	t.Parallel()
	cb, _ := readCloudBuild(t)
	var compat buildStep
	for _, s := range cb.Steps {
		if s.ID == "compat" {
			compat = s
		}
	}
	require.Len(t, compat.Args, 2, "cloudbuild.yaml has a compat step running a bash script")
	script := strings.Split(strings.TrimSpace(compat.Args[1]), "\n")
	require.Equal(t, `git fetch -q --depth=1 "${_GIT_URL}" "$$(cat .ci/previous-release)"`, script[0], "the previous release is fetched first")
	makefile, err := os.ReadFile("../Makefile")
	require.NoError(t, err)
	made := regexp.MustCompile(`\.ci/compat-previous \$\$\(cat \.ci/previous-release\) \\\n\s*(.*)`).FindSubmatch(makefile)
	require.NotNil(t, made, "make test runs .ci/compat-previous")
	joined := strings.ReplaceAll(compat.Args[1], "\\\n", " ")
	require.Regexp(t, `COMPAT_REQUIRED=1 \S+ \.ci/compat-previous "\$\$\(cat \.ci/previous-release\)" +`+regexp.QuoteMeta(string(made[1])), joined,
		"the step runs the packages make test runs, and fails when the commit is missing")

	release, err := os.ReadFile("../.ci/previous-release")
	require.NoError(t, err)
	require.Regexp(t, `^[0-9a-f]{40}\n$`, string(release), "a full commit hash: git fetch takes no abbreviation")

	out, err := exec.Command("bash", "../.ci/compat-previous", strings.Repeat("0", 40)).CombinedOutput()
	require.NoError(t, err, "make test on a shallow clone: SKIPPED, %s", out)
	require.Contains(t, string(out), "SKIPPED")
	cmd := exec.Command("bash", "../.ci/compat-previous", strings.Repeat("0", 40))
	cmd.Env = append(os.Environ(), "COMPAT_REQUIRED=1")
	out, err = cmd.CombinedOutput()
	require.Error(t, err, "Cloud Build without the commit fails: %s", out)
}

// Terraform is checked in Cloud Build: HashiCorp's image of a pinned
// version that versions.tf admits gives the binary, and the Go image runs
// .ci/terraform-check with it on PATH, where no terraform fails the step
// (TERRAFORM_REQUIRED) instead of printing SKIPPED.
func TestCloudBuildChecksTerraform(t *testing.T) {
	t.Parallel()
	cb, _ := readCloudBuild(t)
	step := map[string]buildStep{}
	for _, s := range cb.Steps {
		step[s.ID] = s
	}
	image := regexp.MustCompile(`^hashicorp/terraform:(\d+)\.(\d+)\.(\d+)$`).FindStringSubmatch(step["terraform-binary"].Name)
	require.NotNil(t, image, "a pinned terraform version, not latest")
	versions, err := os.ReadFile("versions.tf")
	require.NoError(t, err)
	floor := regexp.MustCompile(`required_version = ">= (\d+)\.(\d+)"`).FindSubmatch(versions)
	require.NotNil(t, floor)
	major, minor := atoi(t, image[1]), atoi(t, image[2])
	require.True(t, major > atoi(t, string(floor[1])) || major == atoi(t, string(floor[1])) && minor >= atoi(t, string(floor[2])),
		"terraform %s is admitted by required_version >= %s.%s", step["terraform-binary"].Name, floor[1], floor[2])
	require.Contains(t, step["terraform-binary"].script(), "cp /bin/terraform /workspace/.toolchain/bin/terraform")
	require.Contains(t, step["terraform"].script(), "TERRAFORM_REQUIRED=1 .ci/terraform-check")

	// A PATH with only what the script needs before it looks for terraform.
	bin := t.TempDir()
	dirname, err := exec.LookPath("dirname")
	require.NoError(t, err)
	require.NoError(t, os.Symlink(dirname, filepath.Join(bin, "dirname")))
	cmd := exec.Command("bash", "../.ci/terraform-check")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir(), "TERRAFORM_REQUIRED=1"}
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "no terraform on PATH with TERRAFORM_REQUIRED fails: %s", out)
	require.NotContains(t, string(out), "SKIPPED")
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}

// The published web client signs in with Identity Platform: the build step
// sets every VITE_* setting frontend/src/config.ts reads (VITE_AUTH to
// firebase), from substitutions, and checks them before and the bundle
// after the build (deploy/check-web-settings).
func TestWebBuildSignsInWithIdentityPlatform(t *testing.T) {
	t.Parallel()
	cb, _ := readCloudBuild(t)
	var web buildStep
	for _, s := range cb.Steps {
		if s.ID == "web-build" {
			web = s
		}
	}
	config, err := os.ReadFile("../frontend/src/config.ts")
	require.NoError(t, err)
	read := regexp.MustCompile(`import\.meta\.env\.(VITE_[A-Z_]+)`).FindAllStringSubmatch(string(config), -1)
	require.NotEmpty(t, read)
	env := map[string]string{}
	for _, e := range web.Env {
		k, v, _ := strings.Cut(e, "=")
		env[k] = v
	}
	for _, m := range read {
		require.NotEmpty(t, env[m[1]], "the web build sets %s (frontend/src/config.ts reads it)", m[1])
		if m[1] != "VITE_AUTH" {
			require.Regexp(t, `^\$\{_[A-Z_]+\}$`, env[m[1]], "%s comes from a substitution", m[1])
		}
	}
	require.Equal(t, "firebase", env["VITE_AUTH"])
	script := strings.Split(strings.TrimSpace(web.Args[1]), "\n")
	require.Equal(t, "deploy/check-web-settings", script[0], "the settings are checked before npm ci")
	require.Equal(t, "deploy/check-web-settings frontend/dist", script[len(script)-1], "the bundle is checked after the build")
	require.Contains(t, script, "npm run build")
}

// deploy/check-web-settings refuses a build without Identity Platform's
// settings and a bundle that does not contain them.
func TestCheckWebSettingsRefusesTheDevelopmentSignIn(t *testing.T) {
	t.Parallel()
	env := []string{"PATH=" + os.Getenv("PATH"), "VITE_AUTH=firebase", "VITE_FIREBASE_API_KEY=AIzaKey", "VITE_FIREBASE_AUTH_DOMAIN=p.firebaseapp.com", "VITE_FIREBASE_PROJECT_ID=p"}
	check := func(env []string, args ...string) error {
		cmd := exec.Command("../deploy/check-web-settings", args...)
		cmd.Env = env
		return cmd.Run()
	}
	require.NoError(t, check(env))
	require.Error(t, check(append(slices.Clone(env), "VITE_AUTH=dev")), "VITE_AUTH=dev is the development sign-in")
	require.Error(t, check(append(slices.Clone(env), "VITE_FIREBASE_API_KEY=")), "an empty API key")

	dist := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dist, "assets"), 0o755))
	bundle := filepath.Join(dist, "assets", "index-abc123.js")
	require.NoError(t, os.WriteFile(bundle, []byte(`const c={apiKey:"AIzaKey",authDomain:"p.firebaseapp.com",projectId:"p"};`), 0o644))
	require.NoError(t, check(env, dist))
	require.NoError(t, os.WriteFile(bundle, []byte(`fetch("/dev/token")`), 0o644))
	require.Error(t, check(env, dist), "a bundle built without the settings")
}

// Every substitution cloudbuild.yaml declares that depends on the
// environment is in terraform's build_substitutions output, so a fork's or
// a private repository's _GIT_URL reaches the trigger; only _BRANCH and
// _SMOKE (the same everywhere, _SMOKE=false only for a first build) are
// left to their defaults.
func TestBuildSubstitutionsCoverCloudBuild(t *testing.T) {
	t.Parallel()
	cb, _ := readCloudBuild(t)
	raw, err := os.ReadFile("outputs.tf")
	require.NoError(t, err)
	block := regexp.MustCompile(`(?s)output "build_substitutions" \{(.*?)\n\}`).FindSubmatch(raw)
	require.NotNil(t, block, "outputs.tf has build_substitutions")
	for name := range cb.Substitutions {
		if name == "_BRANCH" || name == "_SMOKE" {
			continue
		}
		require.Regexp(t, `\n\s*`+name+`\s*=`, string(block[1]), "build_substitutions sets %s", name)
	}
}

// A step that installs Debian packages does so without prompts.
func TestAptStepsAreNoninteractive(t *testing.T) {
	t.Parallel()
	cb, _ := readCloudBuild(t)
	apt := 0
	for _, s := range cb.Steps {
		if strings.Contains(strings.Join(s.Args, "\n"), "apt-get install") {
			apt++
			require.Contains(t, s.Env, "DEBIAN_FRONTEND=noninteractive", "step %s runs apt-get install", s.ID)
		}
	}
	require.GreaterOrEqual(t, apt, 2, "the test and compat steps install PostgreSQL")
}

// .ci/ensure-postgres says where PostgreSQL is ready, not a database URL:
// the run it precedes may be given another -database-url.
func TestEnsurePostgresClaimsNoURL(t *testing.T) {
	t.Parallel()
	script, err := os.ReadFile("../.ci/ensure-postgres")
	require.NoError(t, err)
	for _, line := range strings.Split(string(script), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "log ") {
			require.NotContains(t, line, "://", "a message of .ci/ensure-postgres names a URL")
		}
	}
	require.Contains(t, string(script), `log "PostgreSQL ready at $HOST:$PORT`)
}
