package terraform_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// anchor is the anchor GitHub gives a Markdown heading: lower case, spaces
// to hyphens, everything but letters, digits, hyphens and underscores
// dropped.
func anchor(heading string) string {
	a := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(heading)), " ", "-")
	return regexp.MustCompile(`[^a-z0-9_-]`).ReplaceAllString(a, "")
}

// alertRunbook reads local.alert_runbook (alert => runbook anchor) from
// monitoring.tf.
func alertRunbook(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile("monitoring.tf")
	require.NoError(t, err)
	block := regexp.MustCompile(`(?s)alert_runbook = \{(.*?)\n  \}`).FindSubmatch(raw)
	require.NotNil(t, block, "monitoring.tf has local.alert_runbook")
	m := map[string]string{}
	for _, kv := range regexp.MustCompile(`(\w+)\s*=\s*"([^"]+)"`).FindAllSubmatch(block[1], -1) {
		m[string(kv[1])] = string(kv[2])
	}
	require.NotEmpty(t, m)
	return m
}

// Every alert policy's documentation links to its runbook section, every
// alert has a section in docs/runbook.md, and every section under
// "## Alerts" names an alert (its `key`) that exists.
func TestEveryAlertHasARunbookSection(t *testing.T) {
	t.Parallel()
	alerts := alertRunbook(t)

	// Every alert policy resource uses local.runbook_link, and every key it
	// can use is in the map: the for_each keys of each policy resource.
	files, err := filepath.Glob("*.tf")
	require.NoError(t, err)
	policies := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, block := range regexp.MustCompile(`(?s)resource "google_monitoring_alert_policy" "(\w+)" \{(.*?)\n\}`).FindAllStringSubmatch(string(raw), -1) {
			policies++
			require.Contains(t, block[2], "local.runbook_link[", "%s: alert policy %s's documentation links to its runbook section", f, block[1])
			require.Contains(t, block[2], "notification_channels = local.notification_channels", "%s: alert policy %s notifies the on-call channels", f, block[1])
		}
	}
	require.GreaterOrEqual(t, policies, 7)

	raw, err := os.ReadFile("../docs/runbook.md")
	require.NoError(t, err)
	doc := string(raw)
	_, alertsPart, ok := strings.Cut(doc, "\n## Alerts\n")
	require.True(t, ok, "docs/runbook.md has an Alerts part")
	sections := map[string]string{}
	for _, s := range strings.Split(alertsPart, "\n### ")[1:] {
		heading, body, _ := strings.Cut(s, "\n")
		sections[anchor(heading)] = body
	}
	for key, a := range alerts {
		body, ok := sections[a]
		require.True(t, ok, "alert %s: docs/runbook.md has no section #%s", key, a)
		require.Contains(t, body, "(`"+key+"`)", "section #%s names its alert %s", a, key)
		for _, part := range []string{"**Means**", "**Confirm**", "**Do**"} {
			require.Contains(t, body, part, "section #%s says %s", a, part)
		}
	}
	anchors := slices.Collect(func(yield func(string) bool) {
		for _, a := range alerts {
			if !yield(a) {
				return
			}
		}
	})
	for a, body := range sections {
		require.Contains(t, anchors, a, "runbook section #%s is for no alert", a)
		key := regexp.MustCompile("\\(`(\\w+)`\\)").FindStringSubmatch(body)
		require.NotNil(t, key, "section #%s names its alert", a)
		require.Equal(t, a, alerts[key[1]], "section #%s names alert %s, whose section it is", a, key[1])
	}
	// Links inside the runbook point at sections that exist.
	for _, l := range regexp.MustCompile(`\]\(#([a-z0-9-]+)\)`).FindAllStringSubmatch(doc, -1) {
		require.Contains(t, sections, l[1], "link #%s", l[1])
	}
}

// customRolePermissions reads the permissions of the custom role roleID
// from the .tf files.
func customRolePermissions(t *testing.T, roleID string) []string {
	t.Helper()
	files, err := filepath.Glob("*.tf")
	require.NoError(t, err)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		m := regexp.MustCompile(`(?s)role_id\s*= "` + roleID + `".*?permissions = \[(.*?)\]`).FindSubmatch(raw)
		if m != nil {
			var perms []string
			for _, p := range regexp.MustCompile(`"([a-z.A-Z]+)"`).FindAllSubmatch(m[1], -1) {
				perms = append(perms, string(p[1]))
			}
			return perms
		}
	}
	t.Fatalf("no custom role %s", roleID)
	return nil
}

