package consumers

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// receiver is a webhook endpoint on loopback that verifies every request
// with the Standard Webhooks reference library and answers from a script.
type receiver struct {
	*httptest.Server
	secret string

	mu       sync.Mutex
	statuses []int // answers to give, in order; then 200
	accepted []string
	invalid  int
	calls    int
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{secret: webhooks.NewSecret(), statuses: statuses}
	wh, err := standardwebhooks.NewWebhook(r.secret)
	require.NoError(t, err)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.calls++
		if err := wh.Verify(body, req.Header); err != nil {
			r.invalid++
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		if status == http.StatusOK {
			r.accepted = append(r.accepted, req.Header.Get("webhook-id"))
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) snapshot() (accepted []string, invalid, calls int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.accepted...), r.invalid, r.calls
}

func (b bundle) endpoint(t *testing.T, r *receiver) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, b.pool.QueryRow(context.Background(), `INSERT INTO webhook_endpoints (teacher_id, url, secret)
		VALUES ($1, $2, $3) RETURNING id`, seed.TeacherID, r.URL, r.secret).Scan(&id))
	return id
}

func (b bundle) webhookDelivery(t *testing.T) outbox.Delivery {
	t.Helper()
	return delivery(t, events.AssignmentCreated, events.SubscriberWebhook, events.AssignmentCreatedPayload{
		Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID, TeacherID: seed.TeacherID}, Cards: 25})
}

// enqueueAssignmentCreated commits an assignment.created event of the
// bundle's assignment (the seeded teacher's), as CreateAssignment would.
func (b bundle) enqueueAssignmentCreated(t *testing.T) outbox.Event {
	t.Helper()
	ctx := context.Background()
	e := b.webhookDelivery(t).Event
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, events.NewOutbox().Enqueue(ctx, tx, e))
	require.NoError(t, tx.Commit(ctx))
	return e
}

func TestWebhookIsSignedAndAcceptedOncePerEndpoint(t *testing.T) {
	ctx, b := setup(t)
	r1, r2 := newReceiver(t), newReceiver(t)
	b.endpoint(t, r1)
	b.endpoint(t, r2)
	d := b.webhookDelivery(t)
	h := b.handlers[events.SubscriberWebhook]

	require.NoError(t, h.Handle(ctx, d))
	require.NoError(t, h.Handle(ctx, d), "a redelivery sends nothing")
	var g errgroup.Group
	for range 4 {
		g.Go(func() error { return h.Handle(ctx, d) })
	}
	require.NoError(t, g.Wait())
	for _, r := range []*receiver{r1, r2} {
		accepted, invalid, calls := r.snapshot()
		require.Equal(t, []string{d.Event.ID.String()}, accepted, "webhook-id is the event id")
		require.Zero(t, invalid)
		require.Equal(t, 1, calls)
	}
}

func TestWebhookRetriesUntilAcceptedAndDisablesOnGone(t *testing.T) {
	ctx, b := setup(t)
	flaky := newReceiver(t, 503, 500, 503)
	gone := newReceiver(t, http.StatusGone)
	flakyID, goneID := b.endpoint(t, flaky), b.endpoint(t, gone)

	e := b.enqueueAssignmentCreated(t)

	// The run ends once it has claimed the delivery four times (three
	// failures, each retried after its backoff, then the accepted attempt)
	// and written the results, or after 10 s: no polling of the database.
	d, err := outbox.NewDrainer(b.pool, map[string]outbox.Handler{events.SubscriberWebhook: b.handlers[events.SubscriberWebhook]},
		outbox.Config{BackoffBase: 20 * time.Millisecond, BackoffMax: 100 * time.Millisecond, PollInterval: 10 * time.Millisecond,
			MaxDuration: 10 * time.Second, MaxDeliveries: 4}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	_, err = d.Run(ctx)
	require.NoError(t, err)
	var left int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM outbox_deliveries WHERE subscriber = 'webhook'").Scan(&left))
	require.Zero(t, left, "the delivery ends acknowledged")

	accepted, invalid, calls := flaky.snapshot()
	require.Equal(t, []string{e.ID.String()}, accepted)
	require.Zero(t, invalid)
	require.Equal(t, 4, calls, "three failures, then the accepted attempt")
	_, _, goneCalls := gone.snapshot()
	require.Equal(t, 1, goneCalls, "a disabled endpoint gets nothing more")

	var reason string
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT disabled_reason FROM webhook_endpoints WHERE id = $1 AND disabled_at IS NOT NULL",
		goneID).Scan(&reason))
	require.Contains(t, reason, "410")
	var n int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM webhook_attempts WHERE endpoint_id = $1 AND accepted", flakyID).Scan(&n))
	require.Equal(t, 1, n)
}

