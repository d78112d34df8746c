package functions

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/consumers"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	authpkg "github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/seed"
	"github.com/lexora-app/lexora/pkg/testkit/mailpit"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// TestEndToEnd plays a teacher's enrolment of a new learner, an assignment
// and the learner's session over HTTP, runs one drain, and checks every
// downstream effect, once: the two emails in
// a real SMTP sink, the two signed webhooks at the teacher's receiver and the
// progress projection.
func TestEndToEnd(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	_, err := seed.Load(ctx, pool, clock.System{})
	require.NoError(t, err)
	svc, err := NewService(pool, devVerifier(t), clock.System{}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	svc.webhooks.AllowHTTP = true // the test's receiver is plain HTTP on loopback
	mux := http.NewServeMux()
	mux.HandleFunc("/RegisterWebhookEndpoint", svc.RegisterWebhookEndpoint)
	mux.HandleFunc("/EnrollLearner", svc.EnrollLearner)
	mux.HandleFunc("/CreateAssignment", svc.CreateAssignment)
	mux.HandleFunc("/SubmitReview", svc.SubmitReview)
	mux.HandleFunc("/GetSchedule", svc.GetSchedule)
	mux.HandleFunc("/SetNewCardsPerDay", svc.SetNewCardsPerDay)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	// Seeded users sign in with their id as subject; the newcomer with a
	// provider subject of their own and a verified email, which links the
	// account enrolment created.
	tokens := map[uuid.UUID]string{}
	call := func(method, path string, actor uuid.UUID, body any, out any) {
		t.Helper()
		var buf bytes.Buffer
		require.NoError(t, json.NewEncoder(&buf).Encode(body))
		req, err := http.NewRequest(method, srv.URL+path, &buf)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		auth := bearer(t, actor)
		if tok, ok := tokens[actor]; ok {
			auth = "Bearer " + tok
		}
		req.Header.Set("Authorization", auth)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer func() { require.NoError(t, resp.Body.Close()) }()
		require.Less(t, resp.StatusCode, 300)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}

	// The teacher's webhook receiver verifies every signature.
	var secret atomic.Value
	var hooks []string
	var hooksMu sync.Mutex
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		wh, err := standardwebhooks.NewWebhook(secret.Load().(string))
		if err != nil || wh.Verify(body, r.Header) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		var m struct{ Type string }
		_ = json.Unmarshal(body, &m)
		hooksMu.Lock()
		hooks = append(hooks, m.Type)
		hooksMu.Unlock()
	}))
	defer receiver.Close()
	var ep api.WebhookEndpoint
	call(http.MethodPost, "/RegisterWebhookEndpoint", seed.TeacherID, map[string]any{"url": receiver.URL}, &ep)
	secret.Store(*ep.Secret)

	var enrolment api.Enrollment
	call(http.MethodPost, "/EnrollLearner", seed.TeacherID, map[string]any{
		"class_id": seed.ClassID, "email": "newcomer@lexora.test", "display_name": "Ana Newcomer", "timezone": "America/Sao_Paulo"}, &enrolment)
	learner := seed.User{ID: enrolment.LearnerId, Email: "newcomer@lexora.test"}
	tok, err := authpkg.DevToken("lexora-dev", "firebase-uid-ana", learner.Email, time.Hour)
	require.NoError(t, err)
	tokens[learner.ID] = tok
	var deck uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, "SELECT id FROM decks ORDER BY title LIMIT 1").Scan(&deck))
	var assigned api.ClassAssignment
	call(http.MethodPost, "/CreateAssignment", seed.TeacherID, map[string]any{"class_id": seed.ClassID,
		"learner_id": learner.ID, "deck_id": deck, "due_at": time.Now().Add(72 * time.Hour).Format(time.RFC3339)}, &assigned)
	require.Len(t, assigned.Learners, 1)
	a := *assigned.Learners[0].Assignment
	require.Equal(t, seed.DeckSize, a.Cards)

	// The demo class serves seed.DemoNewCardsPerDay new cards a day: the
	// teacher raises it so that the deck can be finished today.
	var limit api.NewCardsPerDay
	call(http.MethodPost, "/SetNewCardsPerDay", seed.TeacherID, map[string]any{"class_id": seed.ClassID,
		"new_cards_per_day": seed.DeckSize}, &limit)
	var sched api.Schedule
	call(http.MethodGet, "/GetSchedule?limit=200", learner.ID, nil, &sched)
	require.Len(t, sched.Due, seed.DeckSize)
	require.Equal(t, seed.DeckSize, sched.NewCardsLeft)
	var last api.ReviewResult
	for _, c := range sched.Due {
		call(http.MethodPost, "/SubmitReview", learner.ID, map[string]any{"card_id": c.CardId, "rating": 4}, &last)
	}
	require.Equal(t, []uuid.UUID{a.Id}, last.CompletedAssignments)

	port, box := mailpit.Start(t)
	sender, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: port, TLS: "none", From: "Lexora <no-reply@lexora.app>", Timeout: 5 * time.Second})
	require.NoError(t, err)
	drainer, err := outbox.NewDrainer(pool, consumers.Handlers(consumers.Deps{Pool: pool, Mail: sender,
		Webhooks: webhooks.NewSender(webhooks.Config{Timeout: 5 * time.Second, AllowHTTP: true}, clock.System{})}),
		outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	rep, err := drainer.Run(ctx)
	require.NoError(t, err)
	// learner.enrolled to email and webhook; assignment.created to
	// progress, email and webhook; 25 review.submitted to progress and
	// activity; assignment.completed to email, webhook, activity and
	// congratulation-email; then, enqueued by the activity consumer, one
	// streak.extended and two achievement.earned (first review, finished
	// early) to the feed. The daily reminders (the seeded learners' three and
	// the newcomer's, each to reminder-email and reminder-chain) and the
	// due-soon reminder wait for their time.
	require.Equal(t, 2+3+2*seed.DeckSize+4+3, rep.Delivered)
	require.Equal(t, []outbox.Backlog{
		{Subscriber: "reminder-chain", Pending: int64(len(seed.Learners)) + 1},
		{Subscriber: "reminder-email", Pending: int64(len(seed.Learners)) + 2},
	}, rep.Backlog, "reminders wait for their time: nothing is due, nothing ages")
	require.Zero(t, rep.Retried+rep.Dead)
	require.ElementsMatch(t, []string{"learner.enrolled", "assignment.created", "assignment.completed"}, hooks)

	msgs, err := box.Messages(ctx)
	require.NoError(t, err)
	var subjects []string
	for _, m := range msgs {
		subjects = append(subjects, m.To[0].Address+": "+m.Subject)
	}
	require.ElementsMatch(t, []string{
		"newcomer@lexora.test: Welcome to Demo class",
		"newcomer@lexora.test: New assignment: Core English 01",
		"newcomer@lexora.test: Well done: you finished Core English 01",
		"ada@lexora.test: Ana Newcomer finished Core English 01",
	}, subjects)

	// Every projection row once.
	var streak, achievements, feed int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT current FROM learner_streaks WHERE learner_id = $1),
		(SELECT count(*) FROM learner_achievements WHERE learner_id = $1), (SELECT count(*) FROM learner_feed WHERE learner_id = $1)`,
		learner.ID).Scan(&streak, &achievements, &feed))
	require.Equal(t, []int{1, 2, 3}, []int{streak, achievements, feed})
	var subject string
	require.NoError(t, pool.QueryRow(ctx, "SELECT auth_subject FROM users WHERE id = $1", learner.ID).Scan(&subject))
	require.Equal(t, "firebase-uid-ana", subject, "the first sign-in linked the enrolled account")
	rep, err = drainer.Run(ctx)
	require.NoError(t, err)
	require.Zero(t, rep.Delivered, "nothing is delivered twice")

	var seen, learned, reviews int
	require.NoError(t, pool.QueryRow(ctx, `SELECT cards_seen, cards_learned, reviews FROM assignment_progress
		WHERE assignment_id = $1`, a.Id).Scan(&seen, &learned, &reviews))
	require.Equal(t, []int{seed.DeckSize, seed.DeckSize, seed.DeckSize}, []int{seen, learned, reviews})
}
