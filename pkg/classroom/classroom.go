package classroom

import (
	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Classroom applies the classroom's rules. It holds no state of its own: build
// one with New wherever its dependencies are at hand.
type Classroom struct {
	outbox    *outbox.Outbox
	clock     clock.Clock
	scheduler *learning.Scheduler
}

// New returns a Classroom that enqueues the learner's daily reminder
// chain through ob (pkg/reminders), takes instants from clk, and creates
// cards in the state of sched's new card.
func New(ob *outbox.Outbox, clk clock.Clock, sched *learning.Scheduler) Classroom {
	return Classroom{outbox: ob, clock: clk, scheduler: sched}
}

// Actor is the user a request acts as.
type Actor struct {
	ID   uuid.UUID
	Role account.Role
}
