package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
)

// What the seed starts the demo learners with, so that Today has cards due
// and an assignment with a due date: the first learner (Mia, Learners[0],
// whom the README's first session signs in as) has started SelfStudyDeck on
// her own, and the demo teacher assigned AssignedDeck to the demo class
// (ClassID) as a class, due at the end (classroom.EndOfDay, 11:59 PM) of the
// day SeededAssignmentDueDays (calendar days) after the seed ran, in the
// teacher's zone: each of its learners has it, and a learner who joins with
// JoinCode before that date gets it on joining. Every card is new and due at
// once. The class aims AssignedDeck at AssignedDeckRetention
// (classroom.SetDeckRetention), which the teacher's Classes screen shows
// beside its workload.
const (
	SelfStudyDeck           = "Core English 01"
	AssignedDeck            = "Core English 02"
	SeededAssignmentDueDays = 14
	AssignedDeckRetention   = 0.85
)

// StartFirstLearner starts SelfStudyDeck for Learners[0], has the demo
// teacher assign AssignedDeck to the demo class (to the class, not to one
// learner), and creates her own deck OwnDeck and assigns it to the demo
// class likewise (startOwnDeck), in one transaction on pool, through the
// domain's own rules (study.StartDeck, decks.Decks.Create,
// classroom.Assign, whose events it enqueues), at
// c's current instant. Load must have run. A deck already started is left
// as it is, and so is the class's deck until its due date: running it again
// before then changes nothing; after it, the class's deck is renewed (the
// domain's rule, so that newcomers still get it) and its learners keep the
// assignment they have, with no event. The seed command (`make run`) calls
// it after Load; tests that want the demo learners without study call Load
// alone.
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
	// A second run finds the class with the deck, not yet due, and each of
	// its learners with it (already_assigned), and adds nothing.
	// Due at the end of the day in the teacher's zone, as the assignment
	// form sets it (classroom.EndOfDay): 11:59 PM on Ada's screen.
	zone, err := time.LoadLocation(Teacher.Timezone)
	if err != nil {
		return fmt.Errorf("load %s's zone: %w", Teacher.Name, err)
	}
	due := classroom.EndOfDay(c.Now().AddDate(0, 0, SeededAssignmentDueDays), zone)
	_, batch, err := classroom.New(ob, c, sched).Assign(ctx, tx, TeacherID, classroom.AssignRequest{
		ClassID: ClassID, DeckID: assigned, DueAt: due})
	if err != nil {
		return fmt.Errorf("assign %s to the demo class: %w", AssignedDeck, err)
	}
	evs, err := batch.Events()
	if err != nil {
		return err
	}
	// A second run finds the retention set and enqueues nothing.
	_, retention, err := classroom.SetDeckRetention(ctx, tx, TeacherID, ClassID, assigned, AssignedDeckRetention)
	if err != nil {
		return fmt.Errorf("set the retention of %s: %w", AssignedDeck, err)
	}
	more, err := retention.Events()
	if err != nil {
		return err
	}
	if err := ob.Enqueue(ctx, tx, append(evs, more...)...); err != nil {
		return fmt.Errorf("assign %s to the demo class: %w", AssignedDeck, err)
	}
	return startOwnDeck(ctx, tx, c, sched, ob, due)
}
