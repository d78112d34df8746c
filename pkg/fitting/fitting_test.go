package fitting

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
	"github.com/lexora-app/lexora/pkg/learning/optimizer/oracle"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

const zone = "Europe/Berlin"

// simulated is the log of a simulated learner whose true weights differ
// from the defaults, and those weights.
func simulated(t *testing.T, reviews int) (optimizer.Weights, []optimizer.Review) {
	t.Helper()
	truth, log, err := oracle.Simulate(oracle.Learner{Seed: 6, Habit: oracle.Regular, Reviews: reviews, Zone: zone})
	require.NoError(t, err)
	return truth, log
}

func TestAFitIsKeptOnlyWhenItPredictsTheHeldOutReviewsBetter(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	truth, log := simulated(t, 4000)

	d, err := Decide(ctx, Input{Zone: learning.Zone(zone), Reviews: log})
	require.NoError(t, err)
	require.True(t, d.Kept, d.Reason)
	require.Less(t, d.FittedMetrics.LogLoss, d.CurrentMetrics.LogLoss)
	require.Equal(t, optimizer.Trained, d.Fitted.Outcome)
	require.Equal(t, d.Items, d.TrainItems+d.TestItems)
	require.InDelta(t, float64(d.Items)*Splits/(Splits+1), d.TrainItems, Splits+1, "the earlier 5/6 train")
	t.Logf("defaults: log loss %.4f RMSE(bins) %.4f; fitted: %.4f %.4f (%d held-out items)", d.CurrentMetrics.LogLoss,
		d.CurrentMetrics.RMSEBins, d.FittedMetrics.LogLoss, d.FittedMetrics.RMSEBins, d.TestItems)

	// Against parameters that predict better still (the learner's true
	// ones), the same fit is refused.
	d, err = Decide(ctx, Input{Zone: learning.Zone(zone), Reviews: log, Current: &Parameters{ID: 1, Weights: truth}})
	require.NoError(t, err)
	require.False(t, d.Kept)
	require.Contains(t, d.Reason, ReasonNotBetter)
}

func TestAFirstFitNeedsEnoughCrossDayReviews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	day := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for name, log := range map[string][]optimizer.Review{
		"none":     nil,
		"one":      {{Card: "a", Rating: learning.Good, At: day}},
		"same-day": sameDay(day, 600),
	} {
		d, err := Decide(ctx, Input{Zone: time.UTC, Reviews: log})
		require.NoError(t, err, name)
		require.False(t, d.Kept, name)
		require.Nil(t, d.Fitted, name)
		require.Contains(t, d.Reason, ReasonTooFewItems, name)
	}
	_, log := simulated(t, 300)
	d, err := Decide(ctx, Input{Zone: learning.Zone(zone), Reviews: log})
	require.NoError(t, err)
	require.Less(t, d.Items, MinFirstItems)
	require.False(t, d.Kept)
}

// sameDay is n reviews of n/3 cards, all on one study day.
func sameDay(day time.Time, n int) []optimizer.Review {
	out := make([]optimizer.Review, n)
	for i := range out {
		out[i] = optimizer.Review{Card: string(rune('a' + i%(n/3))), Rating: learning.Rating(1 + i%4), At: day.Add(time.Duration(i) * time.Second)}
	}
	return out
}

// bundle is a database with a teacher whose class holds a learner.
type bundle struct {
	pool             *pgxpool.Pool
	clock            *clocktest.Stub
	teacher, learner uuid.UUID
}

func setup(t *testing.T) (context.Context, bundle) {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	b := bundle{pool: pgtest.New(t), clock: clocktest.New(time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC))}
	b.teacher = pgtest.User(t, b.pool, "t@example.com", "T", account.Teacher, zone)
	b.learner = pgtest.User(t, b.pool, "l@example.com", "L", account.Learner, zone)
	_, err := b.pool.Exec(ctx, `WITH c AS (INSERT INTO classes (teacher_id, name) VALUES ($1, 'A') RETURNING id)
		INSERT INTO class_members (class_id, learner_id) SELECT id, $2 FROM c`, b.teacher, b.learner)
	require.NoError(t, err)
	return ctx, b
}

