package study

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
)

// classDecks aims the setup's deck at first in its class (A) and gives
// the same deck to the learner through a second class (B, the other
// teacher's) that aims at second.
func (b bundle) classDecks(t *testing.T, first, second float64) {
	t.Helper()
	ctx := context.Background()
	_, err := b.pool.Exec(ctx, `INSERT INTO class_decks (class_id, deck_id, due_at, desired_retention)
		SELECT class_id, deck_id, due_at, $2 FROM assignments WHERE id = $1`, b.assignment, first)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `
		WITH c AS (INSERT INTO classes (teacher_id, name) VALUES ($1, 'B') RETURNING id),
		     m AS (INSERT INTO class_members (class_id, learner_id) SELECT c.id, a.learner_id FROM c, assignments a WHERE a.id = $2),
		     n AS (INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
		           SELECT c.id, a.deck_id, a.learner_id, $1, a.due_at FROM c, assignments a WHERE a.id = $2)
		INSERT INTO class_decks (class_id, deck_id, due_at, desired_retention)
		SELECT c.id, a.deck_id, a.due_at, $3 FROM c, assignments a WHERE a.id = $2`, b.otherTeacher, b.assignment, second)
	require.NoError(t, err)
}

// expected is what sched at retention gives for rating r of the card as
// stored now, at the clock's now.
func (b bundle) expected(t *testing.T, sched *learning.Scheduler, retention float64, card uuid.UUID, r learning.Rating) learning.Card {
	t.Helper()
	s, err := sched.WithRetention(retention)
	require.NoError(t, err)
	next, _, err := s.ReviewAt(b.cardRow(t, card), r, learning.Zone("Europe/Berlin"), b.clock.Now())
	require.NoError(t, err)
	return next
}

func TestACardComesDueAtTheHighestRetentionOfItsClassDecks(t *testing.T) {
	_, b := setup(t)
	b.classDecks(t, 0.80, 0.95)
	at95 := b.expected(t, b.study.scheduler, 0.95, b.card, learning.Easy)
	at90 := b.expected(t, b.study.scheduler, 0.90, b.card, learning.Easy)
	require.Less(t, at95.ScheduledDays, at90.ScheduledDays, "the test needs retentions whose intervals differ")

	got, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	require.Equal(t, at95.ScheduledDays, got.Card.ScheduledDays, "the highest of 0.80 and 0.95 schedules the card")
	require.True(t, at95.Due.Equal(b.cardRow(t, b.card).Due), "stored due %s", b.cardRow(t, b.card).Due)
}

func TestACardOfOneClassDeckComesDueAtItsRetention(t *testing.T) {
	_, b := setup(t)
	b.classDecks(t, 0.80, 0.80)
	at80 := b.expected(t, b.study.scheduler, 0.80, b.card, learning.Easy)
	at90 := b.expected(t, b.study.scheduler, 0.90, b.card, learning.Easy)
	require.Greater(t, at80.ScheduledDays, at90.ScheduledDays)

	got, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	require.Equal(t, at80.ScheduledDays, got.Card.ScheduledDays)
}

