package events

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
)

func TestDecodeChecksTheTopic(t *testing.T) {
	t.Parallel()
	ev, err := New("learner-1", CardLeechedPayload{Lemma: "run", Lapses: 8})
	require.NoError(t, err)
	require.Equal(t, CardLeeched, ev.Topic)
	require.Equal(t, "learner-1", ev.OrderingKey)

	p, err := Decode[CardLeechedPayload](ev)
	require.NoError(t, err)
	require.Equal(t, CardLeechedPayload{Lemma: "run", Lapses: 8}, p)

	_, err = Decode[StreakExtendedPayload](ev)
	require.ErrorIs(t, err, ErrWrongTopic)
	require.ErrorContains(t, err, "decode card.leeched payload as events.StreakExtendedPayload (the payload of streak.extended)")

	ev.Payload = json.RawMessage(`{"lapses": "eight"}`)
	p, err = Decode[CardLeechedPayload](ev)
	require.ErrorContains(t, err, "decode card.leeched payload: json: cannot unmarshal string")
	require.Zero(t, p, "a payload that does not decode gives no partial value")
}

// decodeAs is Decode with its value as any, for the table of stored
// payloads.
func decodeAs[T Payload](ev outbox.Event) (any, error) { return Decode[T](ev) }

// storedPayloads is what each sample in testdata/payloads (see its
// README.md) must decode to with today's types: a field renamed, retyped
// or dropped in a payload struct fails here.
var storedPayloads = []struct {
	file   string
	decode func(outbox.Event) (any, error)
	want   any
}{
	{"assignment.created/1b8d175.json", decodeAs[AssignmentCreatedPayload], AssignmentCreatedPayload{
		Assignment: Assignment{AssignmentID: id("f3e0b737-3ab0-40e0-9f83-982f76cd25cf"),
			DeckID: id("74891687-f776-45fb-9bfc-52d56cc7067a"), LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"),
			TeacherID: id("00000000-0000-4000-8000-00000000000a"), DueAt: at("2026-12-04T21:23:06Z")},
		Cards: 25}},
	{"assignment.completed/1b8d175.json", decodeAs[AssignmentCompletedPayload], AssignmentCompletedPayload{
		Assignment: Assignment{AssignmentID: id("f3e0b737-3ab0-40e0-9f83-982f76cd25cf"),
			DeckID: id("74891687-f776-45fb-9bfc-52d56cc7067a"), LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"),
			TeacherID: id("00000000-0000-4000-8000-00000000000a"), DueAt: at("2026-12-04T21:23:06Z")},
		CompletedAt: at("2026-12-01T21:23:06.624912Z")}},
	{"review.submitted/1b8d175.json", decodeAs[ReviewSubmittedPayload], ReviewSubmittedPayload{
		Review: Review{ReviewID: 25, CardID: id("f2d67bc2-a920-4e36-bda2-e5cd4802c779"),
			LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"), LexemeID: id("2868530a-df27-42f3-a614-5753f0e87763"),
			Rating: 4, StateBefore: 0, StateAfter: 2, ReviewedAt: at("2026-12-01T21:23:06.624912Z"), StudyDay: "2026-12-01"},
		Due: at("2026-12-08T21:23:06.624912Z"), AssignmentIDs: []uuid.UUID{id("f3e0b737-3ab0-40e0-9f83-982f76cd25cf")}}},
	{"review.submitted/92cf483.json", decodeAs[ReviewSubmittedPayload], ReviewSubmittedPayload{
		Review: Review{ReviewID: 12, CardID: id("5b0e4f43-2d0c-4b8e-9c55-0b8f3a7d1e26"),
			LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"), LexemeID: id("2868530a-df27-42f3-a614-5753f0e87763"),
			Rating: 3, StateBefore: 1, StateAfter: 2, ReviewedAt: at("2026-11-30T02:30:00.123456Z"), StudyDay: "2026-11-29"},
		Due: at("2026-12-03T02:30:00.123456Z"), AssignmentIDs: []uuid.UUID{id("f3e0b737-3ab0-40e0-9f83-982f76cd25cf")}}},
	{"review.undone/1b8d175.json", decodeAs[ReviewUndonePayload], ReviewUndonePayload{
		Review: Review{ReviewID: 1, CardID: id("424ebafb-ebc4-43f6-b8d6-d169426d0b23"),
			LearnerID: id("7c4c3687-bb14-4355-882f-d1f74668ba56"), LexemeID: id("3dfc684d-681c-4d3e-9e9a-c00b60f118ac"),
			Rating: 4, StateBefore: 0, StateAfter: 2, ReviewedAt: at("2026-03-02T09:00:00Z"), StudyDay: "2026-03-02"},
		UndoneAt: at("2026-03-02T09:00:00Z"), AssignmentIDs: []uuid.UUID{id("1a91dd4d-9920-4a7d-b8a5-187e4b5845cb")},
		LaterAssignmentIDs: []uuid.UUID{}}},
	{"streak.extended/1b8d175.json", decodeAs[StreakExtendedPayload], StreakExtendedPayload{
		LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"), Day: "2026-12-01", Current: 1, Longest: 1}},
	{"achievement.earned/1b8d175.json", decodeAs[AchievementEarnedPayload], AchievementEarnedPayload{
		LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"), Code: AchievementFirstReview,
		EarnedAt: at("2026-12-01T21:23:06.164042Z")}},
	{"achievement.earned/1b8d175-assignment.json", decodeAs[AchievementEarnedPayload], AchievementEarnedPayload{
		LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"), Code: AchievementFinishedEarly,
		EarnedAt: at("2026-12-01T21:23:06.624912Z"), AssignmentID: new(id("f3e0b737-3ab0-40e0-9f83-982f76cd25cf"))}},
	{"reminder.due_soon/1b8d175.json", decodeAs[ReminderDueSoonPayload], ReminderDueSoonPayload{
		AssignmentID: id("f3e0b737-3ab0-40e0-9f83-982f76cd25cf"), LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"),
		DueAt: at("2026-12-04T21:23:06Z")}},
	{"card.leeched/1b8d175.json", decodeAs[CardLeechedPayload], CardLeechedPayload{
		CardID: id("bf037d28-6808-4985-9318-00cfc1321624"), LearnerID: id("15ce3588-f3ec-428c-bd1b-75cb51d0113f"),
		Lemma: "run", Lapses: 8}},
	{"learner.enrolled/1b8d175.json", decodeAs[LearnerEnrolledPayload], LearnerEnrolledPayload{
		ClassLearner: ClassLearner{ClassID: id("e69192b3-8307-432b-ab2a-bc85bb5e7e23"),
			LearnerID: id("99601212-3ed9-4379-88e7-62236ae47e94"), TeacherID: id("c942aaa0-eb2c-465b-8d1d-1a109952310e")},
		Assignments: []uuid.UUID{id("13cb905e-e895-49ec-a676-e7410764efe1")}, By: "teacher"}},
	{"learner.invited/1b8d175.json", decodeAs[LearnerInvitedPayload], LearnerInvitedPayload{
		ClassLearner: ClassLearner{ClassID: id("75383f08-cb2e-489a-beab-23cfefb439f6"),
			LearnerID: id("fa94b91f-130a-475d-bcbe-c5cf0d781d91"), TeacherID: id("79e3547c-e1ef-4b69-b2f4-4ac762c6a4b9")}}},
	{"reminder.daily/1b8d175.json", decodeAs[ReminderDailyPayload], ReminderDailyPayload{
		LearnerID: id("ec8c6905-183d-57da-ade1-3b5850c4ae77"), At: at("2026-03-03T18:00:00+09:00")}},
	{"deck.created/97b1289.json", decodeAs[DeckCreatedPayload], DeckCreatedPayload{
		DeckID: id("8dbccb36-3f24-4de6-b811-1558dc6b4cdc"), TeacherID: id("b817b3fd-2053-4d22-8a91-a744ab0db37d"),
		Title: "Unit 3", Entries: 2}},
	{"deck.created/97b1289-copy.json", decodeAs[DeckCreatedPayload], DeckCreatedPayload{
		DeckID: id("7a9d5860-886d-4eff-84ec-e6b42dbb4282"), TeacherID: id("b817b3fd-2053-4d22-8a91-a744ab0db37d"),
		Title: "Core English 01 (copy)", Entries: 2, CopiedFrom: new(id("c825a517-282b-4f3d-8990-eb61b2a6d8fe"))}},
	{"deck.entries_changed/97b1289.json", decodeAs[DeckEntriesChangedPayload], DeckEntriesChangedPayload{
		DeckID: id("8dbccb36-3f24-4de6-b811-1558dc6b4cdc"), TeacherID: id("b817b3fd-2053-4d22-8a91-a744ab0db37d"),
		Title: "Unit 3", Added: 1, Changed: 1, Removed: 1, Entries: 2, CardsCreated: 2, Assignments: []DeckAssignmentChange{
			{AssignmentID: id("49187580-9f2d-4666-9fa4-f4018e2b47e7"), LearnerID: id("0a9bbb53-e5cf-49cc-b52d-f304e363c77c")},
			{AssignmentID: id("d4669a55-baf3-4e34-a3bc-4c4ba56cf434"), LearnerID: id("ac4e31f7-0360-4b0b-9cf2-44e5a5a649f9")}}}},
	{"learner.parameters_changed/283d4b4.json", decodeAs[LearnerParametersChangedPayload], LearnerParametersChangedPayload{
		LearnerID: id("0630e0b9-df94-471d-beb8-1a92e189914b"), TeacherIDs: []uuid.UUID{id("00000000-0000-4000-8000-00000000000a")},
		FitID: 3, ParametersID: 2, PreviousParametersID: ptr(int64(1)), Reviews: 1840, LogLoss: 0.3012, RMSEBins: 0.0413,
		PreviousLogLoss: 0.3321, PreviousRMSEBins: 0.0688, OptimizerVersion: "fsrs-rs-6.5/1",
		FittedAt: at("2026-12-01T22:40:00.123456Z")}},
	{"deck.retention_changed/5468d83.json", decodeAs[DeckRetentionChangedPayload], DeckRetentionChangedPayload{
		ClassID: id("3f0c2a7e-5b8d-4c1e-9a6f-2d4b7e8c1a90"), DeckID: id("8dbccb36-3f24-4de6-b811-1558dc6b4cdc"),
		TeacherID: id("b817b3fd-2053-4d22-8a91-a744ab0db37d"), DesiredRetention: 0.85, PreviousRetention: 0.9}},
}

func id(s string) uuid.UUID { return uuid.MustParse(s) }

func ptr[T any](v T) *T { return &v }

// at parses an RFC 3339 instant as the JSON decoder does, keeping its offset.
func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		panic(err)
	}
	return t
}

