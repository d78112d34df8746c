package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/study"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestFSRSReplayLeavesOutUndoneReviews: reviews and undos made by
// pkg/study replay without a violation once the undone reviews are left
// out (a card reviewed again after an undo starts from the restored
// state; a card whose only review was undone is new again); a card
// restored wrongly, or an undo recorded without restoring its card, is a
// violation that names the card.
func TestFSRSReplayLeavesOutUndoneReviews(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	clock := clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	sched, err := learning.NewScheduler(learning.DefaultParams(), clock)
	require.NoError(t, err)
	st := study.New(clock, sched)
	learner := pgtest.User(t, pool, "l@example.com", "L", account.Learner, "Europe/Berlin")
	rows, err := pool.Query(ctx, `WITH l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		VALUES ('cat', 'noun', 'a feline', 'test'), ('run', 'verb', 'move fast', 'test'), ('sea', 'noun', 'salt water', 'test') RETURNING id, lemma)
		INSERT INTO cards (learner_id, lexeme_id, due) SELECT $1, id, $2 FROM l ORDER BY lemma RETURNING id`, learner, clock.Now())
	require.NoError(t, err)
	cards, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	require.NoError(t, err)
	again, redone, kept := cards[0], cards[1], cards[2]
	me := study.Learner{ID: learner, Timezone: "Europe/Berlin"}
	review := func(card uuid.UUID, r learning.Rating) {
		t.Helper()
		clock.Advance(time.Minute)
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, _, err := st.Review(ctx, tx, me, study.ReviewRequest{CardID: card, Rating: r})
			return err
		}))
	}
	undo := func(card uuid.UUID) {
		t.Helper()
		clock.Advance(time.Minute)
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			_, _, err := st.Undo(ctx, tx, me, study.UndoRequest{CardID: card})
			return err
		}))
	}
	review(redone, learning.Good)
	undo(redone)
	review(redone, learning.Easy)
	review(redone, learning.Good)
	review(again, learning.Again)
	undo(again)
	review(kept, learning.Good)
	review(kept, learning.Good)

	fsrs := func() *findings {
		t.Helper()
		f := &findings{}
		require.NoError(t, (&checker{s: &stack{pool: pool}}).fsrs(ctx, f))
		return f
	}
	f := fsrs()
	require.Zero(t, f.violations(), f.Invariants[0].Violations)
	require.Equal(t, 2, f.Undone)
	require.Equal(t, 6+3, f.Invariants[0].Checked, "six reviews and three cards")

	_, err = pool.Exec(ctx, `UPDATE cards SET due = due + interval '1 day' WHERE id = $1`, again)
	require.NoError(t, err)
	f = fsrs()
	require.Equal(t, 1, f.violations(), f.Invariants[0].Violations)
	require.Contains(t, f.Invariants[0].Violations[0], again.String(), "a card restored to another state than before its undone review")

	_, err = pool.Exec(ctx, `INSERT INTO review_undo (review_id, card_id, learner_id, undone_at)
		SELECT max(id), card_id, learner_id, now() FROM review_log WHERE card_id = $1 GROUP BY card_id, learner_id`, kept)
	require.NoError(t, err)
	f = fsrs()
	require.Equal(t, 2, f.violations(), f.Invariants[0].Violations)
	require.Contains(t, strings.Join(f.Invariants[0].Violations, "\n"), kept.String(), "an undo recorded but its card not restored")
}

