package store

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestLearnersDueForFitReadsBoundedRanges: the fit job's selection reads
// each learner's reviews as a range of review_log_learner_reviewed and
// stops counting at min_first, instead of scanning the whole review log
// every run (on main: a Seq Scan on review_log and an external sort, 120
// to 190 ms on these 54,000 reviews). 40 learners, 1,350 cross-day reviews
// each; the 20 fitted ones have 50 reviews since their fit, so only the 20
// never fitted are due.
func TestLearnersDueForFitReadsBoundedRanges(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	_, err := pool.Exec(ctx, `
		INSERT INTO users (email, display_name, role, timezone)
		SELECT 'l' || n || '@example.com', 'l' || n, 'learner', 'Europe/Berlin' FROM generate_series(1, 40) n;
		INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		SELECT 'w' || n, 'noun', 'd', 'test' FROM generate_series(1, 100) n;
		INSERT INTO cards (learner_id, lexeme_id, due) SELECT u.id, l.id, now() FROM users u, lexemes l;
		INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before, state_after, due_after, stability,
			difficulty, elapsed_days, scheduled_days, reviewed_at, before_stability, before_difficulty, before_elapsed_days,
			before_scheduled_days, before_reps, before_lapses, before_step, before_last_review, before_suspended, study_day, assignment_ids)
		SELECT c.id, c.learner_id, 3, 2, s.t, 2, s.t, 1, 5, 0, 0, s.t, 1, 5, 0, 0, 0, 0, 0, s.t - interval '3 days', false,
		       ((s.t AT TIME ZONE 'Europe/Berlin') - interval '4 hours')::date, '{}'
		FROM cards c CROSS JOIN LATERAL (SELECT timestamptz '2026-01-01 12:00Z' + n * interval '3 days' AS t
		                                 FROM generate_series(1, 14) n) s
		WHERE (c.id::text < 'f') OR s.t < timestamptz '2026-01-30';
		INSERT INTO parameter_fits (learner_id, review_count, last_review_id, train_items, test_items, outcome,
			optimizer_version, kept, reason)
		SELECT u.id, 0, (SELECT max(id) - 50 FROM review_log r WHERE r.learner_id = u.id), 0, 0, 'not-fitted', 'test', false, 'test'
		FROM users u WHERE u.email < 'l3';
		ANALYZE;`)
	require.NoError(t, err)
	var fitted int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM parameter_fits`).Scan(&fitted))

	arg := LearnersDueForFitParams{ReviewAgeDays: 7, RolloverHours: 4, MinFirst: 400, TaskCount: 1, MinNew: 100, MaxLearners: 500}
	rows, err := On(pool).LearnersDueForFit(ctx, arg)
	require.NoError(t, err)
	require.Len(t, rows, 40-fitted, "the never fitted only")
	for _, r := range rows {
		require.Zero(t, r.LastFitID)
		require.EqualValues(t, 400, r.NewReviews, "counted up to min_first")
	}

	plan := explain(t, pool, `EXPLAIN (ANALYZE, BUFFERS) `+learnersDueForFit, arg.ReviewAgeDays, arg.RolloverHours,
		arg.MinFirst, arg.TaskCount, arg.TaskIndex, arg.MinNew, arg.MaxLearners)
	t.Log(plan)
	require.NotContains(t, plan, "Seq Scan on review_log")
	require.Contains(t, plan, "review_log_learner_reviewed")
	require.NotContains(t, plan, "review_log_pkey on review_log r ", "no bitmap of every learner's ids")
}