// TestStoredPayloadsDecode: every payload shape a release stored (one file
// each in testdata/payloads/<topic>/) still decodes, with Decode and
// today's type of its topic, to the values it holds. A sample is never
// regenerated from today's types (see testdata/payloads/README.md).
func TestStoredPayloadsDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range storedPayloads {
		t.Run(tc.file, func(t *testing.T) {
			t.Parallel()
			raw, err := os.ReadFile(filepath.Join("testdata", "payloads", tc.file))
			require.NoError(t, err)
			got, err := tc.decode(outbox.Event{Topic: filepath.Dir(tc.file), Payload: raw})
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

// TestEveryTopicHasAStoredPayload: each routed topic has a sample of its
// stored payload, each sample's topic is still routed (a topic renamed or
// dropped would leave its stored events undeliverable), and each sample is
// checked by TestStoredPayloadsDecode.
func TestEveryTopicHasAStoredPayload(t *testing.T) {
	t.Parallel()
	samples, err := filepath.Glob(filepath.Join("testdata", "payloads", "*", "*.json"))
	require.NoError(t, err)
	sampled := map[string]bool{}
	checked := map[string]bool{}
	for _, tc := range storedPayloads {
		checked[tc.file] = true
	}
	for _, s := range samples {
		file := filepath.ToSlash(strings.TrimPrefix(s, filepath.Join("testdata", "payloads")+string(filepath.Separator)))
		sampled[filepath.Dir(file)] = true
		require.True(t, checked[file], "%s has no entry in storedPayloads: give the values it must decode to", file)
	}
	var routed []string
	for _, s := range Subscriptions {
		if !slices.Contains(routed, s.Topic) {
			routed = append(routed, s.Topic)
		}
	}
	for _, topic := range routed {
		require.True(t, sampled[topic], "topic %s has no stored payload sample: add testdata/payloads/%s/<commit>.json "+
			"(a payload as the outbox stores it) and its entry in storedPayloads", topic, topic)
	}
	for topic := range sampled {
		require.Contains(t, routed, topic, "topic %s of a stored payload is routed no more: its events still in the outbox "+
			"would never be delivered (a topic is never renamed)", topic)
	}
}

// untypedProducers may build events with outbox.NewEvent (a topic string and
// any payload): New, which takes the topic from the payload's type, and the
// chaos soak, whose synthetic "soak" topic has an outbox of its own.
var untypedProducers = []string{"pkg/events/payload.go", "jobs/dev/chaos/soak.go"}

// TestProducersBuildEventsFromPayloads: outside untypedProducers and tests,
// no Go file of the module calls outbox.NewEvent, so every event of a
// Lexora topic is built by New or Batch.Add from its Payload type, and a
// payload of the wrong type for a topic does not compile.
func TestProducersBuildEventsFromPayloads(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	var callers []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			_, modErr := os.Stat(filepath.Join(path, "go.mod"))
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata" ||
				rel == "frontend" || rel == "bin" || modErr == nil) {
				return filepath.SkipDir // not this module's Go code
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || slices.Contains(untypedProducers, rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		name := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"github.com/lexora-app/lexora/pkg/outbox"` {
				name = "outbox"
				if imp.Name != nil {
					name = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && name != "" && sel.Sel.Name == "NewEvent" {
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
					callers = append(callers, fset.Position(sel.Pos()).String())
				}
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	require.Empty(t, callers, "build events with events.New or Batch.Add from a Payload type, not outbox.NewEvent")
}
