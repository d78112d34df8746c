package classroom

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// bundle is one teacher with a class (join code JOIN1) holding one learner,
// a learner of another teacher's class, and a deck of two lexemes.
type bundle struct {
	pool                         *pgxpool.Pool
	clock                        *clocktest.Stub
	classroom                    Classroom
	teacher, otherTeacher        uuid.UUID
	learner, otherLearner, class uuid.UUID
	deck                         uuid.UUID
}

// setup marks the test parallel and returns a background context and the
// bundle, on a database of the test's own.
func setup(t *testing.T) (context.Context, bundle) {
	t.Helper()
	t.Parallel()
	ctx := context.Background()
	b := bundle{pool: pgtest.New(t), clock: clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))}
	sched, err := learning.NewScheduler(learning.DefaultParams(), b.clock)
	require.NoError(t, err)
	b.classroom = New(events.NewOutbox(), b.clock, sched)
	user := func(email string, role account.Role) uuid.UUID {
		return pgtest.User(t, b.pool, email, email, role, "UTC")
	}
	b.teacher, b.otherTeacher = user("t@example.com", account.Teacher), user("t2@example.com", account.Teacher)
	b.learner, b.otherLearner = user("l@example.com", account.Learner), user("l2@example.com", account.Learner)
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH c1 AS (INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, 'A', 'JOIN1') RETURNING id),
		     c2 AS (INSERT INTO classes (teacher_id, name) VALUES ($2, 'B') RETURNING id),
		     m AS (INSERT INTO class_members (class_id, learner_id)
		           SELECT id, $3::uuid FROM c1 UNION ALL SELECT id, $4::uuid FROM c2)
		SELECT id FROM c1`, b.teacher, b.otherTeacher, b.learner, b.otherLearner).Scan(&b.class))
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (owner_id, title) VALUES ($1, 'Deck') RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		           VALUES ('cat', 'noun', 'a feline', 'test'), ('run', 'verb', 'move fast', 'test') RETURNING id),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position)
		           SELECT d.id, l.id, row_number() OVER () FROM d, l)
		SELECT id FROM d`, b.teacher).Scan(&b.deck))
	return ctx, b
}

// inTx runs fn in a transaction that is rolled back when fn fails, as a
// request's is.
func (b bundle) inTx(t *testing.T, fn func(pgx.Tx) error) error {
	t.Helper()
	return pgx.BeginFunc(context.Background(), b.pool, fn)
}

