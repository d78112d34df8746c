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
