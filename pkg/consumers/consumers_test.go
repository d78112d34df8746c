package consumers

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/testkit/mailpit"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

type bundle struct {
	deps       Deps
	pool       *pgxpool.Pool
	mailpit    mailpit.Client
	handlers   map[string]outbox.Handler
	assignment uuid.UUID
	learner    seed.User
}

// setup marks the test parallel, seeds a database, assigns the first
// library deck to the first demo learner and starts a private SMTP sink; it
// returns a background context and the bundle.
func setup(t *testing.T) (context.Context, bundle) {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	_, err := seed.Load(ctx, pool, clock.System{})
	require.NoError(t, err)
	port, client := mailpit.Start(t)
	sender, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: port, TLS: "none", From: "Lexora <no-reply@lexora.app>", Timeout: 5 * time.Second})
	require.NoError(t, err)
	deps := Deps{Pool: pool, Mail: sender, Webhooks: webhooks.NewSender(webhooks.Config{Timeout: 5 * time.Second, AllowHTTP: true}, clock.System{})}
	b := bundle{deps: deps, pool: pool, mailpit: client, learner: seed.Learners[0], handlers: Handlers(deps)}
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
		SELECT $3, id, $1, $2, now() + interval '7 days' FROM decks ORDER BY title LIMIT 1 RETURNING id`,
		b.learner.ID, seed.TeacherID, seed.ClassID).Scan(&b.assignment))
	return ctx, b
}

func delivery(t *testing.T, topic, subscriber string, payload any) outbox.Delivery {
	t.Helper()
	ev, err := outbox.NewEvent(topic, "k", payload)
	require.NoError(t, err)
	return outbox.Delivery{ID: 1, Subscriber: subscriber, Attempt: 1, Event: ev}
}

func TestEmailIsSentOnceWithTheEventInItsMessageID(t *testing.T) {
	ctx, b := setup(t)
	created := delivery(t, events.AssignmentCreated, events.SubscriberEmail,
		events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}, Cards: seed.DeckSize})
	completed := delivery(t, events.AssignmentCompleted, events.SubscriberEmail,
		events.AssignmentCompletedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}})

	h := b.handlers[events.SubscriberEmail]
	for range 3 { // redeliveries
		require.NoError(t, h.Handle(ctx, created))
	}
	require.NoError(t, h.Handle(ctx, completed))

	msgs, err := b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	byID := map[string]mailpit.Message{}
	for _, m := range msgs {
		byID[m.MessageID] = m
	}
	toLearner := byID[MessageID(created.Event, events.SubscriberEmail)]
	require.Equal(t, b.learner.Email, toLearner.To[0].Address)
	require.Equal(t, "New assignment: Core English 01", toLearner.Subject)
	toTeacher := byID[MessageID(completed.Event, events.SubscriberEmail)]
	require.Equal(t, seed.Teacher.Email, toTeacher.To[0].Address)
	require.Contains(t, toTeacher.Subject, "finished Core English 01")

	var sends int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM email_sends").Scan(&sends))
	require.Equal(t, 2, sends)
}

func TestEmailFailuresAreRetryableOrPermanent(t *testing.T) {
	ctx, b := setup(t)
	down, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: 1, TLS: "none", From: "x@lexora.app", Timeout: time.Second})
	require.NoError(t, err)
	h := Handlers(Deps{Pool: b.pool, Mail: down})[events.SubscriberEmail]
	d := delivery(t, events.AssignmentCreated, events.SubscriberEmail, events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: b.assignment}})
	err = h.Handle(ctx, d)
	require.Error(t, err)
	require.False(t, outbox.IsPermanent(err), "an SMTP outage is retried")
	var marked int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM outbox_processed").Scan(&marked))
	require.Zero(t, marked, "a failed send leaves no dedup record, so the retry sends")

	// An assignment that no longer exists (its learner was removed from
	// its class) is nothing to send, not a dead letter.
	gone := delivery(t, events.AssignmentCreated, events.SubscriberEmail, events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: uuid.New()}})
	require.NoError(t, b.handlers[events.SubscriberEmail].Handle(ctx, gone))
	var sent int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM email_sends WHERE event_id = $1", gone.Event.ID).Scan(&sent))
	require.Zero(t, sent)
	bad := delivery(t, events.AssignmentCreated, events.SubscriberEmail, "not an object")
	require.True(t, outbox.IsPermanent(b.handlers[events.SubscriberEmail].Handle(ctx, bad)))
	other := delivery(t, events.ReviewSubmitted, events.SubscriberEmail, events.ReviewSubmittedPayload{})
	require.True(t, outbox.IsPermanent(b.handlers[events.SubscriberEmail].Handle(ctx, other)))
}

func TestProgressCountsEachReviewOnce(t *testing.T) {
	ctx, b := setup(t)
	h := b.handlers[events.SubscriberProgress]
	review := func(before, after int, day string) outbox.Delivery {
		return delivery(t, events.ReviewSubmitted, events.SubscriberProgress, events.ReviewSubmittedPayload{Review: events.Review{LearnerID: b.learner.ID, StateBefore: before, StateAfter: after, StudyDay: day},
			AssignmentIDs: []uuid.UUID{b.assignment}})
	}
	steps := []outbox.Delivery{
		review(0, 1, "2026-03-01"), // seen
		review(1, 2, "2026-03-01"), // learned
		review(0, 2, "2026-03-02"), // seen and learned
		review(2, 3, "2026-03-02"), // lapse: no longer learned
		delivery(t, events.AssignmentCreated, events.SubscriberProgress, events.AssignmentCreatedPayload{
			Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}, Cards: 25, CardsSeen: 1, CardsLearned: 1}),
	}
	for _, d := range steps {
		require.NoError(t, h.Handle(ctx, d))
		require.NoError(t, h.Handle(ctx, d), "a redelivery changes nothing")
	}
	var total, seen, learned, reviews int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT cards_total, cards_seen, cards_learned, reviews
		FROM assignment_progress WHERE assignment_id = $1`, b.assignment).Scan(&total, &seen, &learned, &reviews))
	// Known at creation (1 seen, 1 learned) plus the reviews' increments.
	require.Equal(t, []int{25, 3, 2, 4}, []int{total, seen, learned, reviews})
	var day1, day2 int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT
		(SELECT reviews FROM assignment_daily_reviews WHERE assignment_id = $1 AND day = '2026-03-01'),
		(SELECT reviews FROM assignment_daily_reviews WHERE assignment_id = $1 AND day = '2026-03-02')`,
		b.assignment).Scan(&day1, &day2))
	require.Equal(t, []int{2, 2}, []int{day1, day2})

	err := h.Handle(ctx, delivery(t, events.AssignmentCompleted, events.SubscriberProgress, events.AssignmentCompletedPayload{}))
	require.True(t, outbox.IsPermanent(err))
}

// TestProgressFollowsDeckEdits: an edit of an assigned deck changes the
// assignment's totals by its increments, once per event, before or after
// the assignment's creation is counted.
func TestProgressFollowsDeckEdits(t *testing.T) {
	ctx, b := setup(t)
	h := b.handlers[events.SubscriberProgress]
	edit := func(total, seen, learned int) outbox.Delivery {
		return delivery(t, events.DeckEntriesChanged, events.SubscriberProgress, events.DeckEntriesChangedPayload{
			Assignments: []events.DeckAssignmentChange{{AssignmentID: b.assignment, LearnerID: b.learner.ID, Total: total, Seen: seen, Learned: learned}}})
	}
	steps := []outbox.Delivery{
		edit(-1, -1, -1), // a learned entry removed, delivered before the creation
		delivery(t, events.AssignmentCreated, events.SubscriberProgress, events.AssignmentCreatedPayload{
			Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}, Cards: 25, CardsSeen: 2, CardsLearned: 2}),
		edit(3, 0, 0), // three entries added
		delivery(t, events.DeckEntriesChanged, events.SubscriberProgress, events.DeckEntriesChangedPayload{Changed: 1}), // text only
	}
	for _, d := range steps {
		require.NoError(t, h.Handle(ctx, d))
		require.NoError(t, h.Handle(ctx, d), "a redelivery changes nothing")
	}
	var total, seen, learned int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT cards_total, cards_seen, cards_learned
		FROM assignment_progress WHERE assignment_id = $1`, b.assignment).Scan(&total, &seen, &learned))
	require.Equal(t, []int{27, 1, 1}, []int{total, seen, learned})
}

