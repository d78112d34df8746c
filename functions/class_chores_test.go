package functions

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
)

// classBody is a class chore's body naming f's class and, when set, a learner.
func classBody(class, learner uuid.UUID, more string) string {
	b := `{"class_id":"` + class.String() + `"`
	if learner != uuid.Nil {
		b += `,"learner_id":"` + learner.String() + `"`
	}
	return b + more + `}`
}

// chores counts what a class chore may change: memberships and their
// names, the classes' names, codes and archive, assignments and their
// progress, cards, reviews and the outbox.
func (f fixture) chores(t *testing.T) map[string]int {
	t.Helper()
	out := f.snapshot(t)
	for name, sql := range map[string]string{
		"members":        "SELECT count(*) FROM class_members",
		"named members":  "SELECT count(*) FROM class_members WHERE display_name IS NOT NULL",
		"archived":       "SELECT count(*) FROM classes WHERE archived_at IS NOT NULL",
		"renamed":        "SELECT count(*) FROM classes WHERE name NOT IN ('A', 'B')",
		"codes":          "SELECT count(DISTINCT join_code) FROM classes",
		"progress":       "SELECT count(*) FROM assignment_progress",
		"idempotency":    "SELECT count(*) FROM idempotency_keys",
		"account names":  "SELECT count(*) FROM users WHERE display_name <> email",
		"webhook tries":  "SELECT count(*) FROM webhook_attempts",
		"review history": "SELECT count(*) FROM review_log",
	} {
		out[name] = f.count(t, sql)
	}
	return out
}

// A removed learner leaves the class with the class's assignments (and
// their progress); their cards and reviews stay theirs, a review of theirs
// still in the outbox counts nowhere without failing, and learner.removed
// names the deleted assignments.
func TestRemoveLearnerKeepsTheirCardsAndReviews(t *testing.T) {
	ctx, f := setup(t)
	assignment := f.assign(t)
	f.review(t, f.cards(t)[0], 3)
	drain(ctx, t, f.drainer(t, events.SubscriberProgress))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM assignment_progress WHERE assignment_id = $1", assignment))
	f.review(t, f.cards(t)[1], 3) // its review.submitted is still queued at the removal

	code, body := f.call(t, (*Service).RemoveLearner, http.MethodPost, "/", f.teacher, classBody(f.class, f.learner, ""))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, map[string]any{"class_id": f.class.String(), "learner_id": f.learner.String(),
		"assignments": []any{assignment.String()}}, body)
	require.Zero(t, f.count(t, "SELECT count(*) FROM class_members WHERE learner_id = $1", f.learner))
	require.Zero(t, f.count(t, "SELECT count(*) FROM assignments WHERE learner_id = $1", f.learner), "the class's assignments go")
	require.Zero(t, f.count(t, "SELECT count(*) FROM assignment_progress"), "with their progress")
	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM cards WHERE learner_id = $1", f.learner), "the cards stay the learner's")
	require.Equal(t, 2, f.count(t, "SELECT count(*) FROM review_log WHERE learner_id = $1", f.learner), "so do the reviews")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM class_decks WHERE class_id = $1", f.class), "the class keeps its deck")

	var p events.LearnerRemovedPayload
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT payload FROM outbox_events WHERE topic = $1 AND ordering_key = $2",
		events.LearnerRemoved, f.learner.String()).Scan(&p))
	require.Equal(t, events.LearnerRemovedPayload{ClassLearner: events.ClassLearner{ClassID: f.class, LearnerID: f.learner,
		TeacherID: f.teacher}, Assignments: []uuid.UUID{assignment}}, p)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id WHERE e.topic = $1 AND d.subscriber = 'webhook'",
		events.LearnerRemoved))

	// The assignment's email and its due-soon reminder (brought forward) find it gone and send nothing.
	_, err := f.pool.Exec(ctx, "UPDATE outbox_deliveries SET available_at = now() WHERE subscriber = $1", events.SubscriberReminder)
	require.NoError(t, err)
	drain(ctx, t, f.drainer(t, events.SubscriberProgress, events.SubscriberEmail, events.SubscriberReminder))
	require.Zero(t, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"), "the queued review and reminder count nowhere, without failing")
	require.Zero(t, f.count(t, "SELECT count(*) FROM email_sends"))
	require.Zero(t, f.count(t, "SELECT count(*) FROM assignment_progress"))

	code, grid := f.call(t, (*Service).GetClassProgress, http.MethodGet, "/?class_id="+f.class.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, grid)
	require.Empty(t, grid["learners"], "the grid no longer shows them")
	code, progress := f.call(t, (*Service).GetProgress, http.MethodGet, "/", f.learner, "")
	require.Equal(t, http.StatusOK, code, progress)
	require.Empty(t, progress["assignments"], "the class's assignment no longer counts for the learner")
}

