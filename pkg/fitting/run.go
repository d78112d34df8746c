package fitting

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
)

// Defaults of [Config].
const (
	DefaultMaxDuration = 10 * time.Minute
	DefaultMaxLearners = 500
	DefaultFitTimeout  = 45 * time.Second
)

// Config bounds one run of the fit job (the FIT_* settings; jobs/fit).
type Config struct {
	// MaxDuration ends the run: no fit starts after it (default 10m).
	MaxDuration time.Duration `env:"FIT_MAX_DURATION"`
	// MaxLearners is the most learners a task fits in one run (default 500).
	MaxLearners int `env:"FIT_MAX_LEARNERS"`
	// FitTimeout bounds one learner's fit, whose transaction stays open
	// while it runs: under the connections' 60 s
	// idle_in_transaction_session_timeout (default 45s).
	FitTimeout time.Duration `env:"FIT_TIMEOUT"`
	// TaskIndex and TaskCount split the learners among the parallel tasks
	// of one execution by the hash of their id.
	TaskIndex int `env:"CLOUD_RUN_TASK_INDEX, default=0"`
	TaskCount int `env:"CLOUD_RUN_TASK_COUNT, default=1"`
}

func (c Config) withDefaults() Config {
	c.MaxDuration = cmp.Or(c.MaxDuration, DefaultMaxDuration)
	c.MaxLearners = cmp.Or(c.MaxLearners, DefaultMaxLearners)
	c.FitTimeout = cmp.Or(c.FitTimeout, DefaultFitTimeout)
	c.TaskCount = cmp.Or(c.TaskCount, 1)
	return c
}

// ErrInvalidConfig wraps the errors of [Run] for a configuration it refuses.
var ErrInvalidConfig = errors.New("fitting: invalid configuration")

func (c Config) validate() error {
	switch {
	case c.MaxDuration < 0, c.MaxLearners < 0, c.FitTimeout < 0:
		return fmt.Errorf("%w: limits must not be negative", ErrInvalidConfig)
	case c.TaskIndex < 0 || c.TaskIndex >= c.TaskCount:
		return fmt.Errorf("%w: task index %d outside 0..%d", ErrInvalidConfig, c.TaskIndex, c.TaskCount-1)
	}
	return nil
}

// Report sums up one run.
type Report struct {
	// Selected learners were due for a fit; Kept, Refused, Locked (fitted
	// by an overlapping execution: skipped), AlreadyFitted (fitted by one
	// since the selection: skipped before any work) and Failed count what
	// became of them.
	Selected, Kept, Refused, Locked, AlreadyFitted, Failed int
	// Reviews is the number of reviews the fits read.
	Reviews         int
	ReachedDeadline bool
	Duration        time.Duration
	// Errors are the failed fits' errors, by learner.
	Errors map[uuid.UUID]error
}

// String is the report in a few words: "kept 3, refused 0, failed 1:
// timeout after 45s" (the failures' causes, deduplicated).
func (r Report) String() string {
	s := fmt.Sprintf("kept %d, refused %d, failed %d", r.Kept, r.Refused, r.Failed)
	var causes []string
	for _, err := range r.Errors {
		var f *FitError
		c := err.Error()
		if errors.As(err, &f) {
			c = f.Cause
		}
		if !slices.Contains(causes, c) {
			causes = append(causes, c)
		}
	}
	slices.Sort(causes)
	if len(causes) > 0 {
		s += ": " + strings.Join(causes, "; ")
	}
	return s
}

// FitError is the error of one learner's failed fit in [Report.Errors].
type FitError struct {
	Learner uuid.UUID
	// Cause is why it failed, as recorded: "timeout after 45s" or the
	// error's text.
	Cause string
	// Recorded is set when the failure was recorded in parameter_fits (the
	// learner is due again after MinNewItems new reviews).
	Recorded bool
	Err      error
}

func (e *FitError) Error() string {
	rec := "not recorded"
	if e.Recorded {
		rec = fmt.Sprintf("recorded: due again after %d new reviews", MinNewItems)
	}
	return fmt.Sprintf("fit learner %s: %s (%s): %v", e.Learner, e.Cause, rec, e.Err)
}

func (e *FitError) Unwrap() error { return e.Err }

