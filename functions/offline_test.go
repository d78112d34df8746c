package functions

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
)

// reviewAt submits rating of card as made at the RFC 3339 instant at.
func (f fixture) reviewAt(t testing.TB, card uuid.UUID, rating int, at string) (int, map[string]any) {
	t.Helper()
	return f.call(t, (*Service).SubmitReview, http.MethodPost, "/SubmitReview", f.learner,
		`{"card_id":"`+card.String()+`","rating":`+string(rune('0'+rating))+`,"reviewed_at":"`+at+`"}`)
}

func TestOfflineReviewIsScheduledAtItsInstant(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	card := f.cards(t)[0]
	// 2026-03-02 09:00 UTC is 10:00 in Paris; two days before at 02:30
	// local time counts for the study day before that (04:00 rollover).
	at := time.Date(2026, 2, 28, 1, 30, 0, 0, time.UTC)
	code, body := f.reviewAt(t, card, 4, at.Format(time.RFC3339))
	require.Equal(t, http.StatusOK, code, body)
	var reviewedAt, lastReview, due time.Time
	var days int
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT r.reviewed_at, c.last_review, c.due, c.scheduled_days
		FROM review_log r JOIN cards c ON c.id = r.card_id WHERE r.card_id = $1`, card).Scan(&reviewedAt, &lastReview, &due, &days))
	require.True(t, at.Equal(reviewedAt), "the log keeps the review's instant")
	require.True(t, at.Equal(lastReview))
	require.True(t, at.Add(time.Duration(days)*24*time.Hour).Equal(due), "the interval runs from the review's instant")
	var p events.ReviewSubmittedPayload
	require.NoError(t, f.pool.QueryRow(ctx,
		"SELECT payload FROM outbox_events WHERE topic = $1", events.ReviewSubmitted).Scan(&p))
	require.Equal(t, "2026-02-27", p.StudyDay)
	require.True(t, at.Equal(p.ReviewedAt))

	// A client clock up to 5 minutes ahead counts as now.
	second := f.cards(t)[1]
	code, body = f.reviewAt(t, second, 3, f.clock.Now().Add(4*time.Minute).Format(time.RFC3339))
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM review_log WHERE card_id = $1 AND reviewed_at = $2", second, f.clock.Now()))
}

func TestOfflineReviewRefusalsChangeNothing(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	cards := f.cards(t)
	f.review(t, cards[0], 3) // cards[0] was last reviewed now
	now := f.clock.Now()
	before := f.snapshot(t)
	for _, tc := range []struct {
		name   string
		card   uuid.UUID
		at     string
		status int
	}{
		{"more than 5 minutes ahead", cards[1], now.Add(5*time.Minute + time.Second).Format(time.RFC3339Nano), http.StatusBadRequest},
		{"more than 7 days ago", cards[1], now.Add(-7*24*time.Hour - time.Second).Format(time.RFC3339Nano), http.StatusBadRequest},
		{"not a time", cards[1], "yesterday", http.StatusBadRequest},
		{"before the card's last review", cards[0], now.Add(-time.Minute).Format(time.RFC3339), http.StatusConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := f.reviewAt(t, tc.card, 3, tc.at)
			require.Equal(t, tc.status, code, body)
			if tc.status == http.StatusBadRequest {
				require.Equal(t, "reviewed_at", body["errors"].([]any)[0].(map[string]any)["field"], body)
			}
			require.Equal(t, before, f.snapshot(t))
		})
	}
}
