package seed

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
)

// What the seed gives the first demo learner (Mia, Learners[0], whom the
// README's first session signs in as), so that her Today has cards due and
// an assignment with a due date: she has started SelfStudyDeck on her own,
// and the demo teacher assigned her AssignedDeck, due SeededAssignmentDueDays
// (calendar days) after the seed ran. Every card of both is new and due at
// once.
const (
	SelfStudyDeck           = "Core English 01"
	AssignedDeck            = "Core English 02"
	SeededAssignmentDueDays = 14
)

// StartFirstLearner starts SelfStudyDeck for Learners[0] and has the demo
// teacher assign AssignedDeck to her, in one transaction on pool, through
// the learning domain's own rules (study.StartDeck, classroom.Assign, whose
// events it enqueues), at c's current instant. Load must have run. A deck
// already started or assigned is left as it is, so running it again
// changes nothing. The seed command (`make run`) calls it after Load; tests
// that want the demo learners without study call Load alone.
func StartFirstLearner(ctx context.Context, pool *pgxpool.Pool, c clock.Clock) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return startFirstLearner(ctx, tx, c) })
}

func startFirstLearner(ctx context.Context, tx pgx.Tx, c clock.Clock) error {
	sched, err := learning.NewScheduler(learning.DefaultParams(), c)
	if err != nil {
		return err
	}
	q := store.On(tx)
	self, err := q.LibraryDeckByTitle(ctx, SelfStudyDeck)
	if err != nil {
		return fmt.Errorf("find deck %s: %w", SelfStudyDeck, err)
	}
	assigned, err := q.LibraryDeckByTitle(ctx, AssignedDeck)
	if err != nil {
		return fmt.Errorf("find deck %s: %w", AssignedDeck, err)
	}
	mia := Learners[0]
	if _, err := study.New(c, sched).StartDeck(ctx, tx, study.Learner{ID: mia.ID, Timezone: mia.Timezone}, self); err != nil {
		return fmt.Errorf("start %s for %s: %w", SelfStudyDeck, mia.Email, err)
	}
	ob := events.NewOutbox()
	// A second run finds Mia with the deck already (already_assigned), and
	// adds nothing.
	_, batch, err := classroom.New(ob, c, sched).Assign(ctx, tx, TeacherID, classroom.AssignRequest{
		ClassID: ClassID, LearnerID: mia.ID, DeckID: assigned, DueAt: c.Now().AddDate(0, 0, SeededAssignmentDueDays)})
	if err != nil {
		return fmt.Errorf("assign %s to %s: %w", AssignedDeck, mia.Email, err)
	}
	evs, err := batch.Events()
	if err != nil {
		return err
	}
	if err := ob.Enqueue(ctx, tx, evs...); err != nil {
		return fmt.Errorf("assign %s to %s: %w", AssignedDeck, mia.Email, err)
	}
	return nil
}