// Run is one run of the fit job: it selects this task's learners due for a
// fit (store.LearnersDueForFit: [MinFirstItems] cross-day reviews for a
// first fit, [MinNewItems] new ones after the last), most new reviews
// first, at most MaxLearners, and fits each until MaxDuration: one
// transaction per learner holding their advisory fit lock, in which a
// learner fitted since the selection (their last fit is another) is
// skipped before any work, then [Load], [Decide], [Record], then
// ob.Enqueue of its batch. A learner whose fit fails (FIT_TIMEOUT, an
// error) is counted, the failure is recorded ([RecordFailure]) so that the
// next runs do not pick them again before MinNewItems new reviews, and the
// run goes on with the others. Errors: an invalid cfg ([ErrInvalidConfig]);
// the selection's; a cancelled ctx ends the run with the report so far and
// no error.
func Run(ctx context.Context, pool *pgxpool.Pool, ob *outbox.Outbox, clk clock.Clock, cfg Config) (Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Report{}, err
	}
	start := clk.Now()
	deadline := start.Add(cfg.MaxDuration)
	due, err := store.On(pool).LearnersDueForFit(ctx, store.LearnersDueForFitParams{TaskCount: int64(cfg.TaskCount),
		TaskIndex: int64(cfg.TaskIndex), RolloverHours: learning.RolloverHour, MinFirst: MinFirstItems,
		MinNew: MinNewItems, MaxLearners: int32(cfg.MaxLearners), ReviewAgeDays: reviewAgeDays})
	if err != nil {
		return Report{}, fmt.Errorf("select learners: %w", err)
	}
	rep := Report{Selected: len(due), Errors: map[uuid.UUID]error{}}
	for _, l := range due {
		if ctx.Err() != nil {
			break
		}
		if !clk.Now().Before(deadline) {
			rep.ReachedDeadline = true
			break
		}
		err := fitOne(ctx, pool, ob, clk, cfg, l.LearnerID, l.LastFitID, &rep)
		if err == nil || ctx.Err() != nil {
			continue
		}
		rep.Failed++
		rep.Errors[l.LearnerID] = recordFailure(ctx, pool, clk, l.LearnerID, l.LastFitID, cfg, err)
	}
	rep.Duration = clk.Now().Sub(start)
	return rep, nil
}

// reviewAgeDays is study.MaxReviewAge in days: how much earlier than the
// last fit's last review a later review can have been made (offline).
const reviewAgeDays = int32(study.MaxReviewAge / (24 * time.Hour))

// failureTimeout bounds the transaction that records a failed fit.
const failureTimeout = 10 * time.Second

// recordFailure records the failed fit of learner (err) in a transaction
// of its own, holding their fit lock, and returns the [FitError]; nothing
// is recorded when another fit was recorded since the selection.
func recordFailure(ctx context.Context, pool *pgxpool.Pool, clk clock.Clock, learner uuid.UUID, lastFit int64, cfg Config, err error) error {
	fe := &FitError{Learner: learner, Cause: err.Error(), Err: err}
	if errors.Is(err, context.DeadlineExceeded) {
		fe.Cause = fmt.Sprintf("timeout after %s", cfg.FitTimeout)
	}
	recCtx, cancel := context.WithTimeout(ctx, failureTimeout)
	defer cancel()
	recErr := pgx.BeginFunc(recCtx, pool, func(tx pgx.Tx) error {
		// Waiting (at most failureTimeout): the failed fit's own
		// transaction may hold the lock until its server process notices.
		if err := store.On(tx).LockFit(recCtx, learner); err != nil {
			return fmt.Errorf("lock fit: %w", err)
		}
		_, err := RecordFailure(recCtx, tx, learner, lastFit, fe.Cause, clk.NowOrNil())
		return err
	})
	switch {
	case recErr == nil:
		fe.Recorded = true
	case errors.Is(recErr, ErrAlreadyFitted):
	default:
		fe.Err = errors.Join(err, fmt.Errorf("record the failure: %w", recErr))
	}
	return fe
}

// errLocked: another execution holds the learner's fit lock.
var errLocked = errors.New("locked")

// fitOne fits one learner in one transaction and counts the outcome in rep:
// nothing when their last fit is no longer lastFit (the selection's).
func fitOne(ctx context.Context, pool *pgxpool.Pool, ob *outbox.Outbox, clk clock.Clock, cfg Config, learner uuid.UUID, lastFit int64, rep *Report) error {
	fitCtx, cancel := context.WithTimeout(ctx, cfg.FitTimeout)
	defer cancel()
	var rec Recorded
	var reviews int
	err := pgx.BeginFunc(fitCtx, pool, func(tx pgx.Tx) error {
		q := store.On(tx)
		locked, err := q.TryLockFit(fitCtx, learner)
		if err != nil {
			return fmt.Errorf("lock fit: %w", err)
		}
		if !locked {
			return errLocked
		}
		last, err := lastFitID(fitCtx, q, learner)
		if err != nil {
			return err
		}
		if last != lastFit {
			return ErrAlreadyFitted
		}
		in, err := Load(fitCtx, tx, learner)
		if err != nil {
			return err
		}
		reviews = len(in.Reviews)
		d, err := Decide(fitCtx, in)
		if err != nil {
			return err
		}
		var batch events.Batch
		if rec, batch, err = Record(fitCtx, tx, in, d, clk.NowOrNil()); err != nil {
			return err
		}
		evs, err := batch.Events()
		if err != nil {
			return err
		}
		return ob.Enqueue(fitCtx, tx, evs...)
	})
	switch {
	case errors.Is(err, errLocked):
		rep.Locked++
		return nil
	case errors.Is(err, ErrAlreadyFitted):
		rep.AlreadyFitted++
		return nil
	case err != nil:
		return err
	}
	rep.Reviews += reviews
	if rec.Kept {
		rep.Kept++
	} else {
		rep.Refused++
	}
	return nil
}
