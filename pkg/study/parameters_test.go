package study

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// fittedWeights are weights away from the defaults (longer initial
// stabilities, a steeper forgetting curve), within go-fsrs' ranges.
func fittedWeights() [21]float64 {
	w := learning.DefaultParams().Weights
	w[0], w[1], w[2], w[3] = 0.9, 2.5, 6.0, 20.0
	w[20] = 0.3
	return w
}

// adopt makes w the learner's current parameters as the fit does: under
// the learner's row lock.
func (b bundle) adopt(t *testing.T, learner uuid.UUID, w [21]float64) int64 {
	t.Helper()
	id, err := b.tryAdopt(learner, w)
	require.NoError(t, err)
	return id
}

func (b bundle) tryAdopt(learner uuid.UUID, w [21]float64) (int64, error) {
	var id int64
	err := pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) error {
		q := store.On(tx)
		if _, err := q.LockLearner(context.Background(), learner); err != nil {
			return err
		}
		var err error
		id, err = q.AdoptParameters(context.Background(), learner, w[:], "test", nil)
		return err
	})
	return id, err
}

// cardRow is the card's stored state, for comparison.
func (b bundle) cardRow(t *testing.T, card uuid.UUID) learning.Card {
	t.Helper()
	var c learning.Card
	var elapsed, scheduled, reps, lapses, step int64
	var last *time.Time
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT state, due, stability, difficulty, elapsed_days,
		scheduled_days, reps, lapses, step, last_review FROM cards WHERE id = $1`, card).Scan(&c.State, &c.Due, &c.Stability,
		&c.Difficulty, &elapsed, &scheduled, &reps, &lapses, &step, &last))
	c.ElapsedDays, c.ScheduledDays, c.Reps, c.Lapses, c.Step = uint64(elapsed), uint64(scheduled), uint64(reps), uint64(lapses), int(step)
	if last != nil {
		c.LastReview = *last
	}
	return c
}

func TestAReviewUsesTheLearnersParametersAndReplaysExactly(t *testing.T) {
	ctx, b := setup(t)
	start := b.cardRow(t, b.card)
	ratings := []learning.Rating{learning.Good, learning.Good, learning.Good, learning.Hard, learning.Good, learning.Again, learning.Good, learning.Easy}
	var adopted int64
	for i, r := range ratings {
		if i == 3 {
			before := b.cardRow(t, b.card)
			adopted = b.adopt(t, b.learner, fittedWeights())
			require.Equal(t, before, b.cardRow(t, b.card), "new parameters must not reschedule the card")
		}
		_, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: r})
		require.NoError(t, err)
		b.clock.Advance(time.Duration(i+1) * 26 * time.Hour)
	}

	rows, err := b.pool.Query(ctx, `SELECT rating, reviewed_at, parameters_id FROM review_log WHERE card_id = $1 ORDER BY id`, b.card)
	require.NoError(t, err)
	type logged struct {
		rating learning.Rating
		at     time.Time
		params *int64
	}
	log, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (l logged, err error) {
		return l, row.Scan(&l.rating, &l.at, &l.params)
	})
	require.NoError(t, err)
	require.Len(t, log, len(ratings))
	for i, l := range log {
		if i < 3 {
			require.Nil(t, l.params, "review %d: before any fit the defaults schedule", i)
		} else {
			require.Equal(t, &adopted, l.params, "review %d", i)
		}
	}

	defaults, err := learning.NewScheduler(learning.DefaultParams(), b.clock)
	require.NoError(t, err)
	fitted, err := defaults.WithWeights(fittedWeights())
	require.NoError(t, err)
	zone := learning.Zone("Europe/Berlin")
	replayed, withDefaults := start, start
	for _, l := range log {
		sched := defaults
		if l.params != nil {
			sched = fitted
		}
		replayed, _, err = sched.ReviewAt(replayed, l.rating, zone, l.at)
		require.NoError(t, err)
		withDefaults, _, err = defaults.ReviewAt(withDefaults, l.rating, zone, l.at)
		require.NoError(t, err)
	}
	require.Equal(t, b.cardRow(t, b.card), replayed, "the log's parameters replay the card's state exactly")
	require.NotEqual(t, withDefaults.Stability, replayed.Stability, "the fitted parameters scheduled the later reviews")
}

func TestAFitRacingAReviewWaitsForIt(t *testing.T) {
	ctx, b := setup(t)
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, _, err = b.study.Review(ctx, tx, Learner{ID: b.learner, Timezone: "Europe/Berlin"}, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)

	adopted, failed := make(chan int64, 1), make(chan error, 1)
	go func() {
		id, err := b.tryAdopt(b.learner, fittedWeights())
		adopted <- id
		failed <- err
	}()
	require.Eventually(t, func() bool {
		var waiting bool
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%FOR NO KEY UPDATE%')`).Scan(&waiting))
		return waiting
	}, 10*time.Second, 10*time.Millisecond, "the adoption waits on the review's learner lock")
	require.NoError(t, tx.Commit(ctx))
	id := <-adopted
	require.NoError(t, <-failed)

	var first, second *int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT parameters_id FROM review_log WHERE card_id = $1`, b.card).Scan(&first))
	require.Nil(t, first, "the review committed before the adoption used the defaults")
	b.clock.Advance(25 * time.Hour)
	_, _, err = b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT parameters_id FROM review_log WHERE card_id = $1 ORDER BY id DESC LIMIT 1`, b.card).Scan(&second))
	require.Equal(t, &id, second, "the next review uses the adopted parameters")
}
