package consumers

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
)

// A webhook goes to the payload's teacher_id, or to each of its
// teacher_ids (none for a self-study learner: nothing to post); a payload
// with neither is a permanent error.
func TestWebhookOwnersAreTheTeacherOrTheTeachers(t *testing.T) {
	t.Parallel()
	a, b := uuid.New(), uuid.New()
	got, err := owners(delivery(t, events.LearnerParametersChanged, events.SubscriberWebhook,
		events.LearnerParametersChangedPayload{LearnerID: uuid.New(), TeacherIDs: []uuid.UUID{a, b}}))
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{a, b}, got)

	got, err = owners(delivery(t, events.LearnerParametersChanged, events.SubscriberWebhook,
		events.LearnerParametersChangedPayload{LearnerID: uuid.New(), TeacherIDs: []uuid.UUID{}}))
	require.NoError(t, err)
	require.Empty(t, got)

	got, err = owners(delivery(t, events.DeckCreated, events.SubscriberWebhook, events.DeckCreatedPayload{TeacherID: a}))
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{a}, got)

	_, err = owners(delivery(t, events.DeckCreated, events.SubscriberWebhook, events.DeckCreatedPayload{}))
	require.True(t, outbox.IsPermanent(err), "%v", err)
}
