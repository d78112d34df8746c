package fitting

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
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
	// by an overlapping execution: skipped), AlreadyFitted and Failed
	// count what became of them.
	Selected, Kept, Refused, Locked, AlreadyFitted, Failed int
	// Reviews is the number of reviews the fits read.
	Reviews         int
	ReachedDeadline bool
	Duration        time.Duration
	// Errors are the failed fits' errors, by learner.
	Errors map[uuid.UUID]error
}

// Run is one run of the fit job: it selects this task's learners due for a
// fit (store.LearnersDueForFit: [MinFirstItems] cross-day reviews for a
// first fit, [MinNewItems] new ones after the last), most new reviews
// first, at most MaxLearners, and fits each until MaxDuration: one
// transaction per learner holding their advisory fit lock ([Load],
// [Decide], [Record], then ob.Enqueue of its batch). A learner whose fit
// fails is counted and the run goes on. Errors: an invalid cfg
// ([ErrInvalidConfig]); the selection's; a cancelled ctx ends the run with
// the report so far and no error.
func Run(ctx context.Context, pool *pgxpool.Pool, ob *outbox.Outbox, clk clock.Clock, cfg Config) (Report, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return Report{}, err
	}
	start := clk.Now()
	deadline := start.Add(cfg.MaxDuration)
	due, err := store.On(pool).LearnersDueForFit(ctx, store.LearnersDueForFitParams{TaskCount: int64(cfg.TaskCount),
		TaskIndex: int64(cfg.TaskIndex), RolloverHours: learning.RolloverHour, MinFirst: MinFirstItems,
		MinNew: MinNewItems, MaxLearners: int32(cfg.MaxLearners)})
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
		if err := fitOne(ctx, pool, ob, clk, cfg, l.LearnerID, &rep); err != nil {
			rep.Failed++
			rep.Errors[l.LearnerID] = err
		}
	}
	rep.Duration = clk.Now().Sub(start)
	return rep, nil
}

// errLocked: another execution holds the learner's fit lock.
var errLocked = errors.New("locked")

// fitOne fits one learner in one transaction and counts the outcome in rep.
func fitOne(ctx context.Context, pool *pgxpool.Pool, ob *outbox.Outbox, clk clock.Clock, cfg Config, learner uuid.UUID, rep *Report) error {
	fitCtx, cancel := context.WithTimeout(ctx, cfg.FitTimeout)
	defer cancel()
	var rec Recorded
	var reviews int
	err := pgx.BeginFunc(fitCtx, pool, func(tx pgx.Tx) error {
		locked, err := store.On(tx).TryLockFit(fitCtx, learner)
		if err != nil {
			return fmt.Errorf("lock fit: %w", err)
		}
		if !locked {
			return errLocked
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
		return fmt.Errorf("fit learner %s: %w", learner, err)
	}
	rep.Reviews += reviews
	if rec.Kept {
		rep.Kept++
	} else {
		rep.Refused++
	}
	return nil
}
