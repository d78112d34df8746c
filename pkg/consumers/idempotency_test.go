package consumers

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/seed"
)

// TestEverySubscriberTakesEffectOnce delivers every (topic, subscriber) pair
// of the routing twice in a row and twice concurrently, and checks that each
// effect happened exactly once: one email in the sink, one accepted webhook,
// one row change. Every subscription must have a case here.
func TestEverySubscriberTakesEffectOnce(t *testing.T) {
	t.Parallel()
	for _, sub := range events.Subscriptions {
		t.Run(sub.Topic+"->"+sub.Subscriber, func(t *testing.T) {
			ctx, b := setup(t)
			hook := newReceiver(t)
			b.endpoint(t, hook)
			var due time.Time
			require.NoError(t, b.pool.QueryRow(ctx, "SELECT due_at FROM assignments WHERE id = $1", b.assignment).Scan(&due))
			payloads := map[string]any{
				events.AssignmentCreated: events.AssignmentCreatedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID,
					TeacherID: seed.TeacherID}, Cards: seed.DeckSize},
				events.AssignmentCompleted: events.AssignmentCompletedPayload{Assignment: events.Assignment{AssignmentID: b.assignment, LearnerID: b.learner.ID,
					TeacherID: seed.TeacherID, DueAt: due}, CompletedAt: due.Add(-time.Hour)},
				events.ReviewSubmitted: events.ReviewSubmittedPayload{Review: events.Review{LearnerID: b.learner.ID, StateBefore: 0, StateAfter: 1, ReviewedAt: time.Now(), StudyDay: "2026-03-01"},
					AssignmentIDs: []uuid.UUID{b.assignment}},
				events.ReviewUndone: events.ReviewUndonePayload{Review: events.Review{ReviewID: 1, LearnerID: b.learner.ID, StateBefore: 0, StateAfter: 1, ReviewedAt: time.Now(), StudyDay: "2026-03-01"},
					AssignmentIDs: []uuid.UUID{b.assignment}},
				events.StreakExtended:    events.StreakExtendedPayload{LearnerID: b.learner.ID, Day: "2026-03-01", Current: 1, Longest: 1},
				events.AchievementEarned: events.AchievementEarnedPayload{LearnerID: b.learner.ID, Code: events.AchievementFirstReview},
				events.ReminderDueSoon:   events.ReminderDueSoonPayload{AssignmentID: b.assignment, LearnerID: b.learner.ID, DueAt: due},
				events.CardLeeched:       events.CardLeechedPayload{CardID: uuid.New(), LearnerID: b.learner.ID, Lemma: "cat", Lapses: 8},
				events.ReminderDaily:     events.ReminderDailyPayload{LearnerID: b.learner.ID, At: time.Now()},
				events.LearnerInvited: events.LearnerInvitedPayload{ClassLearner: events.ClassLearner{ClassID: seed.ClassID,
					LearnerID: b.learner.ID, TeacherID: seed.TeacherID}},
				events.LearnerEnrolled: events.LearnerEnrolledPayload{ClassLearner: events.ClassLearner{ClassID: seed.ClassID,
					LearnerID: b.learner.ID, TeacherID: seed.TeacherID}, Assignments: []uuid.UUID{b.assignment}, By: "teacher"},
				events.DeckCreated: events.DeckCreatedPayload{DeckID: uuid.New(), TeacherID: seed.TeacherID, Title: "Unit 3", Entries: 2},
				events.DeckEntriesChanged: events.DeckEntriesChangedPayload{DeckID: uuid.New(), TeacherID: seed.TeacherID, Title: "Unit 3",
					Added: 1, Entries: 3, CardsCreated: 1, Assignments: []events.DeckAssignmentChange{{AssignmentID: b.assignment, LearnerID: b.learner.ID, Total: 1}}},
				events.LearnerParametersChanged: events.LearnerParametersChangedPayload{LearnerID: b.learner.ID,
					TeacherIDs: []uuid.UUID{seed.TeacherID}, FitID: 1, ParametersID: 1, Reviews: 900, LogLoss: 0.31, RMSEBins: 0.04,
					PreviousLogLoss: 0.33, PreviousRMSEBins: 0.07, OptimizerVersion: "test", FittedAt: time.Now()},
				events.DeckRetentionChanged: events.DeckRetentionChangedPayload{ClassID: seed.ClassID, DeckID: uuid.New(),
					TeacherID: seed.TeacherID, DesiredRetention: 0.85, PreviousRetention: 0.9},
			}
			payload, ok := payloads[sub.Topic]
			require.True(t, ok, "add a payload for %s", sub.Topic)
			d := delivery(t, sub.Topic, sub.Subscriber, payload)
			if sub.Topic == events.ReminderDaily {
				// A daily reminder acts as the current link of the learner's
				// chain, when cards are due.
				_, err := b.pool.Exec(ctx, `INSERT INTO cards (learner_id, lexeme_id, due)
					SELECT a.learner_id, di.lexeme_id, '2026-01-01' FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id`)
				require.NoError(t, err)
				d = b.currentLink(t) // the seed started the chain
				d.Subscriber = sub.Subscriber
			}
			if sub.Topic == events.ReviewUndone {
				// An undo takes back its review's study day: the review came first.
				require.NoError(t, b.handlers[events.SubscriberActivity].Handle(ctx, delivery(t, events.ReviewSubmitted,
					events.SubscriberActivity, payloads[events.ReviewSubmitted])))
			}
			h := b.handlers[sub.Subscriber]

			effects := func() map[string]int {
				msgs, err := b.mailpit.Messages(ctx)
				require.NoError(t, err)
				accepted, _, _ := hook.snapshot()
				out := map[string]int{"emails": len(msgs), "webhooks": len(accepted)}
				for name, q := range map[string]string{
					"progress":     "SELECT coalesce(sum(reviews + cards_total), 0) FROM assignment_progress",
					"daily":        "SELECT coalesce(sum(reviews), 0) FROM learner_daily_activity",
					"achievements": "SELECT count(*) FROM learner_achievements",
					"feed":         "SELECT count(*) FROM learner_feed",
					"events":       "SELECT count(*) FROM outbox_events",
				} {
					var n int
					require.NoError(t, b.pool.QueryRow(ctx, q).Scan(&n))
					out[name] = n
				}
				return out
			}
			before := effects()
			require.NoError(t, h.Handle(ctx, d))
			once := effects()
			require.NotEqual(t, before, once, "the first delivery takes effect")
			require.NoError(t, h.Handle(ctx, d))
			var g errgroup.Group
			for range 2 {
				g.Go(func() error { return h.Handle(ctx, d) })
			}
			require.NoError(t, g.Wait())
			require.Equal(t, once, effects(), "redeliveries, sequential or concurrent, change nothing")

			// A second subscriber of the same event is not hidden by the first
			// one's dedup record.
			for _, other := range events.Subscriptions {
				if other.Topic == sub.Topic && other.Subscriber != sub.Subscriber {
					o := d
					o.Subscriber = other.Subscriber
					require.NoError(t, b.handlers[other.Subscriber].Handle(ctx, o))
					require.NotEqual(t, once, effects(), "%s also takes effect", other.Subscriber)
					break
				}
			}
		})
	}
}
