package fitting

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
	"github.com/lexora-app/lexora/pkg/store"
)

// The rule's thresholds; the package doc justifies them.
const (
	// MinFirstItems is the number of items (cross-day reviews) a learner's
	// first fit needs.
	MinFirstItems = 400
	// MinNewItems is the number of cross-day reviews after the last fit's
	// last review that make a learner due for another fit.
	MinNewItems = 100
	// Splits is optimizer.TimeSeriesSplit's n: the last of its folds
	// trains on the earlier Splits/(Splits+1) of the items and holds out
	// the rest.
	Splits = 5
	// RMSEMargin is how much higher a kept fit's RMSE(bins) may be than the
	// current parameters' on the held-out reviews.
	RMSEMargin = 0.005
)

// Refusal reasons recorded in parameter_fits.reason for a refused fit.
const (
	ReasonTooFewItems = "too few cross-day reviews"
	ReasonNotBetter   = "does not predict the held-out reviews better"
	ReasonSuperseded  = "superseded: the learner's parameters changed during the fit"
	// ReasonFailed starts the reason of a fit that did not finish (its
	// timeout, FIT_TIMEOUT, or an error): recorded so that the learner is
	// due again only after MinNewItems new reviews, not at every run.
	ReasonFailed     = "the fit failed"
	reasonKept       = "predicts the held-out reviews better"
	outcomeNotFitted = "not-fitted"
)

// ErrAlreadyFitted is returned by [Record] when a fit was recorded since
// [Load] (another execution of the job), and by [Run]'s check before a fit
// when one was recorded since the selection: the learner is due again only
// after [MinNewItems] new reviews since that fit.
var ErrAlreadyFitted = errors.New("fitting: the learner was fitted since")

// Parameters is a learner's parameter set: its learner_parameters id and
// its 21 weights.
type Parameters struct {
	ID      int64
	Weights optimizer.Weights
}

// Input is what a fit of one learner reads.
type Input struct {
	LearnerID uuid.UUID
	Zone      *time.Location
	// Current is the learner's current parameters, nil for the defaults.
	Current *Parameters
	// Reviews are the learner's reviews that are not undone, in time order.
	Reviews []optimizer.Review
	// LastReviewID is the id of the last of them (0: none).
	LastReviewID int64
	// LastFitID is the learner's last fit when loaded (0: none): [Record]
	// records nothing when another fit was recorded since.
	LastFitID int64
}

// Load reads, in tx, learnerID's zone, current parameters and reviews.
// Errors: store.ErrNotFound (wrapped) when the learner does not exist.
func Load(ctx context.Context, tx pgx.Tx, learnerID uuid.UUID) (Input, error) {
	q := store.On(tx)
	tz, err := q.Timezone(ctx, learnerID)
	if err != nil {
		return Input{}, fmt.Errorf("load learner %s: %w", learnerID, err)
	}
	in := Input{LearnerID: learnerID, Zone: learning.Zone(tz)}
	cur, err := current(ctx, q, learnerID)
	if err != nil {
		return Input{}, err
	}
	in.Current = cur
	if in.LastFitID, err = lastFitID(ctx, q, learnerID); err != nil {
		return Input{}, err
	}
	rows, err := q.FitReviews(ctx, learnerID)
	if err != nil {
		return Input{}, fmt.Errorf("load reviews: %w", err)
	}
	in.Reviews = make([]optimizer.Review, len(rows))
	for i, r := range rows {
		in.Reviews[i] = optimizer.Review{Card: r.CardID.String(), Rating: r.Rating, At: r.ReviewedAt}
		in.LastReviewID = max(in.LastReviewID, r.ID)
	}
	return in, nil
}

// lastFitID is the id of the learner's last fit, 0 when none.
func lastFitID(ctx context.Context, q *store.Queries, learnerID uuid.UUID) (int64, error) {
	last, err := q.LastFit(ctx, learnerID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("load last fit: %w", err)
	}
	return last.ID, nil
}

// current is the learner's current parameters, nil for the defaults.
func current(ctx context.Context, q *store.Queries, learnerID uuid.UUID) (*Parameters, error) {
	row, err := q.CurrentParameters(ctx, learnerID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil //nolint:nilnil // no row: the defaults, which have no Parameters
	}
	if err != nil {
		return nil, fmt.Errorf("load current parameters: %w", err)
	}
	if len(row.Weights) != len(optimizer.Weights{}) {
		return nil, fmt.Errorf("learner parameters %d: %d weights", row.ID, len(row.Weights))
	}
	return &Parameters{ID: row.ID, Weights: optimizer.Weights(row.Weights)}, nil
}