// insertLog stores log as learner's review log, on cards of lexemes of its
// own, as study.Review would (the card's previous review and study day).
func (b bundle) insertLog(t *testing.T, learner uuid.UUID, log []optimizer.Review) {
	t.Helper()
	cards, ratings, ats := make([]string, len(log)), make([]int16, len(log)), make([]time.Time, len(log))
	for i, r := range log {
		cards[i], ratings[i], ats[i] = r.Card, int16(r.Rating), r.At
	}
	_, err := b.pool.Exec(context.Background(), `
		WITH r AS (SELECT * FROM unnest($2::text[], $3::smallint[], $4::timestamptz[]) WITH ORDINALITY AS r (card, rating, at, n)),
		names AS (SELECT DISTINCT card FROM r),
		lx AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		       SELECT $1::uuid::text || '-' || card, 'noun', 'simulated', 'test' FROM names RETURNING id, lemma),
		c AS (INSERT INTO cards (learner_id, lexeme_id, due) SELECT $1::uuid, id, now() FROM lx RETURNING id, lexeme_id),
		named AS (SELECT c.id, substr(lx.lemma, length($1::uuid::text) + 2) AS card FROM c JOIN lx ON lx.id = c.lexeme_id)
		INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before, state_after, due_after, stability,
			difficulty, elapsed_days, scheduled_days, reviewed_at, before_stability, before_difficulty, before_elapsed_days,
			before_scheduled_days, before_reps, before_lapses, before_step, before_last_review, before_suspended, study_day, assignment_ids)
		SELECT named.id, $1::uuid, r.rating, 2, r.at, 2, r.at, 1, 5, 0, 0, r.at, 1, 5, 0, 0, 0, 0, 0,
		       lag(r.at) OVER (PARTITION BY r.card ORDER BY r.n), false,
		       ((r.at AT TIME ZONE $5) - interval '4 hours')::date, '{}'
		FROM r JOIN named ON named.card = r.card ORDER BY r.n`, learner, cards, ratings, ats, zone)
	require.NoError(t, err)
}

func (b bundle) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}

func TestRunFitsTheLearnersDueAndRecordsEveryFit(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 4000)
	b.insertLog(t, b.learner, log)
	few := pgtest.User(t, b.pool, "few@example.com", "F", account.Learner, zone)
	_, short := simulated(t, 200)
	b.insertLog(t, few, short)

	ob := events.NewOutbox()
	rep, err := Run(ctx, b.pool, ob, b.clock, Config{})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Selected, "only the learner with enough cross-day reviews: %+v", rep)
	require.Equal(t, 1, rep.Kept, "%+v", rep)
	require.Equal(t, len(log), rep.Reviews)

	var kept bool
	var reviews, paramsID int64
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT kept, review_count, parameters_id FROM parameter_fits WHERE learner_id = $1`,
		b.learner).Scan(&kept, &reviews, &paramsID))
	require.True(t, kept)
	require.EqualValues(t, len(log), reviews)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM learner_parameters WHERE learner_id = $1 AND id = $2`, b.learner, paramsID))
	var payload events.LearnerParametersChangedPayload
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT payload FROM outbox_events WHERE topic = $1`, events.LearnerParametersChanged).Scan(&payload))
	require.Equal(t, b.learner, payload.LearnerID)
	require.Equal(t, []uuid.UUID{b.teacher}, payload.TeacherIDs)
	require.Equal(t, paramsID, payload.ParametersID)
	require.Less(t, payload.LogLoss, payload.PreviousLogLoss)

	// Nothing new since: nobody is due.
	rep, err = Run(ctx, b.pool, ob, b.clock, Config{})
	require.NoError(t, err)
	require.Zero(t, rep.Selected)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parameter_fits`))
}

