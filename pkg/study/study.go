package study

import (
	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Study applies the learner's study rules. It holds no state of its own:
// build one with New wherever its dependencies are at hand; it is safe for
// concurrent use.
type Study struct {
	clock     clock.Clock
	scheduler *learning.Scheduler
}

// New returns a Study that takes instants from clk and schedules cards with
// sched (whose clock should be clk's Now).
func New(clk clock.Clock, sched *learning.Scheduler) Study {
	return Study{clock: clk, scheduler: sched}
}

// Learner is the learner a write acts for: their id and IANA time zone
// (users.timezone; learning.Zone reads it, UTC when unknown).
type Learner struct {
	ID       uuid.UUID
	Timezone string
}

// Viewer is the user a read acts as: a learner reads their own schedule and
// progress, a teacher those of the learners of their classes.
type Viewer struct {
	ID   uuid.UUID
	Role account.Role
}

// assigner is whose assignments v may see of a learner they can see: a
// teacher only their own (a learner can be in several teachers' classes),
// anyone else (the learner) all, as nil.
func (v Viewer) assigner() *uuid.UUID {
	if v.Role == account.Teacher {
		return &v.ID
	}
	return nil
}
