package classroom

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/store"
)

// A teacher's daily chores on a class: take a learner out of it, rename it,
// put it in the archive (or take it out), give it a new join code, and name
// a learner as the class sees them. Each is scoped to the teacher's own
// classes: another teacher's class is ErrClassNotFound.

// Removal is what RemoveLearner did.
type Removal struct {
	ClassID   uuid.UUID
	LearnerID uuid.UUID
	// Assignments are the assignments the class had given the learner,
	// deleted with their progress (oldest first; empty when none).
	Assignments []uuid.UUID
}

// RemoveLearner takes learnerID out of teacherID's class classID in tx and
// answers learner.removed. What it does to the learner's study:
//   - the membership goes: the class's screens (members, progress grid,
//     hardest words) no longer show the learner, and the class's decks no
//     longer come to them;
//   - the assignments the class gave them are deleted with their progress
//     projection (assignment_progress, assignment_daily_reviews), so they
//     stop counting in the learner's Today and progress and in the
//     teacher's; reviews in flight for them count nowhere
//     (store.AddToProgress skips deleted assignments);
//   - the learner's cards, their FSRS state and the review log are the
//     learner's own and stay (a card is the learner's memory of a word,
//     whichever deck brought it), as do their streaks, feed, own decks and
//     their other classes' assignments.
//
// The learner may join again (with the class's code, or be added): they get
// the class's decks that are not yet due, with the cards they kept.
// An archived class allows it. Errors: ErrClassNotFound (not the teacher's
// class), ErrLearnerNotFound (not in the class).
func (c Classroom) RemoveLearner(ctx context.Context, tx pgx.Tx, teacherID, classID, learnerID uuid.UUID) (Removal, events.Batch, error) {
	q := store.On(tx)
	// The lock order of Assign and Enroll: the class, then the learner.
	if _, err := lockClass(ctx, q, teacherID, classID); err != nil {
		return Removal{}, events.Batch{}, err
	}
	if err := q.LockUser(ctx, learnerID); err != nil {
		return Removal{}, events.Batch{}, fmt.Errorf("lock learner: %w", err)
	}
	_, err := q.RemoveClassMember(ctx, classID, learnerID)
	if errors.Is(err, store.ErrNotFound) {
		return Removal{}, events.Batch{}, ErrLearnerNotFound
	}
	if err != nil {
		return Removal{}, events.Batch{}, fmt.Errorf("remove learner: %w", err)
	}
	ids, err := q.DeleteClassAssignments(ctx, classID, learnerID)
	if err != nil {
		return Removal{}, events.Batch{}, fmt.Errorf("delete the class's assignments: %w", err)
	}
	if ids == nil {
		ids = []uuid.UUID{}
	}
	batch := events.NewBatch(learnerID.String())
	batch.Add(events.LearnerRemovedPayload{ClassLearner: events.ClassLearner{ClassID: classID, LearnerID: learnerID,
		TeacherID: teacherID}, Assignments: ids})
	return Removal{ClassID: classID, LearnerID: learnerID, Assignments: ids}, batch, nil
}

// ClassChange is an UpdateClass request: a new Name (one line, already
// trimmed; "" leaves it) and Archived (nil leaves it; true puts the class
// in the archive, false takes it out). At least one is set; the caller
// checks it.
type ClassChange struct {
	Name     string
	Archived *bool
}

// ClassState is a class's own fields after a change, without its members
// and decks (ListClasses has them).
type ClassState struct {
	ID         uuid.UUID
	Name       string
	JoinCode   *string
	CreatedAt  time.Time
	ArchivedAt *time.Time
}

// UpdateClass renames teacherID's class classID and puts it in the archive
// or takes it out, as change says, in tx, and answers the class after and
// class.updated naming what changed (nothing for a change that changes
// nothing: then no event). An archived class keeps its members, their
// assignments and cards (they study on), its progress grid and its decks;
// it takes no new learner (its join code finds no class, an enrolment by
// email is ErrClassArchived) and no new deck (Assign answers
// ErrClassArchived), and NewJoinCode refuses it. Archiving again keeps the
// first archived_at. Errors: ErrClassNotFound.
func (c Classroom) UpdateClass(ctx context.Context, tx pgx.Tx, teacherID, classID uuid.UUID, change ClassChange) (ClassState, events.Batch, error) {
	q := store.On(tx)
	before, err := q.TeachersClassName(ctx, classID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return ClassState{}, events.Batch{}, ErrClassNotFound
	}
	if err != nil {
		return ClassState{}, events.Batch{}, fmt.Errorf("load class: %w", err)
	}
	var changes []string
	var row store.RenameClassRow
	if change.Name != "" {
		if row, err = q.RenameClass(ctx, change.Name, classID, teacherID); err != nil {
			return ClassState{}, events.Batch{}, fmt.Errorf("rename class: %w", err)
		}
		if change.Name != before.Name {
			changes = append(changes, events.ClassChangeName)
		}
	}
	if a := change.Archived; a != nil {
		archived, err := q.ArchiveClass(ctx, *a, c.clock.NowOrNil(), classID, teacherID)
		if err != nil {
			return ClassState{}, events.Batch{}, fmt.Errorf("archive class: %w", err)
		}
		row = store.RenameClassRow(archived)
		if *a != (before.ArchivedAt != nil) {
			changes = append(changes, events.ClassChangeArchived)
		}
	}
	state := classState(row)
	if len(changes) == 0 {
		return state, events.Batch{}, nil
	}
	return state, classUpdated(teacherID, state, changes...), nil
}

