package events

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
)

// goldenLines returns the lines of testdata/name that are neither blank nor
// comments, and, when marker is not empty, the index of the first line after
// the comment line marker (len(lines) when the marker ends the file).
func goldenLines(t *testing.T, name, marker string) (lines []string, afterMarker int) {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	afterMarker = -1
	for line := range strings.Lines(string(text)) {
		line = strings.TrimSpace(line)
		switch {
		case marker != "" && line == marker:
			afterMarker = len(lines)
		case line != "" && !strings.HasPrefix(line, "#"):
			lines = append(lines, line)
		}
	}
	if marker != "" {
		require.NotEqual(t, -1, afterMarker, "testdata/%s has lost its marker line %q", name, marker)
	}
	return lines, afterMarker
}

// TestSubscriberNamesNeverChange: every subscriber name of
// testdata/subscribers.golden (the last release's, then those added since)
// is still a subscriber of Subscriptions, and every subscriber is listed.
func TestSubscriberNamesNeverChange(t *testing.T) {
	t.Parallel()
	golden, _ := goldenLines(t, "subscribers.golden", "")
	var names []string
	for _, s := range Subscriptions {
		if !slices.Contains(names, s.Subscriber) {
			names = append(names, s.Subscriber)
		}
	}
	for _, name := range golden {
		require.Contains(t, names, name, "subscriber %q is gone from Subscriptions: a subscriber name keys its delivery rows "+
			"and dedup records, so a renamed one never gets the deliveries queued under the old name and redoes effects "+
			"the old name recorded; keep the name (see docs/architecture.md, Adding a subscriber)", name)
	}
	for _, name := range names {
		require.Contains(t, golden, name, "subscriber %q is new: append it to testdata/subscribers.golden "+
			"(the file is append-only: its names never change)", name)
	}
}

// addedMarker separates, in testdata/subscriptions.golden, the last
// release's subscriptions from those added since, which must each say how
// the events already queued reach them.
const addedMarker = "# added after 1b8d175"

// goldenSubscription is one line of testdata/subscriptions.golden:
// "topic subscriber [ordered] [migration=<file>|new-topic]".
type goldenSubscription struct {
	sub       outbox.Subscription
	migration string
	newTopic  bool
}

func parseGoldenSubscription(t *testing.T, line string) goldenSubscription {
	t.Helper()
	fields := strings.Fields(line)
	require.GreaterOrEqual(t, len(fields), 2, "subscriptions.golden: %q needs a topic and a subscriber", line)
	g := goldenSubscription{sub: outbox.Subscription{Topic: fields[0], Subscriber: fields[1]}}
	for _, f := range fields[2:] {
		migration, isMigration := strings.CutPrefix(f, "migration=")
		switch {
		case f == "ordered":
			g.sub.Ordered = true
		case f == "new-topic":
			g.newTopic = true
		case isMigration && migration != "":
			g.migration = migration
		default:
			t.Fatalf("subscriptions.golden: %q: unknown field %q (ordered, new-topic or migration=<file in schema/>)", line, f)
		}
	}
	return g
}

func (g goldenSubscription) String() string {
	s := g.sub.Topic + " " + g.sub.Subscriber
	if g.sub.Ordered {
		s += " ordered"
	}
	return s
}

// TestNewSubscriptionsNameTheirMigration: Subscriptions and
// testdata/subscriptions.golden hold the same subscriptions. Deliveries are
// made when an event is enqueued (outbox.Enqueue: one row per subscriber of
// its topic, with the subscription's ordering), so a subscription added to a
// topic that already has events misses those already queued, one removed
// leaves its queued deliveries pending for no handler, and a changed
// Ordered is not seen by the deliveries already made; each needs a
// migration. A line added after the last release names it, or says that its
// topic is new.
func TestNewSubscriptionsNameTheirMigration(t *testing.T) {
	t.Parallel()
	lines, added := goldenLines(t, "subscriptions.golden", addedMarker)
	var golden []goldenSubscription
	topics := map[string]bool{} // topics that had events, of the lines before the one at hand
	for i, line := range lines {
		g := parseGoldenSubscription(t, line)
		if i >= added {
			require.True(t, g.migration != "" || g.newTopic, "subscriptions.golden: %q was added after the last release: "+
				"append migration=<file> (the migration of schema/ that gives the events of %s already queued their %s "+
				"delivery; model: schema/00016_reminder_chain_subscriber.sql), or new-topic if %s had no events before", line,
				g.sub.Topic, g.sub.Subscriber, g.sub.Topic)
		}
		if g.newTopic {
			require.False(t, topics[g.sub.Topic], "subscriptions.golden: %q says new-topic, but %s has subscriptions above: "+
				"its queued events need a migration (migration=<file>)", line, g.sub.Topic)
		}
		if g.migration != "" {
			sql, err := os.ReadFile(filepath.Join("..", "..", "schema", g.migration))
			require.NoError(t, err, "subscriptions.golden: %q names a migration that is not in schema/", line)
			require.Contains(t, string(sql), "'"+g.sub.Subscriber+"'", "subscriptions.golden: %q: the migration does not "+
				"mention the subscriber", line)
		}
		// A topic new since the release may have several subscribers, each
		// line new-topic; a released topic, or one an added line gave a
		// migration, had events before.
		if i < added || !g.newTopic {
			topics[g.sub.Topic] = true
		}
		golden = append(golden, g)
	}

	for _, g := range golden {
		i := slices.IndexFunc(Subscriptions, func(s outbox.Subscription) bool {
			return s.Topic == g.sub.Topic && s.Subscriber == g.sub.Subscriber
		})
		require.NotEqual(t, -1, i, "subscription %s -> %s is gone from Subscriptions: its deliveries already queued stay "+
			"pending for no handler, and their events are never pruned; a migration must delete them before its line "+
			"leaves testdata/subscriptions.golden", g.sub.Topic, g.sub.Subscriber)
		require.Equal(t, g.sub.Ordered, Subscriptions[i].Ordered, "subscription %s -> %s changed Ordered: each delivery "+
			"copies it when its event is enqueued (outbox_deliveries.ordered), so the deliveries already queued keep the "+
			"old one unless a migration updates them; then change its line in testdata/subscriptions.golden",
			g.sub.Topic, g.sub.Subscriber)
	}
	for _, s := range Subscriptions {
		if slices.ContainsFunc(golden, func(g goldenSubscription) bool {
			return g.sub.Topic == s.Topic && g.sub.Subscriber == s.Subscriber
		}) {
			continue
		}
		line := goldenSubscription{sub: s}.String()
		if !topics[s.Topic] {
			require.Fail(t, "new subscription", "%s -> %s is new, on a new topic: append %q to testdata/subscriptions.golden",
				s.Topic, s.Subscriber, line+" new-topic")
			continue
		}
		require.Fail(t, "new subscriber on a topic that has events", "%s -> %s is new, but %s already has "+
			"events: deliveries are made when an event is enqueued, so the events of %s already in the outbox (delayed "+
			"ones wait for days) never reach %s. Write a migration that gives them their %s delivery (model: "+
			"schema/00016_reminder_chain_subscriber.sql), then append %q to testdata/subscriptions.golden.",
			s.Topic, s.Subscriber, s.Topic, s.Topic, s.Subscriber, s.Subscriber, line+" migration=<file>")
	}
}
