package terraform_test

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The documentation says what the configuration does: the connection
// budget's table counts the public and operator functions functions.tf.json
// lists, its total is the sum of its rows, and the READMEs say prune runs
// hourly, as scheduler.tf schedules it.
func TestDocumentationAgreesWithTheConfiguration(t *testing.T) {
	t.Parallel()
	tf := readFunctionsTF(t)
	public := len(tf.Functions) - len(tf.OperatorFunctions) - len(tf.AuthoringFunctions)

	raw, err := os.ReadFile("README.md")
	require.NoError(t, err)
	readme := string(raw)
	// Each function service counts two revisions (the rollout's candidate
	// beside the serving one), and every job is a row, fit included.
	row := regexp.MustCompile(`\| (\d+) public functions \| 2 \| 4 instances each × 2 revisions \| (\d+) \|`).FindStringSubmatch(readme)
	require.NotNil(t, row, "terraform/README.md's connection budget has a row for the public functions, two revisions each")
	require.Equal(t, strconv.Itoa(public), row[1], "public functions in the connection budget")
	require.Equal(t, strconv.Itoa(public*4*2*2), row[2])
	authoring := regexp.MustCompile(`\| (\d+) authoring functions \| 2 \| 1 instance each × 2 revisions \| (\d+) \|`).FindStringSubmatch(readme)
	require.NotNil(t, authoring, "terraform/README.md's connection budget has a row for the authoring functions")
	require.Equal(t, strconv.Itoa(len(tf.AuthoringFunctions)), authoring[1])
	require.Equal(t, strconv.Itoa(len(tf.AuthoringFunctions)*2*2), authoring[2])
	op := regexp.MustCompile(`\| (\d+) operator functions \| 2 \| 1 instance each × 2 revisions \| (\d+) \|`).FindStringSubmatch(readme)
	require.NotNil(t, op)
	require.Equal(t, strconv.Itoa(len(tf.OperatorFunctions)), op[1])
	require.Equal(t, strconv.Itoa(len(tf.OperatorFunctions)*2*2), op[2])
	for _, job := range []string{"drain", "prune", "fit", "migrate", "outboxctl"} {
		require.Regexp(t, `\n\| `+job+` \|`, readme, "the connection budget has a row for the %s job", job)
	}

	// The total row is the sum of the rows above it (seed, demo only, aside).
	_, table, ok := strings.Cut(readme, "| workload | per process | processes at most | connections |")
	require.True(t, ok)
	table, _, _ = strings.Cut(table, "\n\n")
	sum := 0
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || strings.Contains(line, "total") || strings.Contains(line, "demo only") {
			continue
		}
		if n, err := strconv.Atoi(strings.TrimSpace(cells[4])); err == nil {
			sum += n
		}
	}
	total := regexp.MustCompile(`\*\*total\*\* \| \| \| \*\*(\d+) ≤ (\d+) − (\d+) = (\d+)\*\*`).FindStringSubmatch(table)
	require.NotNil(t, total, "the table ends with its total")
	require.Equal(t, strconv.Itoa(sum), total[1], "the total is the sum of the rows")
	vars, err := os.ReadFile("variables.tf")
	require.NoError(t, err)
	limit := regexp.MustCompile(`(?s)variable "sql_max_connections" \{.*?default\s*= (\d+)`).FindSubmatch(vars)
	require.NotNil(t, limit)
	require.Equal(t, string(limit[1]), total[2], "the total is against sql_max_connections' default")
	n, _ := strconv.Atoi(total[1])
	max, _ := strconv.Atoi(total[4])
	require.LessOrEqual(t, n, max, "the defaults fit the budget")

	sched, err := os.ReadFile("scheduler.tf")
	require.NoError(t, err)
	require.Contains(t, string(sched), `prune = { schedule = "17 * * * *"`, "prune runs hourly")
	top, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	require.NotRegexp(t, `prune.{0,40}daily`, string(top), "the README says prune runs hourly")
	require.Contains(t, string(top), "`prune`\nhourly")
}

// The README's first build runs in the order it can: init before an
// import, the OAuth consent screen (Branding) before the Google provider's
// OAuth client, and no gcloud grant that Terraform makes
// (serviceAccountUser on cloudbuild@ is google_service_account_iam_member.submits_as_build).
func TestFirstBuildStepsAreInOrder(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../README.md")
	require.NoError(t, err)
	readme := string(raw)
	_, first, ok := strings.Cut(readme, "### A new environment from nothing")
	require.True(t, ok)
	first, _, _ = strings.Cut(first, "### Rolling back")
	at := func(s string) int {
		i := strings.Index(first, s)
		require.GreaterOrEqual(t, i, 0, "the first build's section says %q", s)
		return i
	}
	require.Less(t, at("terraform init"), at("terraform import"), "terraform import needs terraform init and the tfvars")
	require.Less(t, at("cat > $PROJECT.tfvars"), at("terraform import"))
	require.Less(t, at("Branding"), at("add the provider Google"), "the consent screen before the OAuth client")
	require.NotContains(t, first, "add-iam-policy-binding cloudbuild@", "Terraform grants serviceAccountUser on the build account")
	require.Contains(t, first, "git_url")
	iam, err := os.ReadFile("iam.tf")
	require.NoError(t, err)
	require.Contains(t, string(iam), `resource "google_service_account_iam_member" "submits_as_build"`)

	script, err := os.ReadFile("../deploy/first-accounts")
	require.NoError(t, err)
	require.NotContains(t, string(script), "provision script", "the provision script is gone: the migrate job makes the roles")
}