// rows counts the rows the classroom writes.
func (b bundle) rows(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT concat_ws(',', (SELECT count(*) FROM users),
		(SELECT count(*) FROM class_members), (SELECT count(*) FROM class_invitations), (SELECT count(*) FROM assignments),
		(SELECT count(*) FROM cards), (SELECT count(*) FROM outbox_events), (SELECT count(*) FROM class_decks))`).Scan(&s))
	return s
}

// assign runs Assign for teacher in a transaction and enqueues its events,
// as CreateAssignment does.
func (b bundle) assign(t *testing.T, teacher uuid.UUID, req AssignRequest) (ClassAssignment, error) {
	t.Helper()
	return enqueued(t, b, func(ctx context.Context, tx pgx.Tx) (ClassAssignment, events.Batch, error) {
		return b.classroom.Assign(ctx, tx, teacher, req)
	})
}

// enroll runs Enroll for actor in a transaction and enqueues its events, as
// EnrollLearner does.
func (b bundle) enroll(t *testing.T, actor Actor, req EnrolRequest) (Outcome, error) {
	t.Helper()
	return enqueued(t, b, func(ctx context.Context, tx pgx.Tx) (Outcome, events.Batch, error) {
		return b.classroom.Enroll(ctx, tx, actor, req)
	})
}

// enqueued runs op in one transaction on b's pool and enqueues the events
// it returns in that transaction; op's error (or the enqueue's) rolls back.
func enqueued[T any](t *testing.T, b bundle, op func(context.Context, pgx.Tx) (T, events.Batch, error)) (T, error) {
	t.Helper()
	var out T
	err := b.inTx(t, func(tx pgx.Tx) error {
		var batch events.Batch
		var err error
		if out, batch, err = op(context.Background(), tx); err != nil {
			return err
		}
		evs, err := batch.Events()
		if err != nil {
			return err
		}
		return events.NewOutbox().Enqueue(context.Background(), tx, evs...)
	})
	return out, err
}

// newClass inserts a class of teacher with the join code and the learners.
func (b bundle) newClass(t *testing.T, teacher uuid.UUID, name, code string, learners ...uuid.UUID) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, b.pool.QueryRow(context.Background(), `
		WITH c AS (INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, $2, $3) RETURNING id),
		     m AS (INSERT INTO class_members (class_id, learner_id) SELECT c.id, l FROM c, unnest($4::uuid[]) l)
		SELECT id FROM c`, teacher, name, code, learners).Scan(&id))
	return id
}

// newLearner inserts a learner.
func (b bundle) newLearner(t *testing.T, email string) uuid.UUID {
	t.Helper()
	var id uuid.UUID
	require.NoError(t, b.pool.QueryRow(context.Background(), `INSERT INTO users (email, display_name, role) VALUES ($1, $1, 'learner') RETURNING id`,
		email).Scan(&id))
	return id
}

func TestAssignAnswersTypedErrors(t *testing.T) {
	_, b := setup(t)
	due := b.clock.Now().Add(7 * 24 * time.Hour)
	empty := b.newClass(t, b.teacher, "Empty", "EMPTY1")
	out, err := b.assign(t, b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: due})
	require.NoError(t, err)
	require.Len(t, out.Learners, 1)
	require.Equal(t, StatusAssigned, out.Learners[0].Status)
	require.Equal(t, 2, out.Learners[0].Assignment.Cards)
	require.Equal(t, b.class, out.Learners[0].Assignment.ClassID)
	before := b.rows(t)
	for _, c := range []struct {
		name    string
		teacher uuid.UUID
		req     AssignRequest
		want    error
	}{
		{"unknown class", b.teacher, AssignRequest{ClassID: uuid.New(), DeckID: b.deck, DueAt: due}, ErrClassNotFound},
		{"another teacher's class", b.otherTeacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: due}, ErrClassNotFound},
		{"learner of another class", b.teacher, AssignRequest{ClassID: b.class, LearnerID: b.otherLearner, DeckID: b.deck, DueAt: due}, ErrLearnerNotFound},
		{"learner of the teacher's other class", b.teacher, AssignRequest{ClassID: empty, LearnerID: b.learner, DeckID: b.deck, DueAt: due}, ErrLearnerNotFound},
		{"unknown deck", b.teacher, AssignRequest{ClassID: b.class, DeckID: uuid.New(), DueAt: due}, ErrDeckNotFound},
		{"due now", b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: b.clock.Now()}, ErrDueOutOfRange},
		{"due too late", b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: b.clock.Now().AddDate(0, 0, MaxDueDays+1)}, ErrDueOutOfRange},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.assign(t, c.teacher, c.req)
			require.ErrorIs(t, err, c.want)
			require.Equal(t, before, b.rows(t), "a refused assignment changes nothing")
		})
	}
	t.Run("another teacher's deck", func(t *testing.T) {
		other := b.newClass(t, b.otherTeacher, "Other", "OTHER1", b.learner)
		before := b.rows(t)
		_, err := b.assign(t, b.otherTeacher, AssignRequest{ClassID: other, DeckID: b.deck, DueAt: due})
		require.ErrorIs(t, err, ErrDeckNotFound)
		require.Equal(t, before, b.rows(t))
	})
	t.Run("assigned again", func(t *testing.T) {
		again, err := b.assign(t, b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: due})
		require.NoError(t, err)
		require.Equal(t, []LearnerOutcome{{LearnerID: b.learner, Status: StatusAlreadyAssigned}}, again.Learners)
		require.Zero(t, again.Assigned())
		require.Equal(t, StatusAlreadyAssigned, again.Status)
	})
}

// TestAssignToClassAssignsEveryMember: one request gives each of the
// class's three learners the deck, with each learner's events under the
// learner's ordering key, in one transaction.
func TestAssignToClassAssignsEveryMember(t *testing.T) {
	ctx, b := setup(t)
	second, third := b.newLearner(t, "l3@example.com"), b.newLearner(t, "l4@example.com")
	_, err := b.pool.Exec(ctx, `INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2), ($1, $3)`, b.class, second, third)
	require.NoError(t, err)
	due := b.clock.Now().Add(7 * 24 * time.Hour)
	out, err := b.assign(t, b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: due})
	require.NoError(t, err)
	require.Equal(t, 3, out.Assigned())

	rows, err := b.pool.Query(ctx, `SELECT a.learner_id, (SELECT count(*) FROM outbox_events e
		WHERE e.ordering_key = a.learner_id::text AND e.topic = 'assignment.created' AND e.payload->>'assignment_id' = a.id::text)
		FROM assignments a WHERE a.class_id = $1 AND a.deck_id = $2 AND a.teacher_id = $3 ORDER BY a.learner_id`, b.class, b.deck, b.teacher)
	require.NoError(t, err)
	got := map[uuid.UUID]int{}
	for rows.Next() {
		var l uuid.UUID
		var n int
		require.NoError(t, rows.Scan(&l, &n))
		got[l] = n
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[uuid.UUID]int{b.learner: 1, second: 1, third: 1}, got, "an assignment and its assignment.created per learner")
	var cards, reminders int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM cards), (SELECT count(*) FROM outbox_events WHERE topic = 'reminder.due_soon')`).
		Scan(&cards, &reminders))
	require.Equal(t, []int{6, 3}, []int{cards, reminders}, "two cards and a due-soon reminder each")

	t.Run("one learner of the class", func(t *testing.T) {
		fourth := b.newLearner(t, "l5@example.com")
		_, err := b.pool.Exec(ctx, `INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)`, b.class, fourth)
		require.NoError(t, err)
		out, err := b.assign(t, b.teacher, AssignRequest{ClassID: b.class, LearnerID: fourth, DeckID: b.deck, DueAt: due})
		require.NoError(t, err)
		require.Len(t, out.Learners, 1)
		require.Equal(t, fourth, out.Learners[0].LearnerID)
		require.Equal(t, StatusAssigned, out.Learners[0].Status)
	})
}