// Every command docs/runbook.md tells the on-call engineer to run is allowed
// by what Terraform grants the on-call group (var.operators), or is said to
// be someone else's: deploy/rollback is var.deployers', psql the platform
// team's. The table names each command's permission and the role that
// grants it; a command the table lacks fails, so a new runbook command
// needs its grant.
func TestRunbookCommandsArePermitted(t *testing.T) {
	t.Parallel()
	// The predefined roles the on-call group gets (iam.tf operator_reads,
	// registry.tf releases_reader), with the permissions the runbook uses.
	predefined := map[string][]string{
		"roles/logging.viewer":           {"logging.logEntries.list"},
		"roles/monitoring.viewer":        {"monitoring.timeSeries.list"},
		"roles/cloudbuild.builds.viewer": {"cloudbuild.builds.get", "cloudbuild.builds.list"},
		"roles/storage.objectViewer":     {"storage.objects.get", "storage.objects.list"},
	}
	iam, err := os.ReadFile("iam.tf")
	require.NoError(t, err)
	registry, err := os.ReadFile("registry.tf")
	require.NoError(t, err)
	operatorReads := regexp.MustCompile(`(?s)resource "google_project_iam_member" "operator_reads" \{.*?setproduct\(var\.operators, \[(.*?)\]\)`).FindSubmatch(iam)
	require.NotNil(t, operatorReads)
	require.Regexp(t, `(?s)resource "google_project_iam_member" "on_call" \{\s*for_each = toset\(var\.operators\).*?role\s*= google_project_iam_custom_role\.on_call\.name`, string(iam))
	require.Regexp(t, `(?s)resource "google_storage_bucket_iam_member" "releases_reader" \{\s*for_each = toset\(distinct\(concat\(var\.operators, var\.deployers\)\)\).*?roles/storage\.objectViewer`, string(registry))
	granted := map[string]string{}
	for _, r := range regexp.MustCompile(`"(roles/[a-zA-Z.]+)"`).FindAllSubmatch(operatorReads[1], -1) {
		for _, p := range predefined[string(r[1])] {
			granted[p] = string(r[1])
		}
	}
	for _, p := range predefined["roles/storage.objectViewer"] {
		granted[p] = "roles/storage.objectViewer"
	}
	for _, p := range customRolePermissions(t, "lexoraOnCall") {
		granted[p] = "lexoraOnCall"
	}
	// lexoraJobOperator is bound per job: only on these.
	jobsTF, err := os.ReadFile("jobs.tf")
	require.NoError(t, err)
	require.Contains(t, string(jobsTF), `setproduct(["drain", "prune", "fit", "outboxctl"], var.operators)`)
	jobOperator := customRolePermissions(t, "lexoraJobOperator")

	commands := []struct {
		prefix, permission string
		jobs               bool // granted per job, by lexoraJobOperator
	}{
		{"gcloud logging read", "logging.logEntries.list", false},
		{"gcloud scheduler jobs describe", "cloudscheduler.jobs.get", false},
		{"gcloud scheduler jobs resume", "cloudscheduler.jobs.enable", false},
		{"gcloud run jobs executions list", "run.executions.list", false},
		{"gcloud run jobs execute drain", "run.jobs.runWithOverrides", true},
		{"gcloud run jobs execute prune", "run.jobs.runWithOverrides", true},
		{"gcloud run jobs execute fit", "run.jobs.runWithOverrides", true},
		{"gcloud run jobs execute outboxctl", "run.jobs.runWithOverrides", true},
		{"gcloud builds list", "cloudbuild.builds.list", false},
		{"gcloud builds log", "cloudbuild.builds.get", false},
		{"gcloud storage ls gs://$PROJECT-build-source/releases/", "storage.objects.list", false},
		{"gcloud compute ssl-certificates describe", "compute.sslCertificates.get", false},
		{"gcloud config get account", "", false}, // local
	}
	raw, err := os.ReadFile("../docs/runbook.md")
	require.NoError(t, err)
	doc := string(raw)
	for _, c := range commands {
		if c.permission == "" {
			continue
		}
		if c.jobs {
			require.Contains(t, jobOperator, c.permission, "%s: lexoraJobOperator has %s", c.prefix, c.permission)
			continue
		}
		require.Contains(t, granted, c.permission, "%s needs %s, which Terraform does not grant the on-call group", c.prefix, c.permission)
	}
	uses := regexp.MustCompile(`gcloud [^`+"`"+`\n]*`).FindAllString(doc, -1)
	require.GreaterOrEqual(t, len(uses), 10)
	for _, use := range uses {
		known := false
		for _, c := range commands {
			known = known || strings.HasPrefix(use, c.prefix) || strings.HasPrefix(c.prefix, strings.TrimSuffix(use, " ..."))
		}
		require.True(t, known, "docs/runbook.md runs %q: add it to this table with its permission, and grant it", use)
	}
	// Who rolls back and who runs SQL is said, and it is not the on-call
	// group by default.
	require.Regexp(t, "`deployers`[^.]*roll(s)? back", doc)
	require.Contains(t, doc, "Cloud SQL Auth Proxy")
	require.NotRegexp(t, `in Cloud SQL Studio`, doc, "the instance denies the Data API: Cloud SQL Studio does not work")
}