// Decision is the result of [Decide]: the fit and its comparison with the
// current parameters on the held-out reviews, and the rule's verdict.
type Decision struct {
	// Items is the number of items of the whole log; TrainItems and
	// TestItems those of the earlier and the held-out later part (0 when
	// no fit was made).
	Items, TrainItems, TestItems int
	// Fitted is set when a fit was made.
	Fitted *optimizer.Result
	// FittedMetrics and CurrentMetrics are the fitted and the current
	// weights on the held-out items (set when a fit was made).
	FittedMetrics, CurrentMetrics optimizer.Metrics
	Kept                          bool
	Reason                        string
}

// Decide fits in's reviews and applies the rule of the package doc
// (deterministic for given reviews). ctx bounds the fit. Errors: an
// invalid log wraps optimizer.ErrInvalidLog; a cancelled ctx its error.
func Decide(ctx context.Context, in Input) (Decision, error) {
	items, err := optimizer.BuildItems(in.Reviews, in.Zone)
	if err != nil {
		return Decision{}, fmt.Errorf("build items: %w", err)
	}
	d := Decision{Items: len(items)}
	if len(items) < MinFirstItems {
		d.Reason = fmt.Sprintf("%s: %d of %d", ReasonTooFewItems, len(items), MinFirstItems)
		return d, nil
	}
	folds := optimizer.TimeSeriesSplit(items, Splits)
	fold := folds[len(folds)-1]
	d.TrainItems, d.TestItems = len(fold.Train), len(fold.Test)
	res, err := optimizer.Fit(ctx, fold.Train, optimizer.Options{})
	if err != nil {
		return Decision{}, fmt.Errorf("fit: %w", err)
	}
	d.Fitted = &res
	cur := learning.DefaultParams().Weights
	if in.Current != nil {
		cur = in.Current.Weights
	}
	if d.FittedMetrics, err = optimizer.Evaluate(res.Weights, fold.Test); err != nil {
		return Decision{}, fmt.Errorf("evaluate the fit: %w", err)
	}
	if d.CurrentMetrics, err = optimizer.Evaluate(cur, fold.Test); err != nil {
		return Decision{}, fmt.Errorf("evaluate the current parameters: %w", err)
	}
	f, c := d.FittedMetrics, d.CurrentMetrics
	d.Kept = f.LogLoss < c.LogLoss && f.RMSEBins <= c.RMSEBins+RMSEMargin
	d.Reason = reasonKept
	if !d.Kept {
		d.Reason = fmt.Sprintf("%s: log loss %.4f against %.4f, RMSE(bins) %.4f against %.4f (margin %.3f)",
			ReasonNotBetter, f.LogLoss, c.LogLoss, f.RMSEBins, c.RMSEBins, RMSEMargin)
	}
	return d, nil
}

// Recorded is what [Record] wrote.
type Recorded struct {
	FitID int64
	// ParametersID is the adopted parameter set, nil when refused.
	ParametersID *int64
	Kept         bool
	Reason       string
}

// Record writes the fit d of in to parameter_fits, in tx, at now (nil: the
// database clock's clock_timestamp() when Record runs, at the end of the
// fit's transaction: the adoption's instant, not the transaction's start),
// after locking the learner's row. A kept fit whose learner's parameters
// changed since [Load] is recorded as refused ([ReasonSuperseded]); one
// still kept becomes the learner's current parameters (fitted_at: the
// same instant), and the batch holds learner.parameters_changed (ordering
// key: the learner). Errors: [ErrAlreadyFitted] (nothing written) when a
// fit was recorded since Load, so a learner is fitted at most once per
// [MinNewItems] new reviews however executions overlap.
func Record(ctx context.Context, tx pgx.Tx, in Input, d Decision, now *time.Time) (Recorded, events.Batch, error) {
	q := store.On(tx)
	batch := events.NewBatch(in.LearnerID.String())
	if _, err := q.LockLearner(ctx, in.LearnerID); err != nil {
		return Recorded{}, batch, fmt.Errorf("lock learner: %w", err)
	}
	last, err := lastFitID(ctx, q, in.LearnerID)
	if err != nil {
		return Recorded{}, batch, err
	}
	if last != in.LastFitID {
		return Recorded{}, batch, ErrAlreadyFitted
	}
	if now == nil {
		at, err := q.AdoptionInstant(ctx)
		if err != nil {
			return Recorded{}, batch, fmt.Errorf("read the adoption instant: %w", err)
		}
		now = &at
	}
	cur, err := current(ctx, q, in.LearnerID)
	if err != nil {
		return Recorded{}, batch, err
	}
	out := Recorded{Kept: d.Kept, Reason: d.Reason}
	if out.Kept && id(cur) != id(in.Current) {
		out.Kept, out.Reason = false, ReasonSuperseded
	}
	p := store.RecordFitParams{LearnerID: in.LearnerID, Now: now, ReviewCount: int32(len(in.Reviews)),
		LastReviewID: in.LastReviewID, TrainItems: int32(d.TrainItems), TestItems: int32(d.TestItems),
		Outcome: outcomeNotFitted, OptimizerVersion: optimizer.Version, Kept: out.Kept, Reason: out.Reason}
	if in.Current != nil {
		p.CurrentParametersID = &in.Current.ID
	}
	if d.Fitted != nil {
		p.Weights, p.Outcome = d.Fitted.Weights[:], d.Fitted.Outcome.String()
		p.LogLoss, p.RmseBins = &d.FittedMetrics.LogLoss, &d.FittedMetrics.RMSEBins
		p.CurrentLogLoss, p.CurrentRmseBins = &d.CurrentMetrics.LogLoss, &d.CurrentMetrics.RMSEBins
	}
	if out.Kept {
		pid, err := q.AdoptParameters(ctx, in.LearnerID, d.Fitted.Weights[:], optimizer.Version, now)
		if err != nil {
			return Recorded{}, batch, fmt.Errorf("adopt parameters: %w", err)
		}
		out.ParametersID, p.ParametersID = &pid, &pid
	}
	fit, err := q.RecordFit(ctx, p)
	if err != nil {
		return Recorded{}, batch, fmt.Errorf("record fit: %w", err)
	}
	out.FitID = fit.ID
	if !out.Kept {
		return out, batch, nil
	}
	ev, err := changed(ctx, q, in, d, out, fit.FittedAt)
	if err != nil {
		return Recorded{}, batch, err
	}
	batch.Add(ev)
	return out, batch, nil
}

