package functions

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

// submitted returns the payload of the latest review.submitted event.
func (f fixture) submitted(t *testing.T) events.ReviewSubmittedPayload {
	t.Helper()
	var p events.ReviewSubmittedPayload
	require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT payload FROM outbox_events
		WHERE topic = $1 ORDER BY created_at DESC, event_id LIMIT 1`, events.ReviewSubmitted).Scan(&p))
	return p
}

// The input: a learner in Asia/Tokyo reviews a Review card at 08:30
// and 09:30 local time, 23:30 and 00:30 UTC: one study day, elapsed 0.
func TestReviewLogCountsElapsedStudyDaysInTheLearnersZone(t *testing.T) {
	ctx, f := setup(t)
	_, err := f.pool.Exec(ctx, "UPDATE users SET timezone = 'Asia/Tokyo' WHERE id = $1", f.learner)
	require.NoError(t, err)
	f.assign(t)
	card := f.cards(t)[0]
	f.clock.Set(time.Date(2026, 3, 2, 23, 30, 0, 0, time.UTC))
	require.Equal(t, "review", f.review(t, card, 4)["card"].(map[string]any)["state"])
	f.clock.Set(time.Date(2026, 3, 3, 0, 30, 0, 0, time.UTC))
	f.review(t, card, 3)
	require.Equal(t, 1, f.count(t, `SELECT count(*) FROM review_log WHERE card_id = $1 AND state_before = 2
		AND elapsed_days = 0`, card), "08:30 and 09:30 in Tokyo are one study day")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM cards WHERE id = $1 AND elapsed_days = 0", card))
	require.Equal(t, "2026-03-03", f.submitted(t).StudyDay)
}

// The input: two function instances whose clocks differ by a second
// review one card in quick succession.
func TestReviewOnAnInstanceWhoseClockIsBehindIsRecorded(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	card := f.cards(t)[0]
	behind := f
	behind.svc, _ = NewService(f.pool, devVerifier(t), behindClock{f.clock, time.Second}, slog.New(slog.DiscardHandler))
	f.review(t, card, 3)
	behind.review(t, card, 3)
	var first, second time.Time
	require.NoError(t, f.pool.QueryRow(ctx, `SELECT min(reviewed_at), max(reviewed_at)
		FROM review_log WHERE card_id = $1`, card).Scan(&first, &second))
	require.Equal(t, 2, f.count(t, "SELECT count(*) FROM review_log WHERE card_id = $1", card))
	require.True(t, second.Equal(first), "the later review is taken at the card's last review, %s and %s", first, second)
	require.True(t, second.Equal(f.clock.Now()))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM cards WHERE id = $1 AND reps = 2 AND last_review = $2",
		card, f.clock.Now()))
}

// The input: SubmitReview answered "…48.693124308Z" where the stored
// row and GetSchedule said "…48.693124Z".
func TestReviewInstantsAreOneValueEverywhere(t *testing.T) {
	_, f := setup(t)
	f.assign(t)
	card := f.cards(t)[0]
	f.clock.Set(time.Date(2026, 3, 2, 9, 0, 48, 693124308, time.UTC))
	const due = "2026-03-02T09:01:48.693124Z" // Again: the first learning step, 1 minute
	body := `{"card_id":"` + card.String() + `","rating":1}`
	answer := f.keyed(t, "again", f.learner, body)
	require.Equal(t, http.StatusOK, answer.Code, answer.Body.String())
	var got api.ReviewResult
	require.NoError(t, json.Unmarshal(answer.Body.Bytes(), &got))
	require.Equal(t, due, got.Card.Due.Format(time.RFC3339Nano))
	require.Contains(t, answer.Body.String(), `"due":"`+due+`"`)
	replay := f.keyed(t, "again", f.learner, body)
	require.Equal(t, answer.Body.String(), replay.Body.String())

	p := f.submitted(t)
	require.Equal(t, due, p.Due.UTC().Format(time.RFC3339Nano))
	require.Equal(t, "2026-03-02T09:00:48.693124Z", p.ReviewedAt.UTC().Format(time.RFC3339Nano))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM cards WHERE id = $1 AND due = $2", card, got.Card.Due))

	f.clock.Set(f.clock.Now().Add(time.Hour))
	code, schedule := f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "2026-03-02T10:00:48.693124Z", schedule["now"])
	var listed []string
	for _, c := range schedule["due"].([]any) {
		if c.(map[string]any)["card_id"] == card.String() {
			listed = append(listed, c.(map[string]any)["due"].(string))
		}
	}
	require.Equal(t, []string{due}, listed)
}

// GetSchedule's forecast counts study days (04:00 to 04:00 in the learner's
// zone), as streaks and FSRS do, not local calendar days.
func TestForecastDaysAreStudyDays(t *testing.T) {
	ctx, f := setup(t) // the learner is in Europe/Paris; now is 10:00 there
	f.assign(t)
	cards := f.cards(t)
	setDue := func(card uuid.UUID, due string) {
		_, err := f.pool.Exec(ctx, "UPDATE cards SET due = $2 WHERE id = $1", card, due)
		require.NoError(t, err)
	}
	setDue(cards[0], "2026-03-03T02:00:00+01:00") // tonight, before 04:00: today's study day
	setDue(cards[1], "2026-03-03T05:00:00+01:00")
	setDue(cards[2], "2026-03-02T06:00:00+01:00") // overdue
	forecast := func() []any {
		code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule?days=2", f.learner, "")
		require.Equal(t, http.StatusOK, code, body)
		return body["forecast"].([]any)
	}
	require.Equal(t, []any{
		map[string]any{"date": "2026-03-02", "due": 2.0},
		map[string]any{"date": "2026-03-03", "due": 1.0},
	}, forecast())

	f.clock.Set(time.Date(2026, 3, 3, 1, 0, 0, 0, time.UTC)) // 02:00 in Paris: still the 2nd's study day
	require.Equal(t, []any{
		map[string]any{"date": "2026-03-02", "due": 2.0},
		map[string]any{"date": "2026-03-03", "due": 1.0},
	}, forecast())
}

// behindClock is another function instance's clock: the fixture's stub,
// lag behind it.
type behindClock struct {
	stub *clocktest.Stub
	lag  time.Duration
}

func (c behindClock) Now() time.Time { return c.stub.Now().Add(-c.lag) }

func (c behindClock) NowOrNil() *time.Time {
	now := c.Now()
	return &now
}

// TestCardStepIsNeverNegative: the cards table refuses a negative step
// (migration 00017), so a review never meets one.
func TestCardStepIsNeverNegative(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	card := f.cards(t)[0]
	_, err := f.pool.Exec(ctx, "UPDATE cards SET state = 1, step = -1 WHERE id = $1", card)
	require.ErrorContains(t, err, "cards_step_nonnegative")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM cards WHERE id = $1 AND state = 0 AND step = 0", card))
}
