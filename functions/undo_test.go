package functions

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/consumers"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
)

// projections is what the subscribers keep of the learner's reviews:
// assignment progress (seen, learned, reviews), reviews per study day of
// the assignment and of the learner, the streak and the achievements.
func (f fixture) projections(t *testing.T, assignment uuid.UUID) string {
	t.Helper()
	var s string
	require.NoError(t, f.pool.QueryRow(context.Background(), `SELECT concat_ws(' | ',
		(SELECT concat_ws(',', cards_seen, cards_learned, reviews) FROM assignment_progress WHERE assignment_id = $1),
		'assignment days ' || (SELECT string_agg(day || '=' || reviews, ',' ORDER BY day) FROM assignment_daily_reviews
			WHERE assignment_id = $1 AND reviews <> 0),
		'study days ' || (SELECT string_agg(day || '=' || reviews, ',' ORDER BY day) FROM learner_daily_activity WHERE learner_id = $2),
		'streak ' || (SELECT concat_ws(',', current, longest, last_day) FROM learner_streaks WHERE learner_id = $2),
		'achievements ' || (SELECT string_agg(code, ',' ORDER BY code) FROM learner_achievements WHERE learner_id = $2))`,
		assignment, f.learner).Scan(&s))
	return s
}

// twice hands every delivery to h two times in a row: the second is a
// redelivery, which must change nothing.
func twice(h outbox.Handler) outbox.Handler {
	return outbox.HandlerFunc(func(ctx context.Context, d outbox.Delivery) error {
		if err := h.Handle(ctx, d); err != nil {
			return err
		}
		return h.Handle(ctx, d)
	})
}