func TestRemoveLearnerRejectsBadInputAndChangesNothing(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	before := f.chores(t)
	for _, tc := range []refusal{
		{"malformed JSON", f.teacher, `{"class_id":`, http.StatusBadRequest},
		{"no learner", f.teacher, classBody(f.class, uuid.Nil, ""), http.StatusBadRequest},
		{"learner not a uuid", f.teacher, `{"class_id":"` + f.class.String() + `","learner_id":"bob"}`, http.StatusBadRequest},
		{"empty learner", f.teacher, `{"class_id":"` + f.class.String() + `","learner_id":""}`, http.StatusBadRequest},
		{"unknown field", f.teacher, classBody(f.class, f.learner, `,"x":1`), http.StatusBadRequest},
		{"another teacher's class", f.teacher, classBody(f.otherClass, f.otherLearner, ""), http.StatusNotFound},
		{"the other teacher removes from this class", f.otherTeacher, classBody(f.class, f.learner, ""), http.StatusNotFound},
		{"a learner not in the class", f.teacher, classBody(f.class, f.otherLearner, ""), http.StatusNotFound},
		{"an unknown learner", f.teacher, classBody(f.class, uuid.New(), ""), http.StatusNotFound},
		{"a learner acting", f.learner, classBody(f.class, f.learner, ""), http.StatusNotFound},
		{"nobody acting", uuid.Nil, classBody(f.class, f.learner, ""), http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).RemoveLearner, http.MethodPost, "/", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			require.Equal(t, before, f.chores(t))
		})
	}
}

// An archived class keeps its learners, their assignments and its grid; it
// takes no new learner (its code finds no class, an enrolment by email is
// a 409), no new deck and no new code, until it is taken out of the
// archive. class.updated says what changed, and nothing for a change of
// nothing.
func TestUpdateClassRenamesAndArchives(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	_, err := f.pool.Exec(ctx, "UPDATE classes SET join_code = 'ARCHIVE1' WHERE id = $1", f.class)
	require.NoError(t, err)

	code, body := f.call(t, (*Service).UpdateClass, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, `,"name":"  Spring term  "`))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "Spring term", body["name"])
	require.Nil(t, body["archived_at"])

	code, body = f.call(t, (*Service).UpdateClass, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, `,"archived":true`))
	require.Equal(t, http.StatusOK, code, body)
	archivedAt, err := time.Parse(time.RFC3339Nano, body["archived_at"].(string))
	require.NoError(t, err)
	require.WithinDuration(t, f.clock.Now(), archivedAt, 0, "archived at the request's clock")
	f.clock.Set(f.clock.Now().Add(time.Hour))
	code, again := f.call(t, (*Service).UpdateClass, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, `,"archived":true,"name":"Spring term"`))
	require.Equal(t, http.StatusOK, code, again)
	require.Equal(t, body["archived_at"], again["archived_at"], "archiving again keeps the first instant")

	var changes []string
	for _, raw := range f.payloads(t, events.ClassUpdated) {
		var p events.ClassUpdatedPayload
		require.NoError(t, json.Unmarshal(raw, &p))
		require.Equal(t, f.class, p.ClassID)
		require.Equal(t, f.teacher, p.TeacherID)
		require.Equal(t, "Spring term", p.Name)
		changes = append(changes, strings.Join(p.Changes, "+"))
	}
	require.Equal(t, []string{events.ClassChangeName, events.ClassChangeArchived}, changes, "one event per change, none for the repeat")

	before := f.chores(t)
	code, problem := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.otherLearner, `{"join_code":"ARCHIVE1"}`)
	require.Equal(t, http.StatusNotFound, code, problem)
	code, problem = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, `,"email":"late@example.com"`))
	require.Equal(t, http.StatusConflict, code, problem)
	code, problem = f.call(t, (*Service).CreateAssignment, http.MethodPost, "/", f.teacher,
		classBody(f.class, uuid.Nil, `,"deck_id":"`+f.deck.String()+`","due_at":"2026-04-20T18:00:00Z"`))
	require.Equal(t, http.StatusConflict, code, problem)
	code, problem = f.call(t, (*Service).NewJoinCode, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, ""))
	require.Equal(t, http.StatusConflict, code, problem)
	require.Equal(t, before, f.chores(t), "an archived class refuses them all and changes nothing")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM assignments WHERE class_id = $1", f.class), "its learner keeps the assignment")
	code, grid := f.call(t, (*Service).GetClassProgress, http.MethodGet, "/?class_id="+f.class.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, grid)
	require.Len(t, grid["learners"], 1, "and the teacher its grid")
	require.Equal(t, body["archived_at"], grid["archived_at"])

	code, body = f.call(t, (*Service).UpdateClass, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, `,"archived":false`))
	require.Equal(t, http.StatusOK, code, body)
	require.Nil(t, body["archived_at"])
	code, body = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.otherLearner, `{"join_code":"archive1"}`)
	require.Equal(t, http.StatusCreated, code, body)
}

