package consumers

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// blockingSender signals on sending when a send starts and waits for
// release before handing the message to the real sender.
type blockingSender struct {
	mail.Sender
	sending, release chan struct{}
}

func (s blockingSender) Send(ctx context.Context, m mail.Message) error {
	s.sending <- struct{}{}
	<-s.release
	return s.Sender.Send(ctx, m)
}

// openTransactions counts the sessions on the test's database that hold a
// transaction open while waiting for their client.
func (b bundle) openTransactions(t *testing.T) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND state LIKE 'idle in transaction%'`).Scan(&n))
	return n
}

// An SMTP server or a webhook receiver that takes its time must not keep a
// transaction (and a pooled connection) open: the email and webhook
// consumers send first and record in a short transaction afterwards.
func TestNoTransactionIsOpenWhileAnEmailOrWebhookIsSent(t *testing.T) {
	ctx, b := setup(t)

	sender := blockingSender{Sender: b.deps.Mail, sending: make(chan struct{}), release: make(chan struct{})}
	releaseSend := sync.OnceFunc(func() { close(sender.release) })
	t.Cleanup(releaseSend) // a failed assertion must not leave the handler blocked
	deps := b.deps
	deps.Mail = sender
	email := Handlers(deps)[events.SubscriberEmail]
	created := delivery(t, events.AssignmentCreated, events.SubscriberEmail,
		events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}, Cards: seed.DeckSize})
	done := make(chan error, 1)
	go func() { done <- email.Handle(ctx, created) }()
	<-sender.sending
	require.Zero(t, b.openTransactions(t), "no transaction is open during the SMTP call")
	releaseSend()
	require.NoError(t, <-done)
	msgs, err := b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	var sends int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM email_sends").Scan(&sends))
	require.Equal(t, 1, sends, "the send is recorded once it is accepted")

	posting, release := make(chan struct{}), make(chan struct{})
	releasePost := sync.OnceFunc(func() { close(release) })
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		posting <- struct{}{}
		<-release
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(receiver.Close)
	t.Cleanup(releasePost) // runs before receiver.Close, which waits for the request
	_, err = b.pool.Exec(ctx, `INSERT INTO webhook_endpoints (teacher_id, url, secret) VALUES ($1, $2, $3)`,
		seed.TeacherID, receiver.URL, webhooks.NewSecret())
	require.NoError(t, err)
	d := b.webhookDelivery(t)
	go func() { done <- b.handlers[events.SubscriberWebhook].Handle(ctx, d) }()
	<-posting
	require.Zero(t, b.openTransactions(t), "no transaction is open during the HTTP call")
	releasePost()
	require.NoError(t, <-done)
	var accepted int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_attempts a JOIN webhook_endpoints w ON w.id = a.endpoint_id
		WHERE a.accepted AND w.teacher_id = $1`, seed.TeacherID).Scan(&accepted)) // not the seed's Ben's
	require.Equal(t, 1, accepted)
}