// TestAssignmentsStayInTheirClass: a deck assigned through class A is
// neither given to a learner who joins the teacher's class B nor shown in
// B's grid or hardest words, even for a learner in both; a learner who
// joins A gets it.
func TestAssignmentsStayInTheirClass(t *testing.T) {
	ctx, b := setup(t)
	classB := b.newClass(t, b.teacher, "B", "JOINB")
	due := b.clock.Now().Add(7 * 24 * time.Hour)
	_, err := b.assign(t, b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: due})
	require.NoError(t, err)
	// The learner of A joins B too, and lapses on both words of A's deck.
	_, err = b.enroll(t, Actor{ID: b.learner, Role: account.Learner}, EnrolRequest{JoinCode: "JOINB"})
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `UPDATE cards SET lapses = 2 WHERE learner_id = $1`, b.learner)
	require.NoError(t, err)

	newcomer := b.newLearner(t, "new@example.com")
	out, err := b.enroll(t, Actor{ID: newcomer, Role: account.Learner}, EnrolRequest{JoinCode: "JOINB"})
	require.NoError(t, err)
	require.Empty(t, out.Enrollment.Assignments, "nothing from class A")

	gridB, err := ClassProgressOf(ctx, b.pool, b.teacher, classB, b.clock.Now())
	require.NoError(t, err)
	require.Len(t, gridB.Learners, 2)
	for _, row := range gridB.Learners {
		require.Empty(t, row.Assignments, "A's deck is not B's")
	}
	require.Empty(t, gridB.HardestWords)
	gridA, err := ClassProgressOf(ctx, b.pool, b.teacher, b.class, b.clock.Now())
	require.NoError(t, err)
	require.Len(t, gridA.Learners[0].Assignments, 1)
	require.Len(t, gridA.HardestWords, 2)

	out, err = b.enroll(t, Actor{ID: newcomer, Role: account.Learner}, EnrolRequest{JoinCode: "JOIN1"})
	require.NoError(t, err)
	require.Len(t, out.Enrollment.Assignments, 1, "a newcomer to A gets A's deck")
	require.Equal(t, b.class, out.Enrollment.Assignments[0].ClassID)
	require.True(t, due.Equal(out.Enrollment.Assignments[0].DueAt))

	// Assigned through B as well: a second assignment, B's own, for the learner in both.
	both, err := b.assign(t, b.teacher, AssignRequest{ClassID: classB, DeckID: b.deck, DueAt: due.Add(24 * time.Hour)})
	require.NoError(t, err)
	require.Equal(t, 2, both.Assigned())
	gridB, err = ClassProgressOf(ctx, b.pool, b.teacher, classB, b.clock.Now())
	require.NoError(t, err)
	for _, row := range gridB.Learners {
		require.Len(t, row.Assignments, 1)
		require.True(t, due.Add(24*time.Hour).Equal(row.Assignments[0].DueAt), "B's due date")
	}
}