// TestUndoReviewTakesBackEveryProjection reviews, undoes and reviews again,
// over two study days, with a drain that hands every event to its
// subscriber twice, and checks the projections after each step; then every
// event is delivered once more, and nothing changes.
func TestUndoReviewTakesBackEveryProjection(t *testing.T) {
	ctx, f := setup(t)
	assignment := f.assign(t)
	cards := f.cards(t)
	handlers := consumers.Handlers(consumers.Deps{Pool: f.pool})
	subscribers := map[string]outbox.Handler{}
	for _, name := range []string{events.SubscriberProgress, events.SubscriberActivity, events.SubscriberFeed} {
		subscribers[name] = twice(handlers[name])
	}
	d, err := outbox.NewDrainer(f.pool, subscribers, outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	undo := func(card uuid.UUID) map[string]any {
		t.Helper()
		code, body := f.call(t, (*Service).UndoReview, http.MethodPost, "/UndoReview", f.learner, `{"card_id":"`+card.String()+`"}`)
		require.Equal(t, http.StatusOK, code, body)
		return body
	}
	const day1, day2 = "2026-03-02", "2026-03-03"
	for _, step := range []struct {
		name string
		act  func()
		want string
	}{
		{"a first review learns the card", func() { f.review(t, cards[0], 4) },
			"1,1,1 | assignment days " + day1 + "=1 | study days " + day1 + "=1 | streak 1,1," + day1 + " | achievements first_review"},
		{"its undo takes everything back", func() { undo(cards[0]) }, "0,0,0"},
		{"the card reviewed again", func() { f.review(t, cards[0], 3) },
			"1,0,1 | assignment days " + day1 + "=1 | study days " + day1 + "=1 | streak 1,1," + day1 + " | achievements first_review"},
		{"a review the next study day extends the streak", func() {
			f.clock.Set(time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC))
			f.review(t, cards[1], 4)
		}, "2,1,2 | assignment days " + day1 + "=1," + day2 + "=1 | study days " + day1 + "=1," + day2 + "=1 | streak 2,2," + day2 +
			" | achievements first_review"},
		{"its undo takes the study day and the streak back", func() { undo(cards[1]) },
			"1,0,1 | assignment days " + day1 + "=1 | study days " + day1 + "=1 | streak 1,1," + day1 + " | achievements first_review"},
		{"the same card again", func() { f.review(t, cards[1], 3) },
			"2,0,2 | assignment days " + day1 + "=1," + day2 + "=1 | study days " + day1 + "=1," + day2 + "=1 | streak 2,2," + day2 +
				" | achievements first_review"},
		{"a second review that day, undone, leaves the day", func() {
			f.clock.Set(f.clock.Now().Add(10 * time.Minute))
			f.review(t, cards[1], 3)
			undo(cards[1])
		}, "2,0,2 | assignment days " + day1 + "=1," + day2 + "=1 | study days " + day1 + "=1," + day2 + "=1 | streak 2,2," + day2 +
			" | achievements first_review"},
	} {
		step.act()
		_, err := d.Run(ctx)
		require.NoError(t, err)
		require.Equal(t, step.want, f.projections(t, assignment), step.name)
	}
	require.Zero(t, f.count(t, "SELECT count(*) FROM outbox_deliveries WHERE subscriber IN ('progress', 'activity', 'feed')"),
		"every delivery was acknowledged")
	require.Equal(t, 3, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.ReviewUndone))

	// Every event delivered once more, in id order, to each of its subscribers.
	want := f.projections(t, assignment)
	rows, err := f.pool.Query(ctx, "SELECT event_id, topic, payload FROM outbox_events ORDER BY id")
	require.NoError(t, err)
	type event struct {
		id      uuid.UUID
		topic   string
		payload json.RawMessage
	}
	var all []event
	for rows.Next() {
		var e event
		require.NoError(t, rows.Scan(&e.id, &e.topic, &e.payload))
		all = append(all, e)
	}
	require.NoError(t, rows.Err())
	for _, e := range all {
		for _, sub := range events.Subscriptions {
			if h := subscribers[sub.Subscriber]; sub.Topic == e.topic && h != nil {
				require.NoError(t, h.Handle(ctx, outbox.Delivery{ID: 1, Subscriber: sub.Subscriber, Attempt: 2,
					Event: outbox.Event{ID: e.id, Topic: e.topic, Payload: e.payload}}))
			}
		}
	}
	require.Equal(t, want, f.projections(t, assignment), "a redelivery of every event changes nothing")

	code, body := f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	require.EqualValues(t, 2, body["streak"].(map[string]any)["current"])
	require.EqualValues(t, 2, body["assignments"].([]any)[0].(map[string]any)["reviews"])
}

// An undo answers the card as restored, keeps an assignment it completed
// completed, and replays with its Idempotency-Key.
func TestUndoReviewAnswersTheRestoredCard(t *testing.T) {
	_, f := setup(t)
	assignment := f.assign(t)
	cards := f.cards(t)
	for _, c := range cards {
		f.review(t, c, 4)
	}
	last := f.review(t, cards[2], 1)
	require.Equal(t, "relearning", last["card"].(map[string]any)["state"])
	before := f.count(t, "SELECT count(*) FROM outbox_events")

	send := func() (int, map[string]any, http.Header) {
		rec := f.keyedCall(t, (*Service).UndoReview, "undo-1", f.learner,
			fmt.Sprintf(`{"card_id":%q,"review_id":%v}`, cards[2], last["review_id"]))
		var body map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
		return rec.Code, body, rec.Header()
	}
	code, body, _ := send()
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, last["review_id"], body["review_id"])
	require.Equal(t, "review", body["card"].(map[string]any)["state"], "back to the state Easy gave")
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM assignments WHERE id = $1 AND completed_at IS NOT NULL", assignment),
		"the assignment stays completed")
	require.Equal(t, before+1, f.count(t, "SELECT count(*) FROM outbox_events"))
	require.Equal(t, []string{events.ReviewUndone}, f.topics(t)[before:])

	again, replayed, header := send()
	require.Equal(t, http.StatusOK, again)
	require.Equal(t, body, replayed)
	require.Equal(t, "true", header.Get("Idempotent-Replayed"))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM review_undo"))
	require.Equal(t, before+1, f.count(t, "SELECT count(*) FROM outbox_events"))
}