// NewJoinCode gives teacherID's class classID a fresh join code (as
// CreateClass draws one) in tx and answers the class with it and
// class.updated (without the code). The old code stops at once: from this
// transaction's commit, a learner who gives it finds no class (404, as
// for any unknown code). Members stay; invitations emailed with the old
// code name a code that no longer works, so the teacher sends the new one.
// Errors: ErrClassNotFound, ErrClassArchived (an archived class takes no
// learner, so it has no code to renew).
func (c Classroom) NewJoinCode(ctx context.Context, tx pgx.Tx, teacherID, classID uuid.UUID) (ClassState, events.Batch, error) {
	q := store.On(tx)
	archived, err := lockClass(ctx, q, teacherID, classID)
	if err != nil {
		return ClassState{}, events.Batch{}, err
	}
	if archived {
		return ClassState{}, events.Batch{}, ErrClassArchived
	}
	for range joinCodeTries {
		// A savepoint per draw: a taken code fails its statement, which
		// would abort the caller's transaction.
		sp, err := tx.Begin(ctx)
		if err != nil {
			return ClassState{}, events.Batch{}, fmt.Errorf("new join code: %w", err)
		}
		row, err := store.On(sp).SetJoinCode(ctx, rand.Text()[:8], classID, teacherID)
		if errors.Is(store.Classify(err), store.ErrDuplicate) {
			if err := sp.Rollback(ctx); err != nil {
				return ClassState{}, events.Batch{}, fmt.Errorf("new join code: %w", err)
			}
			continue // the code is taken: draw another
		}
		if err != nil {
			return ClassState{}, events.Batch{}, fmt.Errorf("new join code: %w", err)
		}
		if err := sp.Commit(ctx); err != nil {
			return ClassState{}, events.Batch{}, fmt.Errorf("new join code: %w", err)
		}
		state := classState(store.RenameClassRow(row))
		return state, classUpdated(teacherID, state, events.ClassChangeJoinCode), nil
	}
	return ClassState{}, events.Batch{}, fmt.Errorf("new join code: %d join codes in a row were taken", joinCodeTries)
}

// SetLearnerName gives learnerID, a learner of teacherID's class classID,
// the name the class shows (its members and progress grid), or with name
// "" the account's own name again, in tx. The learner's account, and what
// other classes show, are left alone; no event is enqueued (the name is the
// class's label, which no consumer reads). Errors: ErrClassNotFound,
// ErrLearnerNotFound (not in the class).
func (c Classroom) SetLearnerName(ctx context.Context, tx pgx.Tx, teacherID, classID, learnerID uuid.UUID, name string) error {
	q := store.On(tx)
	if _, err := q.TeachersClassName(ctx, classID, teacherID); errors.Is(err, store.ErrNotFound) {
		return ErrClassNotFound
	} else if err != nil {
		return fmt.Errorf("load class: %w", err)
	}
	var named *string
	if name != "" {
		named = &name
	}
	_, err := q.SetMemberName(ctx, named, classID, learnerID)
	if errors.Is(err, store.ErrNotFound) {
		return ErrLearnerNotFound
	}
	if err != nil {
		return fmt.Errorf("name learner: %w", err)
	}
	return nil
}

// lockClass locks teacherID's class classID (store.LockTeachersClass) and
// answers whether it is archived; ErrClassNotFound when it is not the
// teacher's.
func lockClass(ctx context.Context, q *store.Queries, teacherID, classID uuid.UUID) (archived bool, err error) {
	row, err := q.LockTeachersClass(ctx, classID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return false, ErrClassNotFound
	}
	if err != nil {
		return false, fmt.Errorf("lock class: %w", err)
	}
	return row.Archived, nil
}

// classState is the answer's form of a class row: its times in UTC.
func classState(row store.RenameClassRow) ClassState {
	s := ClassState{ID: row.ID, Name: row.Name, JoinCode: row.JoinCode, CreatedAt: row.CreatedAt.UTC(), ArchivedAt: row.ArchivedAt}
	if s.ArchivedAt != nil {
		utc := s.ArchivedAt.UTC()
		s.ArchivedAt = &utc
	}
	return s
}

// classUpdated is the class.updated batch of a change of state (ordering
// key: the class id).
func classUpdated(teacherID uuid.UUID, s ClassState, changes ...string) events.Batch {
	batch := events.NewBatch(s.ID.String())
	batch.Add(events.ClassUpdatedPayload{ClassID: s.ID, TeacherID: teacherID, Name: s.Name, ArchivedAt: s.ArchivedAt, Changes: changes})
	return batch
}