func TestEnrollAnswersTypedErrors(t *testing.T) {
	_, b := setup(t)
	enroll := func(actor Actor, req EnrolRequest) (Outcome, error) { return b.enroll(t, actor, req) }
	teacher, learner := Actor{ID: b.teacher, Role: account.Teacher}, Actor{ID: b.otherLearner, Role: account.Learner}
	before := b.rows(t)
	for _, c := range []struct {
		name  string
		actor Actor
		req   EnrolRequest
		want  error
	}{
		{"already a member", teacher, EnrolRequest{ClassID: b.class, Email: "l@example.com"}, ErrAlreadyEnrolled},
		{"another teacher's class", Actor{ID: b.otherTeacher, Role: account.Teacher}, EnrolRequest{ClassID: b.class, Email: "n@example.com"}, ErrClassNotFound},
		{"unknown join code", learner, EnrolRequest{JoinCode: "NOPE1"}, ErrClassNotFound},
		{"a teacher with a join code", teacher, EnrolRequest{JoinCode: "JOIN1"}, ErrTeacherCannotJoin},
		{"a teacher with an unknown code", teacher, EnrolRequest{JoinCode: "NOPE1"}, ErrTeacherCannotJoin},
		{"a teacher's email", teacher, EnrolRequest{ClassID: b.class, Email: "t2@example.com"}, ErrEmailOfTeacher},
		{"an operator", Actor{ID: b.teacher, Role: account.Operator}, EnrolRequest{ClassID: b.class, Email: "n@example.com"}, ErrClassNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := enroll(c.actor, c.req)
			require.ErrorIs(t, err, c.want)
			require.Equal(t, before, b.rows(t), "a refused enrolment changes nothing")
		})
	}
	t.Run("joined by code", func(t *testing.T) {
		out, err := enroll(learner, EnrolRequest{JoinCode: "join1"})
		require.NoError(t, err)
		require.Nil(t, out.Invitation)
		require.Equal(t, b.class, out.Enrollment.ClassID)
		require.Equal(t, "A", out.Enrollment.ClassName)
		_, err = enroll(learner, EnrolRequest{JoinCode: "JOIN1"})
		require.ErrorIs(t, err, ErrAlreadyEnrolled)
	})
	t.Run("an operator's email is invited without a word", func(t *testing.T) {
		op := pgtest.User(t, b.pool, "ops@example.com", "Ops", account.Operator, "UTC")
		require.NotEqual(t, uuid.Nil, op)
		out, err := enroll(teacher, EnrolRequest{ClassID: b.class, Email: "ops@example.com"})
		require.NoError(t, err)
		require.Nil(t, out.Enrollment)
		require.Equal(t, "invited", out.Invitation.Status)
	})
}

