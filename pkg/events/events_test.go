package events

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
)

func TestRoutingIsValid(t *testing.T) {
	t.Parallel()
	_, err := outbox.New(Subscriptions...)
	require.NoError(t, err)
}

// TestReviewPayloadsKeepTheirJSON: review.submitted and review.undone share
// their first fields through Review; their JSON is byte for byte what the
// payloads encoded before (the golden strings were made by the structs
// without Review), and decodes back to the same payload.
func TestReviewPayloadsKeepTheirJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	id := func(n byte) uuid.UUID { return uuid.UUID{15: n} }
	review := Review{ReviewID: 7, CardID: id(1), LearnerID: id(2), LexemeID: id(3), Rating: 3,
		StateBefore: 1, StateAfter: 2, ReviewedAt: at, StudyDay: "2026-03-02"}
	const head = `{"review_id":7,"card_id":"00000000-0000-0000-0000-000000000001",` +
		`"learner_id":"00000000-0000-0000-0000-000000000002","lexeme_id":"00000000-0000-0000-0000-000000000003",` +
		`"rating":3,"state_before":1,"state_after":2,"reviewed_at":"2026-03-02T09:30:00Z","study_day":"2026-03-02",`
	for _, tc := range []struct {
		name    string
		payload any
		decoded any
		want    string
	}{
		{"review.submitted",
			ReviewSubmittedPayload{Review: review, Due: at.Add(time.Hour), AssignmentIDs: []uuid.UUID{id(4)}},
			&ReviewSubmittedPayload{},
			head + `"due":"2026-03-02T10:30:00Z","assignment_ids":["00000000-0000-0000-0000-000000000004"]}`},
		{"review.undone",
			ReviewUndonePayload{Review: review, UndoneAt: at.Add(time.Minute), AssignmentIDs: []uuid.UUID{id(4)},
				LaterAssignmentIDs: []uuid.UUID{id(5)}, Unsuspended: true},
			&ReviewUndonePayload{},
			head + `"undone_at":"2026-03-02T09:31:00Z","assignment_ids":["00000000-0000-0000-0000-000000000004"],` +
				`"later_assignment_ids":["00000000-0000-0000-0000-000000000005"],"unsuspended":true}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.payload)
			require.NoError(t, err)
			require.JSONEq(t, tc.want, string(got))
			require.Equal(t, tc.want, string(got), "the fields keep their order")
			require.NoError(t, json.Unmarshal(got, tc.decoded))
			switch d := tc.decoded.(type) {
			case *ReviewSubmittedPayload:
				require.Equal(t, tc.payload, *d)
			case *ReviewUndonePayload:
				require.Equal(t, tc.payload, *d)
			}
		})
	}
}

// TestAssignmentAndClassPayloadsKeepTheirJSON pins the JSON of the payloads
// that name an assignment (assignment.created, assignment.completed) or a
// class's learner (learner.enrolled, learner.invited): the golden strings
// were made by the structs before they shared their first fields, and the
// payloads are filled field by field, so this test reads the same either way.
func TestAssignmentAndClassPayloadsKeepTheirJSON(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC)
	id := func(n byte) uuid.UUID { return uuid.UUID{15: n} }
	const (
		assignment = `{"assignment_id":"00000000-0000-0000-0000-000000000001",` +
			`"deck_id":"00000000-0000-0000-0000-000000000002","learner_id":"00000000-0000-0000-0000-000000000003",` +
			`"teacher_id":"00000000-0000-0000-0000-000000000004","due_at":"2026-03-09T09:30:00Z",`
		class = `{"class_id":"00000000-0000-0000-0000-000000000005","learner_id":"00000000-0000-0000-0000-000000000003",` +
			`"teacher_id":"00000000-0000-0000-0000-000000000004"`
	)
	var created AssignmentCreatedPayload
	created.AssignmentID, created.DeckID, created.LearnerID, created.TeacherID = id(1), id(2), id(3), id(4)
	created.DueAt, created.Cards, created.CardsSeen, created.CardsLearned = at.AddDate(0, 0, 7), 25, 3, 1
	completed := AssignmentCompletedPayload{CompletedAt: at}
	completed.AssignmentID, completed.DeckID, completed.LearnerID, completed.TeacherID = id(1), id(2), id(3), id(4)
	completed.DueAt = at.AddDate(0, 0, 7)
	enrolled := LearnerEnrolledPayload{Assignments: []uuid.UUID{id(1)}, By: "join_code"}
	enrolled.ClassID, enrolled.LearnerID, enrolled.TeacherID = id(5), id(3), id(4)
	var invited LearnerInvitedPayload
	invited.ClassID, invited.LearnerID, invited.TeacherID = id(5), id(3), id(4)
	for _, tc := range []struct {
		name    string
		payload any
		decoded any
		want    string
	}{
		{"assignment.created", created, &AssignmentCreatedPayload{},
			assignment + `"cards":25,"cards_seen":3,"cards_learned":1}`},
		{"assignment.completed", completed, &AssignmentCompletedPayload{},
			assignment + `"completed_at":"2026-03-02T09:30:00Z"}`},
		{"learner.enrolled", enrolled, &LearnerEnrolledPayload{},
			class + `,"assignments":["00000000-0000-0000-0000-000000000001"],"by":"join_code"}`},
		{"learner.invited", invited, &LearnerInvitedPayload{}, class + `}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := json.Marshal(tc.payload)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(got), "the fields keep their names and order")
			require.NoError(t, json.Unmarshal(got, tc.decoded))
			require.Equal(t, tc.payload, reflect.ValueOf(tc.decoded).Elem().Interface())
		})
	}
}