func defaultWeights() []float64 {
	w := learning.DefaultParams().Weights
	return w[:]
}

func TestTasksSplitTheLearnersByHash(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 2500)
	b.insertLog(t, b.learner, log)

	selected, fitted := 0, 0
	for i := range 3 {
		rep, err := Run(ctx, b.pool, events.NewOutbox(), b.clock, Config{TaskIndex: i, TaskCount: 3, MaxLearners: 10, MaxDuration: time.Hour})
		require.NoError(t, err)
		selected, fitted = selected+rep.Selected, fitted+rep.Kept+rep.Refused
	}
	require.Equal(t, 1, selected, "one task of three takes the learner")
	require.Equal(t, 1, fitted)
	_, err := Run(ctx, b.pool, events.NewOutbox(), b.clock, Config{TaskIndex: 3, TaskCount: 3})
	require.ErrorIs(t, err, ErrInvalidConfig)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parameter_fits`))
}

func TestAnOverlappingRunSkipsALearnerBeingFitted(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 2500)
	b.insertLog(t, b.learner, log)
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var locked bool
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock(hashtextextended('lexora.fit:' || $1::text, 0))`, b.learner).Scan(&locked))
	require.True(t, locked)

	rep, err := Run(ctx, b.pool, events.NewOutbox(), b.clock, Config{})
	require.NoError(t, err)
	require.Equal(t, Report{Selected: 1, Locked: 1, Errors: map[uuid.UUID]error{}, Duration: rep.Duration}, rep)
	require.Zero(t, b.count(t, `SELECT count(*) FROM parameter_fits`))
}

func TestAFitIsRefusedWhenTheParametersChangedMeanwhile(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 4000)
	b.insertLog(t, b.learner, log)
	var in Input
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		in, err = Load(ctx, tx, b.learner)
		return err
	}))
	require.Len(t, in.Reviews, len(log))
	d, err := Decide(ctx, in)
	require.NoError(t, err)
	require.True(t, d.Kept, d.Reason)
	_, err = b.pool.Exec(ctx, `INSERT INTO learner_parameters (learner_id, weights, optimizer_version) VALUES ($1, $2, 'other')`,
		b.learner, defaultWeights())
	require.NoError(t, err)

	var rec Recorded
	var batch events.Batch
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		rec, batch, err = Record(ctx, tx, in, d, nil)
		return err
	}))
	require.False(t, rec.Kept)
	require.Equal(t, ReasonSuperseded, rec.Reason)
	evs, err := batch.Events()
	require.NoError(t, err)
	require.Empty(t, evs)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM learner_parameters`), "nothing adopted")
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parameter_fits WHERE NOT kept AND reason = $1`, ReasonSuperseded))

	// A second record of the same reviews is refused and writes nothing.
	require.ErrorIs(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, _, err := Record(ctx, tx, in, d, nil)
		return err
	}), ErrAlreadyFitted)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parameter_fits`))
}

// A fit that exceeds FIT_TIMEOUT is recorded as failed, the run goes on
// with the next learner, and the next runs do not pick the learner again
// before MinNewItems new reviews. On main nothing was recorded: every run
// picked the same learner first and failed.
func TestAFitThatTimesOutIsRecordedAndNotRetriedAtOnce(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 4000)
	b.insertLog(t, b.learner, log)
	other := pgtest.User(t, b.pool, "o@example.com", "O", account.Learner, zone)
	_, log2 := simulated(t, 2500)
	b.insertLog(t, other, log2)

	rep, err := Run(ctx, b.pool, events.NewOutbox(), b.clock, Config{FitTimeout: time.Millisecond})
	require.NoError(t, err)
	require.Equal(t, 2, rep.Selected)
	require.Equal(t, 2, rep.Failed, "the run went on after the first failure: %+v", rep)
	require.Equal(t, "kept 0, refused 0, failed 2: timeout after 1ms", rep.String())
	for _, l := range []uuid.UUID{b.learner, other} {
		var fe *FitError
		require.ErrorAs(t, rep.Errors[l], &fe)
		require.True(t, fe.Recorded, fe.Error())
		require.ErrorIs(t, fe, context.DeadlineExceeded)
	}
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM parameter_fits WHERE NOT kept AND reason = $1`, ReasonFailed+": timeout after 1ms"))
	require.Equal(t, len(log), b.count(t, `SELECT review_count FROM parameter_fits WHERE learner_id = $1`, b.learner))
	require.Zero(t, b.count(t, `SELECT count(*) FROM outbox_events`))

	rep, err = Run(ctx, b.pool, events.NewOutbox(), b.clock, Config{})
	require.NoError(t, err)
	require.Zero(t, rep.Selected, "not retried before MinNewItems new reviews")
}