func TestWebhookRejectionIsPermanentUntilReplayed(t *testing.T) {
	ctx, b := setup(t)
	r := newReceiver(t, http.StatusBadRequest) // rejects once, then accepts
	b.endpoint(t, r)
	e := b.enqueueAssignmentCreated(t)
	d, err := outbox.NewDrainer(b.pool, map[string]outbox.Handler{events.SubscriberWebhook: b.handlers[events.SubscriberWebhook]},
		outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)

	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Dead, "a 4xx is not retried")
	dead, err := outbox.ListDead(ctx, b.pool, outbox.DeadFilter{Subscriber: events.SubscriberWebhook})
	require.NoError(t, err)
	require.Len(t, dead, 1)
	require.Contains(t, dead[0].LastError, "400")

	n, err := outbox.Replay(ctx, b.pool, outbox.DeadFilter{IDs: []int64{dead[0].ID}}, "ops", "receiver fixed")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	rep, err = d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Delivered)
	accepted, invalid, calls := r.snapshot()
	require.Equal(t, []string{e.ID.String()}, accepted, "the replay sent the event again and it was accepted")
	require.Zero(t, invalid)
	require.Equal(t, 2, calls)
}

// TestWebhookSignsWithARotatedSecretUntilItExpires: a receiver still on the
// secret an endpoint rotated away from accepts deliveries during the
// overlap, and rejects them once the previous secret has expired.
func TestWebhookSignsWithARotatedSecretUntilItExpires(t *testing.T) {
	ctx, b := setup(t)
	inOverlap, expired := newReceiver(t), newReceiver(t)
	for r, expiresIn := range map[*receiver]string{inOverlap: "1 hour", expired: "-1 second"} {
		_, err := b.pool.Exec(ctx, `INSERT INTO webhook_endpoints (teacher_id, url, secret, previous_secret, previous_secret_expires_at)
			VALUES ($1, $2, $3, $4, now() + $5::interval)`, seed.TeacherID, r.URL, webhooks.NewSecret(), r.secret, expiresIn)
		require.NoError(t, err)
	}
	d := b.webhookDelivery(t)
	require.ErrorContains(t, b.handlers[events.SubscriberWebhook].Handle(ctx, d), "401",
		"the receiver on the expired secret rejects the delivery")
	accepted, invalid, _ := inOverlap.snapshot()
	require.Equal(t, []string{d.Event.ID.String()}, accepted)
	require.Zero(t, invalid)
	accepted, invalid, _ = expired.snapshot()
	require.Empty(t, accepted)
	require.Equal(t, 1, invalid)
}

// TestWebhookRejectionOutlivesAnotherEndpointsRetries: a teacher has an
// unreachable endpoint and one answering 404. The delivery is retried for
// the unreachable one; its teacher deletes it meanwhile. The 404 recorded
// by the first attempt is still a rejection: the delivery ends dead with
// that 404 as its error (as with the 404 endpoint alone), never delivered.
func TestWebhookRejectionOutlivesAnotherEndpointsRetries(t *testing.T) {
	ctx, b := setup(t)
	unreachable, notFound := newReceiver(t), newReceiver(t, http.StatusNotFound)
	unreachable.Close() // connection refused: a transient failure, retried
	unreachableID, notFoundID := b.endpoint(t, unreachable), b.endpoint(t, notFound)
	e := b.enqueueAssignmentCreated(t)
	// Each run claims the delivery once, then ends.
	d, err := outbox.NewDrainer(b.pool, map[string]outbox.Handler{events.SubscriberWebhook: b.handlers[events.SubscriberWebhook]},
		outbox.Config{BackoffBase: time.Millisecond, BackoffMax: 5 * time.Millisecond, PollInterval: 10 * time.Millisecond,
			MaxDuration: 10 * time.Second, MaxDeliveries: 1}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)

	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Retried, "the unreachable endpoint is retried")
	var status int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT status FROM webhook_attempts WHERE endpoint_id = $1 AND NOT accepted",
		notFoundID).Scan(&status))
	require.Equal(t, http.StatusNotFound, status)
	_, err = b.pool.Exec(ctx, "DELETE FROM webhook_endpoints WHERE id = $1", unreachableID)
	require.NoError(t, err)

	rep, err = d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Dead, "the remaining endpoint's 404 is not a delivery")
	dead, err := outbox.ListDead(ctx, b.pool, outbox.DeadFilter{Subscriber: events.SubscriberWebhook})
	require.NoError(t, err)
	require.Len(t, dead, 1)
	require.Equal(t, e.ID, dead[0].EventID)
	require.Contains(t, dead[0].LastError, "404")
	require.Contains(t, dead[0].LastError, notFoundID.String())
	_, _, calls := notFound.snapshot()
	require.Equal(t, 1, calls, "a rejection is not sent again before a replay")
}

