package functions

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
)

// TestAnEmptyOrNullFieldNeverWidensAWrite: every optional field of every
// write, given as null, "" or [], is a 400 problem naming it, not the field
// left out. Read as left out, an empty or null learner_id assigned the deck
// to the whole class and its later joiners, an empty topic or since let a
// replay or skip select more dead letters, empty topics subscribed an
// endpoint to every topic, a null review_id undid whatever review was
// last, an empty reviewed_at meant now. Each refusal leaves every user,
// membership, class deck, assignment, card, review, webhook endpoint,
// idempotency key and outbox row as it was.
func TestAnEmptyOrNullFieldNeverWidensAWrite(t *testing.T) {
	_, f := setup(t)
	r := f.resources(t)
	code, body := f.call(t, (*Service).SubmitReview, http.MethodPost, "/", f.learner, `{"card_id":"`+r.card.String()+`","rating":3}`)
	require.Equal(t, http.StatusOK, code, "a review that an undo could take back: %v", body)
	everything := func(t *testing.T) string {
		t.Helper()
		var s string
		require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT concat_ws(',',
			(SELECT count(*) FROM class_decks), (SELECT count(*) FROM class_invitations),
			(SELECT string_agg(concat(id, topics, disabled_at), ' ' ORDER BY id) FROM webhook_endpoints))`).Scan(&s))
		return f.writes(t) + "," + s
	}
	before := everything(t)
	assignment := `"class_id":"` + f.class.String() + `","deck_id":"` + r.library.String() + `","due_at":"2026-03-25T18:00:00Z"`
	enrol := `"class_id":"` + r.class.String() + `","email":"new@example.com"`
	dead := `"ids":[1],"reason":"fixed"`
	for _, c := range []struct {
		name  string
		fn    func(*Service, http.ResponseWriter, *http.Request)
		actor uuid.UUID
		body  string
		field string // the fields the problem names, in its order, joined by commas
	}{
		{"CreateAssignment", (*Service).CreateAssignment, f.teacher, `{` + assignment + `,"learner_id":""}`, "learner_id"},
		{"CreateAssignment", (*Service).CreateAssignment, f.teacher, `{` + assignment + `,"learner_id":null}`, "learner_id"},
		{"CreateAssignment", (*Service).CreateAssignment, f.teacher, `{` + assignment + `,"learner_id":"00000000-0000-0000-0000-000000000000"}`, "learner_id"},
		{"EnrollLearner", (*Service).EnrollLearner, f.teacher, `{` + enrol + `,"display_name":""}`, "display_name"},
		{"EnrollLearner", (*Service).EnrollLearner, f.teacher, `{` + enrol + `,"timezone":null}`, "timezone"},
		{"EnrollLearner", (*Service).EnrollLearner, f.teacher, `{` + enrol + `,"join_code":""}`, "join_code"},
		// A code of white space alone is a code sent, not none: sent with class_id
		// and email, each of the three is named (it enrolled by email before).
		{"EnrollLearner", (*Service).EnrollLearner, f.teacher, `{` + enrol + `,"join_code":"  "}`, "class_id,email,join_code"},
		{"EnrollLearner", (*Service).EnrollLearner, f.otherLearner, `{"join_code":" \n "}`, "join_code"},
		{"EnrollLearner", (*Service).EnrollLearner, f.otherLearner, `{"join_code":"DEMO2026","class_id":""}`, "class_id"},
		{"EnrollLearner", (*Service).EnrollLearner, f.otherLearner, `{"join_code":"DEMO2026","email":null}`, "email"},
		{"CreateClass", (*Service).CreateClass, f.teacher, `{"name":"B","display_name":""}`, "display_name"},
		{"CreateClass", (*Service).CreateClass, f.teacher, `{"name":"B","timezone":""}`, "timezone"},
		{"SubmitReview", (*Service).SubmitReview, f.learner, `{"card_id":"` + r.card.String() + `","rating":3,"reviewed_at":""}`, "reviewed_at"},
		{"SubmitReview", (*Service).SubmitReview, f.learner, `{"card_id":"` + r.card.String() + `","rating":3,"reviewed_at":null}`, "reviewed_at"},
		{"UndoReview", (*Service).UndoReview, f.learner, `{"card_id":"` + r.card.String() + `","review_id":null}`, "review_id"},
		{"RegisterWebhookEndpoint", (*Service).RegisterWebhookEndpoint, f.teacher, `{"url":"https://school.example/all","topics":[]}`, "topics"},
		{"RegisterWebhookEndpoint", (*Service).RegisterWebhookEndpoint, f.teacher, `{"url":"https://school.example/all","topics":null}`, "topics"},
		{"RotateWebhookSecret", (*Service).RotateWebhookSecret, f.teacher, `{"id":"` + r.endpoint + `","revoke_previous":null}`, "revoke_previous"},
		{"ReplayDeadLetters", (*Service).ReplayDeadLetters, r.op, `{` + dead + `,"topic":""}`, "topic"},
		{"ReplayDeadLetters", (*Service).ReplayDeadLetters, r.op, `{` + dead + `,"subscriber":null}`, "subscriber"},
		{"SkipDeadLetters", (*Service).SkipDeadLetters, r.op, `{` + dead + `,"since":""}`, "since"},
		{"SkipDeadLetters", (*Service).SkipDeadLetters, r.op, `{"all":true,"reason":"fixed","ids":[]}`, "ids"},
		{"SkipDeadLetters", (*Service).SkipDeadLetters, r.op, `{` + dead + `,"until":null}`, "until"},
	} {
		t.Run(c.name+" "+c.field, func(t *testing.T) {
			code, problem := f.call(t, c.fn, http.MethodPost, "/"+c.name, c.actor, c.body)
			require.Equal(t, http.StatusBadRequest, code, "%s: %v", c.body, problem)
			require.Equal(t, "https://lexora.app/problems/validation-failed", problem["type"])
			errs, _ := problem["errors"].([]any)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.(map[string]any)["field"].(string))
			}
			require.Equal(t, c.field, strings.Join(fields, ","), "the fields named")
			require.Equal(t, before, everything(t), "refused, but the database changed")
		})
	}
	require.Zero(t, f.count(t, "SELECT count(*) FROM assignments WHERE deck_id = $1", r.library), "nobody has the deck")
}
