package consumers

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

// TestConsumersWriteTheirClocksInstant: the instants the consumers write
// (the progress row's updated_at, a webhook attempt's at, an endpoint's
// disabled_at) come from their clock, not from the database's now().
func TestConsumersWriteTheirClocksInstant(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	stub := clocktest.New(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC))
	deps := b.deps
	deps.Clock = stub
	handlers := Handlers(deps)

	require.NoError(t, handlers[events.SubscriberProgress].Handle(ctx, delivery(t, events.ReviewSubmitted, events.SubscriberProgress,
		events.ReviewSubmittedPayload{LearnerID: b.learner.ID, StateBefore: 0, StateAfter: 1, StudyDay: "2026-03-02",
			AssignmentIDs: []uuid.UUID{b.assignment}})))
	updated := func() time.Time {
		var at time.Time
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT updated_at FROM assignment_progress WHERE assignment_id = $1`,
			b.assignment).Scan(&at))
		return at.UTC()
	}
	require.Equal(t, stub.Now(), updated(), "the row's first write")
	stub.Advance(time.Minute)
	require.NoError(t, handlers[events.SubscriberProgress].Handle(ctx, delivery(t, events.AssignmentCreated, events.SubscriberProgress,
		events.AssignmentCreatedPayload{AssignmentID: b.assignment, LearnerID: b.learner.ID, Cards: 25})))
	require.Equal(t, stub.Now(), updated(), "a later write")

	accepting, gone := newReceiver(t), newReceiver(t, http.StatusGone)
	acceptingID, goneID := b.endpoint(t, accepting), b.endpoint(t, gone)
	stub.Advance(time.Minute)
	require.NoError(t, handlers[events.SubscriberWebhook].Handle(ctx, b.webhookDelivery(t)))
	var at, disabled time.Time
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT at FROM webhook_attempts WHERE endpoint_id = $1`, acceptingID).Scan(&at))
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT disabled_at FROM webhook_endpoints WHERE id = $1`, goneID).Scan(&disabled))
	require.Equal(t, stub.Now(), at.UTC())
	require.Equal(t, stub.Now(), disabled.UTC())
}
