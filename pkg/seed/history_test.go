package seed

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/fitting"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// The simulated history gets the history learner's fit kept by the fit
// job, and seeding again adds no review.
func TestTheHistoryLearnersFitIsKept(t *testing.T) {
	t.Parallel()
	// Whenever the seed runs: a winter and a summer day, morning and night.
	for _, at := range []time.Time{time.Date(2026, 12, 1, 22, 46, 0, 0, time.UTC), time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC),
		time.Date(2027, 7, 15, 3, 0, 0, 0, time.UTC), time.Date(2026, 10, 20, 16, 30, 0, 0, time.UTC)} {
		t.Run(at.Format(time.DateTime), func(t *testing.T) { historyFitIsKept(t, at) })
	}
}

func historyFitIsKept(t *testing.T, at time.Time) {
	ctx, pool := pgtest.Setup(t)
	clk := clocktest.New(at)
	_, err := Load(ctx, pool, clk)
	require.NoError(t, err)
	require.NoError(t, SimulateHistory(ctx, pool, clk.Now()))
	reviews := pgtest.Column[int64](t, pool, `SELECT count(*) FROM review_log WHERE learner_id = $1`, HistoryLearner.ID)[0]
	require.NoError(t, SimulateHistory(ctx, pool, clk.Now()))
	require.Equal(t, reviews, pgtest.Column[int64](t, pool, `SELECT count(*) FROM review_log`)[0], "seeding again adds no review")

	rep, err := fitting.Run(ctx, pool, events.NewOutbox(), clk, fitting.Config{})
	require.NoError(t, err)
	t.Logf("%d reviews; fit %+v", reviews, pgtest.Column[string](t, pool,
		`SELECT concat_ws(' ', review_count, train_items, test_items, round(log_loss::numeric, 4), round(rmse_bins::numeric, 4),
		        round(current_log_loss::numeric, 4), round(current_rmse_bins::numeric, 4), reason) FROM parameter_fits`))
	require.Equal(t, 1, rep.Kept, "%+v", rep)
}