func TestUpdateClassRejectsBadInputAndChangesNothing(t *testing.T) {
	_, f := setup(t)
	before := f.chores(t)
	for _, tc := range []refusal{
		{"nothing to change", f.teacher, classBody(f.class, uuid.Nil, ""), http.StatusBadRequest},
		{"a blank name", f.teacher, classBody(f.class, uuid.Nil, `,"name":"   "`), http.StatusBadRequest},
		{"an empty name", f.teacher, classBody(f.class, uuid.Nil, `,"name":""`), http.StatusBadRequest},
		{"a name of two lines", f.teacher, classBody(f.class, uuid.Nil, `,"name":"A\nB"`), http.StatusBadRequest},
		{"a name too long", f.teacher, classBody(f.class, uuid.Nil, `,"name":"`+strings.Repeat("n", 201)+`"`), http.StatusBadRequest},
		{"archived not a boolean", f.teacher, classBody(f.class, uuid.Nil, `,"archived":"yes"`), http.StatusBadRequest},
		{"archived null", f.teacher, classBody(f.class, uuid.Nil, `,"archived":null`), http.StatusBadRequest},
		{"class not a uuid", f.teacher, `{"class_id":"A","name":"X"}`, http.StatusBadRequest},
		{"another teacher's class", f.teacher, classBody(f.otherClass, uuid.Nil, `,"name":"Mine now"`), http.StatusNotFound},
		{"an unknown class", f.teacher, classBody(uuid.New(), uuid.Nil, `,"archived":true`), http.StatusNotFound},
		{"a learner acting", f.learner, classBody(f.class, uuid.Nil, `,"name":"X"`), http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).UpdateClass, http.MethodPost, "/", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			require.Equal(t, before, f.chores(t))
		})
	}
}

// A new join code stops the old one at once; members stay; class.updated
// does not carry the code.
func TestNewJoinCodeStopsTheOldOne(t *testing.T) {
	ctx, f := setup(t)
	_, err := f.pool.Exec(ctx, "UPDATE classes SET join_code = 'LEAKED42' WHERE id = $1", f.class)
	require.NoError(t, err)
	code, body := f.call(t, (*Service).NewJoinCode, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, ""))
	require.Equal(t, http.StatusOK, code, body)
	fresh := body["join_code"].(string)
	require.Regexp(t, `^[A-Z2-7]{8}$`, fresh)
	require.NotEqual(t, "LEAKED42", fresh)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM class_members WHERE class_id = $1", f.class), "members stay")
	payloads := f.payloads(t, events.ClassUpdated)
	require.Len(t, payloads, 1)
	require.NotContains(t, string(payloads[0]), fresh, "the event does not carry the code")
	require.Contains(t, string(payloads[0]), `"changes": ["join_code"]`)

	before := f.chores(t)
	code, problem := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.otherLearner, `{"join_code":"LEAKED42"}`)
	require.Equal(t, http.StatusNotFound, code, problem)
	require.Equal(t, before, f.chores(t))
	code, body = f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.otherLearner, `{"join_code":"`+fresh+`"}`)
	require.Equal(t, http.StatusCreated, code, body)

	for _, tc := range []refusal{
		{"another teacher's class", f.otherTeacher, classBody(f.class, uuid.Nil, ""), http.StatusNotFound},
		{"no class", f.teacher, `{}`, http.StatusBadRequest},
		{"an extra field", f.teacher, classBody(f.class, uuid.Nil, `,"join_code":"MINE1234"`), http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := f.chores(t)
			code, body := f.call(t, (*Service).NewJoinCode, http.MethodPost, "/", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			require.Equal(t, before, f.chores(t))
		})
	}
}

