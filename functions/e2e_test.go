package functions

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/consumers"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/mailpit"
	"github.com/lexora-app/lexora/pkg/platform/pgtest"
	"github.com/lexora-app/lexora/pkg/seed"
)

// TestEndToEnd plays a teacher's assignment and a learner's session over
// HTTP, runs one drain, and checks every downstream effect: the two emails in
// a real SMTP sink and the progress projection.
func TestEndToEnd(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	_, err := seed.Load(ctx, pool)
	require.NoError(t, err)
	svc, err := NewService(pool, time.Now, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	mux := http.NewServeMux()
	mux.HandleFunc("/CreateAssignment", svc.CreateAssignment)
	mux.HandleFunc("/SubmitReview", svc.SubmitReview)
	mux.HandleFunc("/GetSchedule", svc.GetSchedule)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	call := func(method, path string, actor uuid.UUID, body any, out any) {
		t.Helper()
		var buf bytes.Buffer
		require.NoError(t, json.NewEncoder(&buf).Encode(body))
		req, err := http.NewRequest(method, srv.URL+path, &buf)
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(DevUserHeader, actor.String())
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		require.Less(t, resp.StatusCode, 300)
		require.NoError(t, json.NewDecoder(resp.Body).Decode(out))
	}

	learner := seed.Learners[1]
	var deck uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, "SELECT id FROM decks ORDER BY title LIMIT 1").Scan(&deck))
	var a Assignment
	call(http.MethodPost, "/CreateAssignment", seed.TeacherID, map[string]any{
		"learner_id": learner.ID, "deck_id": deck, "due_at": time.Now().Add(72 * time.Hour).Format(time.RFC3339)}, &a)
	require.Equal(t, seed.DeckSize, a.Cards)

	var sched Schedule
	call(http.MethodGet, "/GetSchedule?limit=200", learner.ID, nil, &sched)
	require.Len(t, sched.Due, seed.DeckSize)
	var last ReviewResult
	for _, c := range sched.Due {
		call(http.MethodPost, "/SubmitReview", learner.ID, map[string]any{"card_id": c.CardID, "rating": 4}, &last)
	}
	require.Equal(t, []uuid.UUID{a.ID}, last.CompletedAssignments)

	port, box := mailpit.Start(t)
	sender, err := mail.NewSMTP(mail.Config{Host: "127.0.0.1", Port: port, TLS: "none", From: "Lexora <no-reply@lexora.app>", Timeout: 5 * time.Second})
	require.NoError(t, err)
	drainer, err := outbox.NewDrainer(pool, consumers.Handlers(consumers.Deps{Pool: pool, Mail: sender}),
		outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	rep, err := drainer.Run(ctx)
	require.NoError(t, err)
	// assignment.created to progress and email, 25 review.submitted to
	// progress, assignment.completed to email.
	require.Equal(t, 2+seed.DeckSize+1, rep.Delivered)
	require.Zero(t, rep.Retried+rep.Dead)

	msgs, err := box.Messages(ctx)
	require.NoError(t, err)
	require.Len(t, msgs, 2)
	recipients := []string{msgs[0].To[0].Address, msgs[1].To[0].Address}
	require.ElementsMatch(t, []string{learner.Email, seed.Teacher.Email}, recipients)

	var seen, learned, reviews int
	require.NoError(t, pool.QueryRow(ctx, `SELECT cards_seen, cards_learned, reviews FROM assignment_progress
		WHERE assignment_id = $1`, a.ID).Scan(&seen, &learned, &reviews))
	require.Equal(t, []int{seed.DeckSize, seed.DeckSize, seed.DeckSize}, []int{seen, learned, reviews})
}