// An execution that selected a learner another one has fitted since skips
// them before loading or fitting anything, and Record refuses a fit when
// another was recorded since Load: MinNewItems holds however executions
// overlap. On main the check came after the fit (already_fitted after the
// work), and a fit that saw one more review than the last was recorded.
func TestAFitRecordedSinceTheSelectionIsCheckedBeforeTheWork(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 2500)
	b.insertLog(t, b.learner, log)
	var in Input
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		in, err = Load(ctx, tx, b.learner)
		return err
	}))
	require.Zero(t, in.LastFitID)
	d, err := Decide(ctx, in)
	require.NoError(t, err)

	// Another execution fits the learner (here: records a fit of the same
	// reviews), then one more review arrives.
	rep, err := Run(ctx, b.pool, events.NewOutbox(), b.clock, Config{})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Kept+rep.Refused, "%+v", rep)
	last := log[len(log)-1]
	b.insertLog(t, b.learner, []optimizer.Review{{Card: "late", Rating: learning.Good, At: last.At.Add(time.Hour)}})

	// The stale fit, with its one more review, is refused.
	in.LastReviewID++
	require.ErrorIs(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, _, err := Record(ctx, tx, in, d, nil)
		return err
	}), ErrAlreadyFitted)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parameter_fits`))

	// A run whose selection saw no fit skips the learner before the work.
	var r Report
	require.NoError(t, fitOne(ctx, b.pool, events.NewOutbox(), b.clock, Config{}.withDefaults(), b.learner, 0, &r))
	require.Equal(t, Report{AlreadyFitted: 1}, r)
	require.Equal(t, 1, b.count(t, `SELECT count(*) FROM parameter_fits`))
}

// A fit's fitted_at and its parameters' are the adoption's instant at the
// end of the fit's transaction (clock_timestamp()), the same for both,
// not the transaction's start. On main both were now(), the start.
func TestAFitIsRecordedAtItsAdoptionInstant(t *testing.T) {
	ctx, b := setup(t)
	_, log := simulated(t, 4000)
	b.insertLog(t, b.learner, log)
	var in Input
	var started time.Time
	var rec Recorded
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		if err := tx.QueryRow(ctx, `SELECT now()`).Scan(&started); err != nil {
			return err
		}
		if in, err = Load(ctx, tx, b.learner); err != nil {
			return err
		}
		d, err := Decide(ctx, in)
		if err != nil {
			return err
		}
		rec, _, err = Record(ctx, tx, in, d, nil)
		return err
	}))
	require.True(t, rec.Kept, rec.Reason)
	var fitAt, paramsAt time.Time
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT f.fitted_at, p.fitted_at FROM parameter_fits f
		JOIN learner_parameters p ON p.id = f.parameters_id WHERE f.id = $1`, rec.FitID).Scan(&fitAt, &paramsAt))
	require.True(t, fitAt.After(started), "fitted at %s, the transaction started at %s", fitAt, started)
	require.Equal(t, fitAt, paramsAt)
}