// TestANewcomerJoinsByCode: an identity without an account that gives a
// class's join code gets a learner account, the membership and the
// enrolment's events in one transaction; an unknown code, or none, creates
// nothing, and a second account for the same sign-in is ErrAccountExists.
func TestANewcomerJoinsByCode(t *testing.T) {
	ctx, b := setup(t)
	enroll := func(req EnrolRequest) (Outcome, events.Batch, error) {
		var out Outcome
		var batch events.Batch
		err := b.inTx(t, func(tx pgx.Tx) (err error) {
			out, batch, err = b.classroom.Enroll(ctx, tx, Actor{}, req)
			return err
		})
		return out, batch, err
	}
	n := &Newcomer{ID: uuid.New(), Role: account.Teacher, Subject: "kim-uid", Email: "kim@example.com", DisplayName: "Kim Lee", Timezone: "Asia/Tokyo"}
	before := b.rows(t)
	for name, req := range map[string]EnrolRequest{
		"an unknown code": {JoinCode: "NOPE1", Newcomer: n},
		"no code":         {ClassID: b.class, Email: "x@example.com", Newcomer: n},
	} {
		_, _, err := enroll(req)
		require.ErrorIs(t, err, ErrClassNotFound, name)
		require.Equal(t, before, b.rows(t), "%s creates nothing", name)
	}

	out, batch, err := enroll(EnrolRequest{JoinCode: "join1", Newcomer: n})
	require.NoError(t, err)
	require.Equal(t, b.class, out.Enrollment.ClassID)
	require.Equal(t, "A", out.Enrollment.ClassName)
	require.Equal(t, n.ID, out.Enrollment.LearnerID)
	var role account.Role
	var name, zone, subject string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT role, display_name, timezone, auth_subject FROM users WHERE id = $1 AND email = $2`,
		n.ID, n.Email).Scan(&role, &name, &zone, &subject))
	require.Equal(t, []string{"learner", "Kim Lee", "Asia/Tokyo", "kim-uid"}, []string{string(role), name, zone, subject},
		"a learner, whatever role the newcomer came with")
	var members int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM class_members WHERE class_id = $1 AND learner_id = $2`, b.class, n.ID).Scan(&members))
	require.Equal(t, 1, members)
	evs, err := batch.Events()
	require.NoError(t, err)
	require.NotEmpty(t, evs)
	require.Equal(t, events.LearnerEnrolled, evs[0].Topic)

	_, _, err = enroll(EnrolRequest{JoinCode: "JOIN1", Newcomer: &Newcomer{ID: uuid.New(), Subject: n.Subject, Email: "other@example.com"}})
	require.ErrorIs(t, err, ErrAccountExists, "the same sign-in's concurrent first join")
}

func TestCheckDue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		due  time.Time
		want error
	}{
		{"past", now.Add(-time.Second), ErrDueOutOfRange},
		{"now", now, ErrDueOutOfRange},
		{"next microsecond", now.Add(time.Microsecond), nil},
		{"last day", now.AddDate(0, 0, MaxDueDays), nil},
		{"a day too far", now.AddDate(0, 0, MaxDueDays).Add(time.Microsecond), ErrDueOutOfRange},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.want == nil {
				require.NoError(t, CheckDue(c.due, now))
				return
			}
			require.ErrorIs(t, CheckDue(c.due, now), c.want)
		})
	}
}