// A learner added without a name shows as their email's local part until
// the teacher names them: the class shows that name, the account and other
// classes keep theirs; no event.
func TestSetLearnerNameIsTheClasssName(t *testing.T) {
	ctx, f := setup(t)
	code, added := f.call(t, (*Service).EnrollLearner, http.MethodPost, "/", f.teacher, classBody(f.class, uuid.Nil, `,"email":"sam.r@example.com"`))
	require.Equal(t, http.StatusCreated, code, added)
	sam := uuid.MustParse(added["learner_id"].(string))
	queued := f.count(t, "SELECT count(*) FROM outbox_events")

	code, body := f.call(t, (*Service).SetLearnerName, http.MethodPost, "/", f.teacher, classBody(f.class, sam, `,"display_name":" Sam Rivera "`))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "Sam Rivera", body["display_name"])
	require.Equal(t, "sam.r", body["account_name"])
	var account string
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT display_name FROM users WHERE id = $1", sam).Scan(&account))
	require.Equal(t, "sam.r", account, "the account keeps its name")
	require.Equal(t, queued, f.count(t, "SELECT count(*) FROM outbox_events"), "no event")

	code, grid := f.call(t, (*Service).GetClassProgress, http.MethodGet, "/?class_id="+f.class.String(), f.teacher, "")
	require.Equal(t, http.StatusOK, code, grid)
	var names []string
	for _, row := range grid["learners"].([]any) {
		names = append(names, row.(map[string]any)["display_name"].(string))
	}
	require.Contains(t, names, "Sam Rivera", "the grid shows the class's name")
	code, list := f.call(t, (*Service).ListClasses, http.MethodGet, "/", f.teacher, "")
	require.Equal(t, http.StatusOK, code, list)
	require.Contains(t, list["classes"].([]any)[0].(map[string]any)["members"], map[string]any{"learner_id": sam.String(),
		"display_name": "Sam Rivera", "account_name": "sam.r", "email": "sam.r@example.com", "joined_at": body["joined_at"]})

	before := f.chores(t)
	for _, tc := range []refusal{
		{"a name too long", f.teacher, classBody(f.class, sam, `,"display_name":"`+strings.Repeat("s", 201)+`"`), http.StatusBadRequest},
		{"a name of two lines", f.teacher, classBody(f.class, sam, `,"display_name":"Sam\nRivera"`), http.StatusBadRequest},
		{"an empty name", f.teacher, classBody(f.class, sam, `,"display_name":""`), http.StatusBadRequest},
		{"no learner", f.teacher, classBody(f.class, uuid.Nil, `,"display_name":"X"`), http.StatusBadRequest},
		{"another teacher's class", f.teacher, classBody(f.otherClass, f.otherLearner, `,"display_name":"X"`), http.StatusNotFound},
		{"the other teacher names this class's learner", f.otherTeacher, classBody(f.class, sam, `,"display_name":"X"`), http.StatusNotFound},
		{"a learner not in the class", f.teacher, classBody(f.class, f.otherLearner, `,"display_name":"X"`), http.StatusNotFound},
		{"a learner acting", f.learner, classBody(f.class, sam, `,"display_name":"X"`), http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.call(t, (*Service).SetLearnerName, http.MethodPost, "/", tc.actor, tc.body)
			require.Equal(t, tc.status, code, body)
			require.Equal(t, before, f.chores(t))
		})
	}

	code, body = f.call(t, (*Service).SetLearnerName, http.MethodPost, "/", f.teacher, classBody(f.class, sam, ""))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, "sam.r", body["display_name"], "left out, the account's name again")
}

// drain runs d until idle.
func drain(ctx context.Context, t *testing.T, d *outbox.Drainer) {
	t.Helper()
	_, err := d.Run(ctx)
	require.NoError(t, err)
}

// payloads are the stored payloads of topic's events, oldest first.
func (f fixture) payloads(t *testing.T, topic string) []json.RawMessage {
	t.Helper()
	rows, err := f.pool.Query(t.Context(), "SELECT payload::text FROM outbox_events WHERE topic = $1 ORDER BY id", topic)
	require.NoError(t, err)
	defer rows.Close()
	var out []json.RawMessage
	for rows.Next() {
		var s string
		require.NoError(t, rows.Scan(&s))
		out = append(out, json.RawMessage(s))
	}
	require.NoError(t, rows.Err())
	return out
}