// changed is the learner.parameters_changed of the kept fit out of in.
func changed(ctx context.Context, q *store.Queries, in Input, d Decision, out Recorded, at time.Time) (events.LearnerParametersChangedPayload, error) {
	teachers, err := q.LearnerTeachers(ctx, in.LearnerID)
	if err != nil {
		return events.LearnerParametersChangedPayload{}, fmt.Errorf("load teachers: %w", err)
	}
	if teachers == nil {
		teachers = []uuid.UUID{}
	}
	ev := events.LearnerParametersChangedPayload{LearnerID: in.LearnerID, TeacherIDs: teachers, FitID: out.FitID,
		ParametersID: *out.ParametersID, Reviews: len(in.Reviews), LogLoss: d.FittedMetrics.LogLoss,
		RMSEBins: d.FittedMetrics.RMSEBins, PreviousLogLoss: d.CurrentMetrics.LogLoss,
		PreviousRMSEBins: d.CurrentMetrics.RMSEBins, OptimizerVersion: optimizer.Version, FittedAt: at}
	if in.Current != nil {
		ev.PreviousParametersID = &in.Current.ID
	}
	return ev, nil
}

// id is p's id, 0 for the defaults.
func id(p *Parameters) int64 {
	if p == nil {
		return 0
	}
	return p.ID
}

// RecordFailure records, in tx, that the fit of learnerID failed because of
// cause (FIT_TIMEOUT's deadline or an error), as a refused fit whose reason
// is [ReasonFailed] and cause, of the learner's reviews as they are now:
// the learner is due again after [MinNewItems] new reviews, not at the
// next run. lastFit is the last fit the failed one started from. Errors:
// [ErrAlreadyFitted] (nothing written) when another fit was recorded
// since; the store's.
func RecordFailure(ctx context.Context, tx pgx.Tx, learnerID uuid.UUID, lastFit int64, cause string, now *time.Time) (int64, error) {
	q := store.On(tx)
	last, err := lastFitID(ctx, q, learnerID)
	if err != nil {
		return 0, err
	}
	if last != lastFit {
		return 0, ErrAlreadyFitted
	}
	extent, err := q.FitLogExtent(ctx, learnerID)
	if err != nil {
		return 0, fmt.Errorf("load the review log's extent: %w", err)
	}
	cur, err := current(ctx, q, learnerID)
	if err != nil {
		return 0, err
	}
	p := store.RecordFitParams{LearnerID: learnerID, Now: now, ReviewCount: int32(extent.ReviewCount),
		LastReviewID: extent.LastReviewID, Outcome: outcomeNotFitted, OptimizerVersion: optimizer.Version,
		Reason: ReasonFailed + ": " + cause}
	if cur != nil {
		p.CurrentParametersID = &cur.ID
	}
	fit, err := q.RecordFit(ctx, p)
	if err != nil {
		return 0, fmt.Errorf("record failed fit: %w", err)
	}
	return fit.ID, nil
}