func TestClassesAnswerTypedErrors(t *testing.T) {
	ctx, b := setup(t)
	n := Newcomer{ID: uuid.New(), Role: account.Teacher, Subject: "cleo-uid", Email: "cleo@example.com", DisplayName: "Cleo", Timezone: "Europe/Rome"}
	var class Class
	require.NoError(t, b.inTx(t, func(tx pgx.Tx) (err error) {
		if err := b.classroom.AddAccount(ctx, tx, n); err != nil {
			return err
		}
		class, err = b.classroom.CreateClass(ctx, tx, n.ID, "Morning")
		return err
	}))
	require.Regexp(t, `^[A-Z2-7]{8}$`, *class.JoinCode)
	before := b.rows(t)
	for name, again := range map[string]Newcomer{
		"the same subject": {ID: uuid.New(), Role: account.Teacher, Subject: n.Subject, Email: "other@example.com", DisplayName: "X", Timezone: "UTC"},
		"the same email":   {ID: uuid.New(), Role: account.Teacher, Subject: "other-uid", Email: n.Email, DisplayName: "X", Timezone: "UTC"},
	} {
		t.Run(name, func(t *testing.T) {
			err := b.inTx(t, func(tx pgx.Tx) error { return b.classroom.AddAccount(ctx, tx, again) })
			require.ErrorIs(t, err, ErrAccountExists, name)
		})
	}
	require.Equal(t, before, b.rows(t))

	_, err := ClassProgressOf(ctx, b.pool, b.otherTeacher, b.class, b.clock.Now())
	require.ErrorIs(t, err, ErrClassNotFound, "another teacher's class")
	_, err = ClassProgressOf(ctx, b.pool, n.ID, uuid.New(), b.clock.Now())
	require.ErrorIs(t, err, ErrClassNotFound, "an unknown class")
	classes, err := ListClasses(ctx, b.pool, n.ID)
	require.NoError(t, err)
	require.Equal(t, []Class{{ID: class.ID, Name: "Morning", JoinCode: class.JoinCode, CreatedAt: classes[0].CreatedAt, Members: []Member{}, Decks: []ClassDeck{}}}, classes)
	require.WithinDuration(t, b.clock.Now(), classes[0].CreatedAt, 0, "created at the clock's instant")
}