func TestUndoReviewRejectsBadInputAndChangesNothing(t *testing.T) {
	ctx, f := setup(t)
	f.assign(t)
	cards := f.cards(t)
	first := f.review(t, cards[0], 3)
	f.clock.Set(f.clock.Now().Add(5 * time.Minute))
	second := f.review(t, cards[0], 3)
	code, body := f.call(t, (*Service).UndoReview, http.MethodPost, "/UndoReview", f.learner, `{"card_id":"`+cards[0].String()+`"}`)
	require.Equal(t, http.StatusOK, code, body)
	var foreign uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, `INSERT INTO cards (learner_id, lexeme_id, due)
		SELECT $1, id, now() FROM lexemes LIMIT 1 RETURNING id`, f.otherLearner).Scan(&foreign))

	state := func() string {
		var s string
		require.NoError(t, f.pool.QueryRow(ctx, `SELECT concat_ws(',', (SELECT count(*) FROM review_log),
			(SELECT count(*) FROM review_undo), (SELECT count(*) FROM outbox_events), (SELECT count(*) FROM outbox_deliveries),
			(SELECT count(*) FROM idempotency_keys),
			(SELECT string_agg(concat(id, state, due, stability, reps, lapses, step, last_review, suspended), ';' ORDER BY id) FROM cards))`).Scan(&s))
		return s
	}
	before := state()
	body2 := func(card uuid.UUID, review any) string {
		return fmt.Sprintf(`{"card_id":%q,"review_id":%v}`, card, review)
	}
	for _, tc := range []struct {
		name   string
		actor  uuid.UUID
		body   string
		status int
		title  string
	}{
		{"malformed JSON", f.learner, `{"card_id":`, http.StatusBadRequest, ""},
		{"no card", f.learner, `{"review_id":1}`, http.StatusBadRequest, ""},
		{"not a uuid", f.learner, `{"card_id":"cat"}`, http.StatusBadRequest, ""},
		{"review id zero", f.learner, body2(cards[1], 0), http.StatusBadRequest, ""},
		{"review id a string", f.learner, body2(cards[1], `"1"`), http.StatusBadRequest, ""},
		{"unknown field", f.learner, `{"card_id":"` + cards[1].String() + `","rating":3}`, http.StatusBadRequest, ""},
		{"no acting user", uuid.Nil, body2(cards[0], second["review_id"]), http.StatusUnauthorized, ""},
		{"a teacher", f.teacher, body2(cards[0], second["review_id"]), http.StatusNotFound, ""},
		{"another learner's card", f.learner, `{"card_id":"` + foreign.String() + `"}`, http.StatusNotFound, ""},
		{"the card, as another learner", f.otherLearner, `{"card_id":"` + cards[0].String() + `"}`, http.StatusNotFound, ""},
		{"an unknown card", f.learner, `{"card_id":"` + uuid.NewString() + `"}`, http.StatusNotFound, ""},
		{"a card without a review", f.learner, `{"card_id":"` + cards[1].String() + `"}`, http.StatusConflict, "Nothing to undo"},
		{"twice", f.learner, `{"card_id":"` + cards[0].String() + `"}`, http.StatusConflict, "Already undone"},
		{"twice, by id", f.learner, body2(cards[0], second["review_id"]), http.StatusConflict, "Already undone"},
		{"an earlier review after the later was undone", f.learner, body2(cards[0], first["review_id"]),
			http.StatusConflict, "Not the last review"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.keyedCall(t, (*Service).UndoReview, "k-"+strings.NewReplacer(" ", "-", "'", "", ",", "").Replace(tc.name), tc.actor, tc.body)
			var body map[string]any
			require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body))
			require.Equal(t, tc.status, rec.Code, body)
			require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
			if tc.title != "" {
				require.Equal(t, tc.title, body["title"])
			}
			require.Equal(t, before, state(), "a refused undo changes nothing")
		})
	}
}