func TestDueSoonReminderIsCancelledByCompletion(t *testing.T) {
	ctx, b := setup(t)
	var due time.Time
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT due_at FROM assignments WHERE id = $1", b.assignment).Scan(&due))
	h := b.handlers[events.SubscriberReminder]
	remind := func() outbox.Delivery {
		return delivery(t, events.ReminderDueSoon, events.SubscriberReminder,
			events.ReminderDueSoonPayload{AssignmentID: b.assignment, LearnerID: b.learner.ID, DueAt: due})
	}
	require.NoError(t, h.Handle(ctx, remind()))
	msgs, err := b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1)
	require.Equal(t, "Due tomorrow: Core English 01", msgs[0].Subject)
	require.Equal(t, b.learner.Email, msgs[0].To[0].Address)

	stale := delivery(t, events.ReminderDueSoon, events.SubscriberReminder,
		events.ReminderDueSoonPayload{AssignmentID: b.assignment, LearnerID: b.learner.ID, DueAt: due.Add(-time.Hour)})
	require.NoError(t, h.Handle(ctx, stale), "a reminder for a due date that changed is dropped")
	_, err = b.pool.Exec(ctx, "UPDATE assignments SET completed_at = now() WHERE id = $1", b.assignment)
	require.NoError(t, err)
	require.NoError(t, h.Handle(ctx, remind()), "completion cancels the reminder")
	msgs, err = b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 1)

	require.NoError(t, b.handlers[events.SubscriberCongratulation].Handle(ctx, delivery(t, events.AssignmentCompleted,
		events.SubscriberCongratulation, events.AssignmentCompletedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}})))
	msgs, err = b.mailpit.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	require.Equal(t, "Well done: you finished Core English 01", msgs[0].Subject)
	require.Equal(t, b.learner.Email, msgs[0].To[0].Address)
}

// TestConsumersWriteTheirClocksInstant: the instants the consumers write
// (the progress row's updated_at, a webhook attempt's at, an endpoint's
// disabled_at) come from their clock, not from the database's now().
func TestConsumersWriteTheirClocksInstant(t *testing.T) {
	ctx, b := setup(t)
	stub := clocktest.New(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC))
	deps := b.deps
	deps.Clock = stub
	handlers := Handlers(deps)

	require.NoError(t, handlers[events.SubscriberProgress].Handle(ctx, delivery(t, events.ReviewSubmitted, events.SubscriberProgress,
		events.ReviewSubmittedPayload{Review: events.Review{LearnerID: b.learner.ID, StateBefore: 0, StateAfter: 1, StudyDay: "2026-03-02"},
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
		events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID}, Cards: 25})))
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