// The rating buttons' intervals (GetSchedule's preview) are the review's:
// the learner's fitted parameters at the card's desired retention. On
// main the preview used the defaults at 0.90.
func TestThePreviewIsScheduledAsTheReviewIs(t *testing.T) {
	ctx, b := setup(t)
	b.classDecks(t, 0.85, 0.80)
	b.adopt(t, b.learner, fittedWeights())
	// A card in Review, reviewed again three days later: every rating
	// gives an interval in days.
	_, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	b.clock.Advance(b.cardRow(t, b.card).Due.Sub(b.clock.Now()) + time.Hour)

	var sched Schedule
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		sched, err = b.study.Schedule(ctx, tx, Viewer{ID: b.learner, Role: account.Learner}, ScheduleQuery{Limit: 20, Days: 7})
		return err
	}))
	var preview []RatingPreview
	for _, d := range sched.Due {
		if d.CardID == b.card {
			preview = d.Preview
		}
	}
	require.Len(t, preview, 4)

	fitted, err := b.study.scheduler.WithWeights(fittedWeights())
	require.NoError(t, err)
	for i, r := range []learning.Rating{learning.Again, learning.Hard, learning.Good, learning.Easy} {
		want := b.expected(t, fitted, 0.85, b.card, r)
		require.Equal(t, want.Due, preview[i].Due, "rating %d: fitted parameters at 0.85", r)
	}
	defaults := b.expected(t, b.study.scheduler, 0.90, b.card, learning.Good)
	require.NotEqual(t, defaults.Due, preview[2].Due, "the defaults at 0.90 would give another interval")

	got, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	require.Equal(t, preview[2].Due, got.Card.Due, "the review gives what its button showed")
}

func TestProgressPredictsTheRecallOfTheLearnedWords(t *testing.T) {
	ctx, b := setup(t)
	progress := func() PredictedRecall {
		t.Helper()
		var p Progress
		require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
			p, err = b.study.Progress(ctx, tx, Viewer{ID: b.learner, Role: account.Learner}, uuid.Nil)
			return err
		}))
		return p.Recall
	}
	require.Equal(t, PredictedRecall{}, progress(), "no learned word yet")

	_, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	stability := b.cardRow(t, b.card).Stability
	b.clock.Advance(3 * 24 * time.Hour)

	defaults := learning.DefaultParams().Weights
	got := progress()
	require.Equal(t, 1, got.Words)
	require.InDelta(t, learning.Retrievability(defaults, 3, stability), got.Today, 1e-12)
	require.InDelta(t, learning.Retrievability(defaults, 33, stability), got.Later, 1e-12)
	require.Less(t, got.Later, got.Today)

	// The learner's own forgetting curve once a fit is kept.
	b.adopt(t, b.learner, fittedWeights())
	got = progress()
	require.InDelta(t, learning.Retrievability(fittedWeights(), 3, stability), got.Today, 1e-12)
	require.InDelta(t, learning.Retrievability(fittedWeights(), 33, stability), got.Later, 1e-12)
}

// The preview holds whenever in the study day the button is pressed: a
// review a second and five minutes after GetSchedule gives each rating the
// interval in days that its button showed. On main go-fsrs seeded the fuzz
// from the review's millisecond (Easy previewed 10 d, given 14 d).
func TestThePreviewHoldsAtAnyInstantOfTheDay(t *testing.T) {
	ctx, b := setup(t)
	_, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	b.clock.Advance(b.cardRow(t, b.card).Due.Sub(b.clock.Now()) + time.Hour)
	viewed := b.clock.Now()

	var sched Schedule
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		sched, err = b.study.Schedule(ctx, tx, Viewer{ID: b.learner, Role: account.Learner}, ScheduleQuery{Limit: 1, Days: 7})
		return err
	}))
	require.Len(t, sched.Due, 1)
	preview := sched.Due[0].Preview
	require.Len(t, preview, 4)
	for _, later := range []time.Duration{time.Second, 5 * time.Minute} {
		b.clock.Set(viewed.Add(later))
		for i, r := range []learning.Rating{learning.Again, learning.Hard, learning.Good, learning.Easy} {
			tx, err := b.pool.Begin(ctx)
			require.NoError(t, err)
			got, _, err := b.study.Review(ctx, tx, Learner{ID: b.learner, Timezone: "Europe/Berlin"}, ReviewRequest{CardID: b.card, Rating: r})
			require.NoError(t, err)
			require.NoError(t, tx.Rollback(ctx))
			require.Equal(t, preview[i].Due.Sub(viewed), got.Card.Due.Sub(b.clock.Now()), "rating %s, %s after the preview", r, later)
		}
	}
}