// TestWantCountsTakeBackUndos: the projections' counts are the events'
// sum, an undo taking back its review's review and change of state from
// the assignments that counted it, and its change of state from the
// assignments made after it.
func TestWantCountsTakeBackUndos(t *testing.T) {
	t.Parallel()
	learner, a, later := uuid.New(), uuid.New(), uuid.New()
	var evs []event
	add := func(topic string, payload any) {
		b, err := json.Marshal(payload)
		require.NoError(t, err)
		evs = append(evs, event{id: uuid.New(), topic: topic, payload: b})
	}
	add(events.AssignmentCreated, events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: a, LearnerID: learner}, CardsSeen: 2, CardsLearned: 1})
	// New -> Learning, then Learning -> Review, that one undone; Review ->
	// Relearning on another day.
	add(events.ReviewSubmitted, events.ReviewSubmittedPayload{Review: events.Review{ReviewID: 1, LearnerID: learner, StateBefore: 0, StateAfter: 1, StudyDay: "2026-03-02"},
		AssignmentIDs: []uuid.UUID{a}})
	add(events.ReviewSubmitted, events.ReviewSubmittedPayload{Review: events.Review{ReviewID: 2, LearnerID: learner, StateBefore: 1, StateAfter: 2, StudyDay: "2026-03-02"},
		AssignmentIDs: []uuid.UUID{a}})
	add(events.AssignmentCreated, events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: later, LearnerID: learner}, CardsSeen: 1, CardsLearned: 1})
	add(events.ReviewUndone, events.ReviewUndonePayload{Review: events.Review{ReviewID: 2, LearnerID: learner, StateBefore: 1, StateAfter: 2, StudyDay: "2026-03-02"},
		AssignmentIDs: []uuid.UUID{a}, LaterAssignmentIDs: []uuid.UUID{later}})
	add(events.ReviewSubmitted, events.ReviewSubmittedPayload{Review: events.Review{ReviewID: 3, LearnerID: learner, StateBefore: 2, StateAfter: 3, StudyDay: "2026-03-03"},
		AssignmentIDs: []uuid.UUID{a}})
	add(events.ReviewUndone, events.ReviewUndonePayload{Review: events.Review{ReviewID: 4, LearnerID: learner, StudyDay: "2026-03-03"}})
	byTopic := map[string][]*event{}
	for i := range evs {
		byTopic[evs[i].topic] = append(byTopic[evs[i].topic], &evs[i])
	}
	w, err := wantCounts(byTopic)
	require.NoError(t, err)
	ak, lk := a.String(), later.String()
	require.Equal(t, map[string]int{ak: 2}, w.reviews)
	require.Equal(t, map[string]int{ak: 2 + 1, lk: 1}, w.seen)
	// a: 1 at creation, +1 into Review, -1 undone, -1 out of Review; later:
	// 1 at creation, -1 undone.
	require.Equal(t, map[string]int{ak: 0, lk: 0}, w.learned)
	require.Equal(t, map[string]int{ak + " 2026-03-02": 1, ak + " 2026-03-03": 1}, w.dailyReviews)
	require.Equal(t, map[string]int{learner.String() + " 2026-03-02": 1, learner.String() + " 2026-03-03": 0}, w.activity)
	require.Equal(t, []uuid.UUID{evs[1].id, evs[2].id, evs[5].id, evs[4].id}, w.progressEvents,
		"review.submitted, then review.undone, that name an assignment")
}

// TestNothingStuckCountsTheDeliveriesItExamines: nothing stuck reads the
// delivery rows left (a delivered one is deleted): its cases are those
// rows, not the events; a reminder scheduled for later is counted apart,
// any other row left is a violation.
func TestNothingStuckCountsTheDeliveriesItExamines(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	_, err := pool.Exec(ctx, `WITH e AS (INSERT INTO outbox_events (event_id, topic, payload)
		VALUES (gen_random_uuid(), $1, '{}'), (gen_random_uuid(), $2, '{}'), (gen_random_uuid(), $2, '{}') RETURNING id, topic)
		INSERT INTO outbox_deliveries (event_id, subscriber, available_at)
		SELECT id, 'email', now() + interval '1 hour' FROM e WHERE topic = $1
		UNION ALL SELECT min(id), 'webhook', now() FROM e WHERE topic = $2`, events.ReminderDaily, events.AssignmentCreated)
	require.NoError(t, err)
	c := &checker{s: &stack{pool: pool}, events: make([]event, 3)}
	f := &findings{}
	require.NoError(t, c.nothingStuck(ctx, f))
	require.Equal(t, 1, f.Scheduled)
	require.Len(t, f.Invariants[0].Violations, 1, "the webhook delivery left pending")
	require.Equal(t, 2, f.Invariants[0].Checked, "two delivery rows left, not three events")
}

// TestRequireDoneFailsEachEventItsSubscriberMissed: every committed event
// of a needed topic is counted, and each one its subscriber has not done
// is a violation naming the topic, the event and the subscriber.
func TestRequireDoneFailsEachEventItsSubscriberMissed(t *testing.T) {
	t.Parallel()
	handled, missed, other := &event{id: uuid.New()}, &event{id: uuid.New()}, &event{id: uuid.New()}
	c := &checker{byTopic: map[string][]*event{
		events.AssignmentCreated: {handled, missed},
		events.CardLeeched:       {other},
	}}
	iv := &invariant{}
	c.requireDone(iv, map[string]bool{events.SubscriberEmail + " " + handled.id.String(): true},
		"%s event %s: %s missed", topicSub{events.AssignmentCreated, events.SubscriberEmail})
	require.Equal(t, 2, iv.Checked, "the needed topic's events, not the others")
	require.Equal(t, []string{events.AssignmentCreated + " event " + missed.id.String() + ": " + events.SubscriberEmail + " missed"},
		iv.Violations)
}