// transientHealth is an endpoint's record of its transient failures.
func (b bundle) transientHealth(t *testing.T, id uuid.UUID) (reason *string, at *time.Time, inRow int) {
	t.Helper()
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT last_transient_error, last_transient_error_at,
		transient_failures_in_row FROM webhook_endpoints WHERE id = $1`, id).Scan(&reason, &at, &inRow))
	return reason, at, inRow
}

// TestWebhookTransientFailuresAreCountedOnTheEndpoint: a receiver that
// answers 503 leaves no attempt row (the delivery stays retryable, sent
// again on its next attempt) but its endpoint records the error and one
// more failure in a row at each attempt; an accepted delivery ends the run
// and keeps the last error.
func TestWebhookTransientFailuresAreCountedOnTheEndpoint(t *testing.T) {
	ctx, b := setup(t)
	r := newReceiver(t, http.StatusServiceUnavailable, http.StatusServiceUnavailable)
	id := b.endpoint(t, r)
	d := b.webhookDelivery(t)
	h := b.handlers[events.SubscriberWebhook]

	for attempt := 1; attempt <= 2; attempt++ {
		err := h.Handle(ctx, d)
		require.ErrorContains(t, err, "503")
		require.False(t, outbox.IsPermanent(err), "a 503 is retried")
		reason, at, inRow := b.transientHealth(t, id)
		require.Equal(t, "status 503 Service Unavailable", *reason)
		require.NotNil(t, at)
		require.Equal(t, attempt, inRow)
	}
	var answers int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM webhook_attempts WHERE endpoint_id = $1", id).Scan(&answers))
	require.Zero(t, answers, "a 503 is no answer")

	require.NoError(t, h.Handle(ctx, d), "the third attempt is accepted")
	reason, _, inRow := b.transientHealth(t, id)
	require.Equal(t, "status 503 Service Unavailable", *reason, "the last error is kept")
	require.Zero(t, inRow, "an accepted delivery ends the run")
	accepted, _, calls := r.snapshot()
	require.Equal(t, []string{d.Event.ID.String()}, accepted)
	require.Equal(t, 3, calls)
}

// TestWebhookTimeoutsAndRefusedConnectionsAreCounted: a receiver that never
// answers times out after the sender's timeout, one that is not listening
// refuses the connection; each endpoint records which, in words a teacher
// reads, and the delivery stays retryable.
func TestWebhookTimeoutsAndRefusedConnectionsAreCounted(t *testing.T) {
	ctx, b := setup(t)
	release := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-release }))
	t.Cleanup(hanging.Close)
	t.Cleanup(func() { close(release) }) // runs first: the server's handlers return, then it closes
	refused := newReceiver(t)
	refused.Close()
	hangingID := b.endpoint(t, &receiver{Server: hanging, secret: webhooks.NewSecret()})
	refusedID := b.endpoint(t, refused)
	h := &Webhook{pool: b.pool, clock: clock.System{},
		sender: webhooks.NewSender(webhooks.Config{Timeout: 200 * time.Millisecond, AllowHTTP: true}, clock.System{})}

	err := h.Handle(ctx, b.webhookDelivery(t))
	require.Error(t, err)
	require.False(t, outbox.IsPermanent(err))
	reason, _, inRow := b.transientHealth(t, hangingID)
	require.Equal(t, "timed out after 200ms", *reason)
	require.Equal(t, 1, inRow)
	reason, _, inRow = b.transientHealth(t, refusedID)
	require.Equal(t, "connection refused", *reason)
	require.Equal(t, 1, inRow)
}

// TestWebhookFailureToRecordHealthKeepsTheDeliveryRetryable: when the
// endpoint's transient failure cannot be written, the delivery still fails
// retryably (never permanently, never as delivered), and says why.
func TestWebhookFailureToRecordHealthKeepsTheDeliveryRetryable(t *testing.T) {
	ctx, b := setup(t)
	r := newReceiver(t, http.StatusServiceUnavailable)
	b.endpoint(t, r)
	_, err := b.pool.Exec(ctx, `CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
		CREATE TRIGGER refuse BEFORE UPDATE OF transient_failures_in_row ON webhook_endpoints
		FOR EACH ROW EXECUTE FUNCTION refuse()`)
	require.NoError(t, err)

	err = b.handlers[events.SubscriberWebhook].Handle(ctx, b.webhookDelivery(t))
	require.ErrorContains(t, err, "status 503 Service Unavailable")
	require.ErrorContains(t, err, "its health not recorded")
	require.False(t, outbox.IsPermanent(err))
}

// TestWebhookStoppedHandlerCountsNoFailure: when the handler's context ends
// during the post (the drain stopped it: a lost lease, the run's end), the
// delivery fails retryably and the endpoint counts nothing: the receiver did
// not fail.
func TestWebhookStoppedHandlerCountsNoFailure(t *testing.T) {
	ctx, b := setup(t)
	stopped, stop := context.WithCancel(ctx)
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		stop()
		<-release
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // runs first: the handler returns, then the server closes
	id := b.endpoint(t, &receiver{Server: srv, secret: webhooks.NewSecret()})

	err := b.handlers[events.SubscriberWebhook].Handle(stopped, b.webhookDelivery(t))
	require.ErrorContains(t, err, "context canceled")
	require.NotContains(t, err.Error(), "its health not recorded", "nothing to record: the receiver did not fail")
	require.False(t, outbox.IsPermanent(err))
	reason, at, inRow := b.transientHealth(t, id)
	require.Nil(t, reason)
	require.Nil(t, at)
	require.Zero(t, inRow)
}
