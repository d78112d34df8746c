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
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
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
	// Both of cards[0]'s reviews undone, last first; cards[2] has two, neither undone.
	for range 2 {
		code, body := f.call(t, (*Service).UndoReview, http.MethodPost, "/UndoReview", f.learner, `{"card_id":"`+cards[0].String()+`"}`)
		require.Equal(t, http.StatusOK, code, body)
	}
	earlier := f.review(t, cards[2], 3)
	f.clock.Set(f.clock.Now().Add(5 * time.Minute))
	f.review(t, cards[2], 3)
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
		{"every review undone", f.learner, `{"card_id":"` + cards[0].String() + `"}`, http.StatusConflict, "Already undone"},
		{"the last, undone, by id", f.learner, body2(cards[0], second["review_id"]), http.StatusConflict, "Already undone"},
		{"the first, undone, by id", f.learner, body2(cards[0], first["review_id"]), http.StatusConflict, "Already undone"},
		{"an earlier review while the later is not undone", f.learner, body2(cards[2], earlier["review_id"]),
			http.StatusConflict, "Not the last review"},
		{"another card's review", f.learner, body2(cards[2], first["review_id"]), http.StatusConflict, "Not the last review"},
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

// TestUndoReviewWalksBackThreeReviews undoes three reviews one after the
// other, as U pressed three times in a session does: card a rated Again (a
// learning step brings it back), card b Good, then a Good. Each undo names
// its review (as the web client does) and takes back the last review not
// undone: the card's whole FSRS state is the one before that review at each
// step, each undo enqueues one review.undone under the learner that names
// that review as the log recorded it, and once drained the projections are
// as before the first review. A fourth undo is refused and changes nothing.
func TestUndoReviewWalksBackThreeReviews(t *testing.T) {
	ctx, f := setup(t)
	assignment := f.assign(t)
	cards := f.cards(t)
	a, b := cards[0], cards[1]
	d := f.drainer(t, events.SubscriberProgress, events.SubscriberActivity)
	drain := func() {
		t.Helper()
		_, err := d.Run(ctx)
		require.NoError(t, err)
	}
	drain()
	untouched := f.projections(t, assignment)
	state := func(card uuid.UUID) string {
		var s string
		require.NoError(t, f.pool.QueryRow(ctx, `SELECT concat_ws('|', state, due, stability, difficulty, elapsed_days,
			scheduled_days, reps, lapses, step, coalesce(last_review::text, 'never'), suspended) FROM cards WHERE id = $1`, card).Scan(&s))
		return s
	}

	reviews := []struct {
		card   uuid.UUID
		rating int
	}{{a, 1}, {b, 3}, {a, 3}}
	before := make([]string, len(reviews))
	ids := make([]int64, len(reviews))
	for i, r := range reviews {
		before[i] = state(r.card)
		f.clock.Advance(time.Minute)
		ids[i] = int64(f.review(t, r.card, r.rating)["review_id"].(float64))
	}
	require.NotEqual(t, before[0], before[2], "a's Again changed it")
	drain()
	require.NotEqual(t, untouched, f.projections(t, assignment))

	enqueued := f.count(t, "SELECT count(*) FROM outbox_events")
	for i := len(reviews) - 1; i >= 0; i-- {
		r := reviews[i]
		f.clock.Advance(time.Second)
		code, body := f.call(t, (*Service).UndoReview, http.MethodPost, "/UndoReview", f.learner,
			fmt.Sprintf(`{"card_id":%q,"review_id":%d}`, r.card, ids[i]))
		require.Equal(t, http.StatusOK, code, body)
		require.EqualValues(t, ids[i], body["review_id"])
		require.Equal(t, before[i], state(r.card), "undo of review %d: the card as before it", i+1)

		// The undo's one event: review.undone of that review, as logged.
		var topic, key string
		var payload []byte
		require.NoError(t, f.pool.QueryRow(ctx, "SELECT topic, ordering_key, payload FROM outbox_events ORDER BY id DESC LIMIT 1").
			Scan(&topic, &key, &payload))
		require.Equal(t, events.ReviewUndone, topic)
		require.Equal(t, f.learner.String(), key)
		var got events.ReviewUndonePayload
		require.NoError(t, json.Unmarshal(payload, &got))
		want := events.ReviewUndonePayload{Review: events.Review{ReviewID: ids[i], CardID: r.card, LearnerID: f.learner,
			LexemeID: got.LexemeID, Rating: r.rating, StudyDay: "2026-03-02"},
			UndoneAt: f.clock.Now(), AssignmentIDs: []uuid.UUID{assignment}, LaterAssignmentIDs: []uuid.UUID{}}
		require.NoError(t, f.pool.QueryRow(ctx, "SELECT state_before, state_after, reviewed_at FROM review_log WHERE id = $1", ids[i]).
			Scan(&want.StateBefore, &want.StateAfter, &want.ReviewedAt))
		require.True(t, want.ReviewedAt.Equal(got.ReviewedAt) && want.UndoneAt.Equal(got.UndoneAt))
		want.ReviewedAt, want.UndoneAt = got.ReviewedAt, got.UndoneAt
		require.Equal(t, want, got, "the event of the undo of review %d", i+1)
	}
	require.Equal(t, []int64{ids[2], ids[1], ids[0]}, pgtest.Column[int64](t, f.pool, "SELECT review_id FROM review_undo ORDER BY undone_at"),
		"undone last first")
	require.Equal(t, enqueued+3, f.count(t, "SELECT count(*) FROM outbox_events"), "one event per undo")
	drain()
	require.Equal(t, untouched, f.projections(t, assignment), "every projection as before the reviews")

	// Nothing is left to undo: refused, nothing changed.
	rows := func() string {
		var s string
		require.NoError(t, f.pool.QueryRow(ctx, `SELECT concat_ws(',', (SELECT count(*) FROM review_undo),
			(SELECT count(*) FROM outbox_events), (SELECT string_agg(concat(id, state, due, reps, step), ';' ORDER BY id) FROM cards))`).Scan(&s))
		return s
	}
	was := rows()
	for _, card := range []uuid.UUID{a, b} {
		code, body := f.call(t, (*Service).UndoReview, http.MethodPost, "/UndoReview", f.learner, `{"card_id":"`+card.String()+`"}`)
		require.Equal(t, http.StatusConflict, code, body)
		require.Equal(t, "Already undone", body["title"])
	}
	require.Equal(t, was, rows())
}