// TestNewTeacherDefaults: a newcomer who gives no name or zone is named by
// their email's local part, in UTC.
func TestNewTeacherDefaults(t *testing.T) {
	ctx, b := setup(t)
	n := Newcomer{ID: uuid.New(), Role: account.Teacher, Subject: "dana-uid", Email: "dana.r@example.com"}
	require.NoError(t, b.inTx(t, func(tx pgx.Tx) error { return b.classroom.AddAccount(ctx, tx, n) }))
	var name, zone string
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT display_name, timezone FROM users WHERE id = $1`, n.ID).Scan(&name, &zone))
	require.Equal(t, []string{"dana.r", "UTC"}, []string{name, zone})
}

// TestAnEmptyClassKeepsItsDecksForLaterLearners: a deck assigned to a class
// nobody has joined is the class's (before, ErrClassEmpty and nothing
// kept): the grid lists it, and a learner who joins gets it with its due
// date. Assigning it again while it is not due changes nothing; once due, a
// new assignment renews it. A deck assigned to one learner is not the
// class's: a newcomer does not get it.
func TestAnEmptyClassKeepsItsDecksForLaterLearners(t *testing.T) {
	ctx, b := setup(t)
	empty := b.newClass(t, b.teacher, "Empty", "EMPTY1")
	due := b.clock.Now().Add(7 * 24 * time.Hour)
	out, err := b.assign(t, b.teacher, AssignRequest{ClassID: empty, DeckID: b.deck, DueAt: due})
	require.NoError(t, err)
	require.Equal(t, StatusAssigned, out.Status)
	require.Empty(t, out.Learners)
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM class_decks WHERE class_id = $1 AND deck_id = $2 AND due_at = $3`, empty, b.deck, due))
	require.Equal(t, 0, count(t, b, `SELECT count(*) FROM assignments WHERE class_id = $1`, empty), "nobody to give it to yet")
	require.Zero(t, count(t, b, `SELECT count(*) FROM outbox_events`)+count(t, b, `SELECT count(*) FROM cards`), "no learner: no card, no event")

	// The teacher's other class has a deck of its own: neither grid shows the other's.
	var other uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `INSERT INTO decks (owner_id, title) VALUES ($1, 'Other class') RETURNING id`, b.teacher).Scan(&other))
	_, err = b.pool.Exec(ctx, `INSERT INTO class_decks (class_id, deck_id, due_at) VALUES ($1, $2, $3)`, b.class, other, due)
	require.NoError(t, err)
	grid, err := ClassProgressOf(ctx, b.pool, b.teacher, empty, b.clock.Now())
	require.NoError(t, err)
	require.Empty(t, grid.Learners)
	require.Equal(t, []ClassDeck{{DeckID: b.deck, DeckTitle: "Deck", DueAt: due, AssignedAt: b.clock.Now(), DesiredRetention: 0.9}}, grid.Decks)
	classes, err := ListClasses(ctx, b.pool, b.teacher)
	require.NoError(t, err)
	i := slices.IndexFunc(classes, func(c Class) bool { return c.ID == empty })
	require.Equal(t, grid.Decks, classes[i].Decks, "the class list shows the class's decks, as its progress does")
	require.Empty(t, classes[i].Members)

	again, err := b.assign(t, b.teacher, AssignRequest{ClassID: empty, DeckID: b.deck, DueAt: due.Add(24 * time.Hour)})
	require.NoError(t, err)
	require.Equal(t, StatusAlreadyAssigned, again.Status, "not due yet: kept as it was")
	require.True(t, due.Equal(again.DueAt), "the answer gives the due date kept, %v", again.DueAt)
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM class_decks WHERE class_id = $1 AND due_at = $2`, empty, again.DueAt))

	joined, err := b.enroll(t, Actor{ID: b.otherLearner, Role: account.Learner}, EnrolRequest{JoinCode: "empty1"})
	require.NoError(t, err)
	require.Len(t, joined.Enrollment.Assignments, 1, "the class's deck, assigned before they joined")
	require.True(t, due.Equal(joined.Enrollment.Assignments[0].DueAt))
	require.Equal(t, 2, count(t, b, `SELECT count(*) FROM cards WHERE learner_id = $1`, b.otherLearner))
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM outbox_events WHERE topic = 'assignment.created' AND ordering_key = $1`, b.otherLearner.String()))

	// A deck for one learner stays theirs.
	var solo uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `INSERT INTO decks (owner_id, title) VALUES ($1, 'Solo') RETURNING id`, b.teacher).Scan(&solo))
	_, err = b.assign(t, b.teacher, AssignRequest{ClassID: empty, LearnerID: b.otherLearner, DeckID: solo, DueAt: due})
	require.NoError(t, err)
	require.Equal(t, 0, count(t, b, `SELECT count(*) FROM class_decks WHERE deck_id = $1`, solo))
	soloAgain, err := b.assign(t, b.teacher, AssignRequest{ClassID: empty, LearnerID: b.otherLearner, DeckID: solo, DueAt: due.Add(time.Hour)})
	require.NoError(t, err)
	require.Equal(t, StatusAlreadyAssigned, soloAgain.Status)
	require.True(t, due.Equal(soloAgain.DueAt), "the learner's due date, kept: %v", soloAgain.DueAt)
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM assignments WHERE deck_id = $1 AND due_at = $2`, solo, soloAgain.DueAt))

	// Once due, assigning it again renews it for those who join later.
	b.clock.Advance(8 * 24 * time.Hour)
	later := b.clock.Now().Add(7 * 24 * time.Hour)
	renewed, err := b.assign(t, b.teacher, AssignRequest{ClassID: empty, DeckID: b.deck, DueAt: later})
	require.NoError(t, err)
	require.Equal(t, StatusAssigned, renewed.Status)
	newcomer := b.newLearner(t, "late@example.com")
	late, err := b.enroll(t, Actor{ID: newcomer, Role: account.Learner}, EnrolRequest{JoinCode: "EMPTY1"})
	require.NoError(t, err)
	require.Len(t, late.Enrollment.Assignments, 1, "the renewed deck, not the one-learner deck")
	require.Equal(t, b.deck, late.Enrollment.Assignments[0].DeckID)
	require.True(t, later.Equal(late.Enrollment.Assignments[0].DueAt))
}

// TestAssignmentRacesJoins: eight learners join a class by code while its
// teacher assigns it a deck, all at once. Whichever commits first, every
// member ends with the deck's assignment exactly once and its cards exactly
// once, and their events agree: one learner.enrolled each, and one
// assignment.created per assignment, under the learner's key.
func TestAssignmentRacesJoins(t *testing.T) {
	_, b := setup(t)
	const joiners = 8
	learners := make([]uuid.UUID, joiners)
	for i := range learners {
		learners[i] = b.newLearner(t, fmt.Sprintf("racer%d@example.com", i))
	}
	start := make(chan struct{})
	errs := make([]error, joiners+1)
	var wg sync.WaitGroup
	for i, l := range learners {
		wg.Go(func() {
			<-start
			_, errs[i] = b.enroll(t, Actor{ID: l, Role: account.Learner}, EnrolRequest{JoinCode: "JOIN1"})
		})
	}
	wg.Go(func() {
		<-start
		_, errs[joiners] = b.assign(t, b.teacher, AssignRequest{ClassID: b.class, DeckID: b.deck, DueAt: b.clock.Now().Add(7 * 24 * time.Hour)})
	})
	close(start)
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	rows, err := b.pool.Query(context.Background(), `
		SELECT m.learner_id::text,
		       (SELECT count(*) FROM assignments a WHERE a.class_id = m.class_id AND a.learner_id = m.learner_id AND a.deck_id = $2),
		       (SELECT count(*) FROM cards c JOIN deck_items di ON di.lexeme_id = c.lexeme_id WHERE di.deck_id = $2 AND c.learner_id = m.learner_id),
		       (SELECT count(*) FROM outbox_events e JOIN assignments a ON a.id::text = e.payload->>'assignment_id'
		        WHERE e.topic = 'assignment.created' AND a.learner_id = m.learner_id AND e.ordering_key = m.learner_id::text),
		       (SELECT count(*) FROM outbox_events e WHERE e.topic = 'learner.enrolled' AND e.ordering_key = m.learner_id::text)
		FROM class_members m WHERE m.class_id = $1 ORDER BY 1`, b.class, b.deck)
	require.NoError(t, err)
	got := map[string][4]int{}
	for rows.Next() {
		var l string
		var n [4]int
		require.NoError(t, rows.Scan(&l, &n[0], &n[1], &n[2], &n[3]))
		got[l] = n
	}
	require.NoError(t, rows.Err())
	want := map[string][4]int{b.learner.String(): {1, 2, 1, 0}} // a member from the start: no enrolment event
	for _, l := range learners {
		want[l.String()] = [4]int{1, 2, 1, 1}
	}
	require.Equal(t, want, got, "per member: assignments of the deck, its cards, assignment.created, learner.enrolled")
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM class_decks WHERE class_id = $1`, b.class))
}

// count answers a count(*) query.
func count(t *testing.T, b bundle, sql string, args ...any) int {
	t.Helper()
	var n int
	require.NoError(t, b.pool.QueryRow(context.Background(), sql, args...).Scan(&n))
	return n
}
