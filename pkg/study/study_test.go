package study

import (
	"context"
	"errors"
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
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// bundle is a teacher whose class holds learner, who has two cards of a
// deck the teacher assigned (cat, due now; run, suspended as a leech); a
// learner and a teacher outside that class.
type bundle struct {
	pool                         *pgxpool.Pool
	clock                        *clocktest.Stub
	study                        Study
	teacher, otherTeacher        uuid.UUID
	learner, otherLearner        uuid.UUID
	assignment                   uuid.UUID
	card, suspendedCard, strange uuid.UUID
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
	b.study = New(b.clock, sched)
	user := func(email string, role account.Role) uuid.UUID {
		return pgtest.User(t, b.pool, email, email, role, "Europe/Berlin")
	}
	b.teacher, b.otherTeacher = user("t@example.com", account.Teacher), user("t2@example.com", account.Teacher)
	b.learner, b.otherLearner = user("l@example.com", account.Learner), user("l2@example.com", account.Learner)
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH c AS (INSERT INTO classes (teacher_id, name) VALUES ($1, 'A') RETURNING id),
		     m AS (INSERT INTO class_members (class_id, learner_id) SELECT id, $2::uuid FROM c),
		     d AS (INSERT INTO decks (owner_id, title) VALUES ($1, 'Deck') RETURNING id),
		     l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		           VALUES ('cat', 'noun', 'a feline', 'test'), ('run', 'verb', 'move fast', 'test') RETURNING id),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position) SELECT d.id, l.id, row_number() OVER () FROM d, l)
		INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at) SELECT c.id, d.id, $2, $1, $3 FROM c, d RETURNING id`,
		b.teacher, b.learner, b.clock.Now().AddDate(0, 0, 7)).Scan(&b.assignment))
	card := func(learner uuid.UUID, lemma string, suspended bool) uuid.UUID {
		var id uuid.UUID
		require.NoError(t, b.pool.QueryRow(ctx, `INSERT INTO cards (learner_id, lexeme_id, due, suspended, lapses, state, stability, difficulty)
			SELECT $1, id, $2, $3, CASE WHEN $3 THEN 8 ELSE 0 END, CASE WHEN $3 THEN 3 ELSE 0 END,
			       CASE WHEN $3 THEN 1 ELSE 0 END, CASE WHEN $3 THEN 5 ELSE 0 END
			FROM lexemes WHERE lemma = $4 RETURNING id`, learner, b.clock.Now(), suspended, lemma).Scan(&id))
		return id
	}
	b.card, b.suspendedCard, b.strange = card(b.learner, "cat", false), card(b.learner, "run", true), card(b.otherLearner, "cat", false)
	return ctx, b
}

// rows sums up what a review writes: review log rows, outbox events and
// the cards' states.
func (b bundle) rows(t *testing.T) string {
	t.Helper()
	var s string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT concat_ws(',', (SELECT count(*) FROM review_log),
		(SELECT count(*) FROM outbox_events), (SELECT string_agg(concat(id, state, due, reps, suspended), ';' ORDER BY id) FROM cards),
		(SELECT count(*) FROM assignments WHERE completed_at IS NOT NULL))`).Scan(&s))
	return s
}

// inTx calls do for learner (in Berlin) with req in a transaction of its
// own, as a function does, and answers what do answered.
func inTx[Req, R any](b bundle, learner uuid.UUID, req Req,
	do func(context.Context, pgx.Tx, Learner, Req) (R, events.Batch, error),
) (R, events.Batch, error) {
	var out R
	var batch events.Batch
	err := pgx.BeginFunc(context.Background(), b.pool, func(tx pgx.Tx) (err error) {
		out, batch, err = do(context.Background(), tx, Learner{ID: learner, Timezone: "Europe/Berlin"}, req)
		return err
	})
	return out, batch, err
}

func (b bundle) review(learner uuid.UUID, req ReviewRequest) (ReviewResult, events.Batch, error) {
	return inTx(b, learner, req, b.study.Review)
}

func TestReviewAnswersTypedErrorsAndChangesNothing(t *testing.T) {
	_, b := setup(t)
	before := b.rows(t)
	for _, c := range []struct {
		name    string
		learner uuid.UUID
		req     ReviewRequest
		want    error
	}{
		{"unknown card", b.learner, ReviewRequest{CardID: uuid.New(), Rating: learning.Good}, ErrCardNotFound},
		{"another learner's card", b.learner, ReviewRequest{CardID: b.strange, Rating: learning.Good}, ErrCardNotFound},
		{"a teacher has no cards", b.teacher, ReviewRequest{CardID: b.card, Rating: learning.Good}, ErrCardNotFound},
		{"suspended as a leech", b.learner, ReviewRequest{CardID: b.suspendedCard, Rating: learning.Good}, ErrSuspended},
		{"rating out of range", b.learner, ReviewRequest{CardID: b.card, Rating: 5}, learning.ErrInvalidRating},
		{"made in the future", b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good, ReviewedAt: ptr(b.clock.Now().Add(6 * time.Minute))},
			ErrReviewedInFuture},
		{"made too long ago", b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good, ReviewedAt: ptr(b.clock.Now().Add(-MaxReviewAge - time.Second))},
			ErrReviewTooOld},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := b.review(c.learner, c.req)
			require.ErrorIs(t, err, c.want)
			require.Equal(t, before, b.rows(t), "a refused review changes nothing")
		})
	}
	_, _, err := b.review(b.learner, ReviewRequest{CardID: b.suspendedCard, Rating: learning.Good})
	se, ok := errors.AsType[*SuspendedError](err)
	require.True(t, ok)
	require.Equal(t, 8, se.Lapses)
	require.Equal(t, "this card was suspended as a leech after 8 lapses", se.Error())
}

func TestReviewReturnsItsEvents(t *testing.T) {
	_, b := setup(t)
	out, batch, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	require.Equal(t, "review", out.Card.State)
	require.Equal(t, []uuid.UUID{b.assignment}, out.CompletedAssignments,
		"cat is learned and run is suspended as a leech: the assignment is complete")
	evs, err := batch.Events()
	require.NoError(t, err)
	require.Len(t, evs, 2)
	require.Equal(t, events.ReviewSubmitted, evs[0].Topic)
	require.Equal(t, events.AssignmentCompleted, evs[1].Topic)
	require.Equal(t, b.learner.String(), evs[0].OrderingKey)
	var logged int
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT count(*) FROM review_log WHERE id = $1 AND card_id = $2`,
		out.ReviewID, b.card).Scan(&logged))
	require.Equal(t, 1, logged)
}

func TestReadsAnswerTypedErrors(t *testing.T) {
	ctx, b := setup(t)
	read := func(fn func(tx pgx.Tx) error) error { return pgx.BeginFunc(ctx, b.pool, fn) }
	other := uuid.New()
	for _, c := range []struct {
		name   string
		viewer Viewer
		q      ScheduleQuery
		want   error
	}{
		{"a learner outside the teacher's classes", Viewer{ID: b.teacher, Role: account.Teacher},
			ScheduleQuery{LearnerID: b.otherLearner, Limit: 1, Days: 1}, ErrLearnerNotFound},
		{"another learner", Viewer{ID: b.learner, Role: account.Learner},
			ScheduleQuery{LearnerID: b.otherLearner, Limit: 1, Days: 1}, ErrLearnerNotFound},
		{"another teacher's view of the assignment", Viewer{ID: b.otherTeacher, Role: account.Teacher},
			ScheduleQuery{LearnerID: b.learner, AssignmentID: &b.assignment, Limit: 1, Days: 1}, ErrLearnerNotFound},
		{"an unknown assignment", Viewer{ID: b.learner, Role: account.Learner},
			ScheduleQuery{AssignmentID: &other, Limit: 1, Days: 1}, ErrAssignmentNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := read(func(tx pgx.Tx) error {
				_, err := b.study.Schedule(ctx, tx, c.viewer, c.q)
				return err
			})
			require.ErrorIs(t, err, c.want)
			err = read(func(tx pgx.Tx) error {
				_, err := b.study.Progress(ctx, tx, c.viewer, c.q.LearnerID)
				return err
			})
			if c.q.LearnerID != uuid.Nil {
				require.ErrorIs(t, err, ErrLearnerNotFound)
			}
		})
	}
	err := read(func(tx pgx.Tx) error {
		s, err := b.study.Schedule(ctx, tx, Viewer{ID: b.teacher, Role: account.Teacher},
			ScheduleQuery{LearnerID: b.learner, AssignmentID: &b.assignment, Limit: 10, Days: 3})
		require.Equal(t, 1, s.DueCount, "the suspended card is left out")
		require.Len(t, s.Forecast, 3)
		return err
	})
	require.NoError(t, err)
}

func TestScheduleShowsWhatEachRatingWouldGive(t *testing.T) {
	ctx, b := setup(t)
	b.clock.Advance(90 * time.Second)
	var s Schedule
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
		s, err = b.study.Schedule(ctx, tx, Viewer{ID: b.learner, Role: account.Learner}, ScheduleQuery{Limit: 5, Days: 1})
		return err
	}))
	require.Len(t, s.Due, 1)
	preview := s.Due[0].Preview
	require.Len(t, preview, 4)
	for i, p := range preview {
		require.Equal(t, i+1, p.Rating)
		require.Equal(t, int64(p.Due.Sub(s.Now)/time.Second), p.IntervalSeconds)
	}
	require.Equal(t, int64(60), preview[0].IntervalSeconds, "Again: the first learning step, 1 minute")
	require.Equal(t, "review", preview[3].State, "Easy graduates a new card")
	out, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	require.Equal(t, preview[2].Due, out.Card.Due, "the preview of Good is what Good gives at the same instant")
	require.Equal(t, preview[2].State, out.Card.State)
}

func ptr[T any](v T) *T { return &v }

func TestAReviewBeforeTheCardsLastIsRefused(t *testing.T) {
	_, b := setup(t)
	_, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	before := b.rows(t)
	_, _, err = b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good, ReviewedAt: ptr(b.clock.Now().Add(-time.Second))})
	require.ErrorIs(t, err, ErrBeforeLastReview)
	require.Equal(t, before, b.rows(t))
	_, _, err = b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good, ReviewedAt: ptr(b.clock.Now())})
	require.NoError(t, err, "at the last review's instant is not before it")
}

// TestProgressSaysWhenTheProjectionHasNotCountedAnAssignment: an assignment
// is pending (cards_total 0 for now) until assignment.created has set its
// total, also when a review reached the projection first; a deck without
// words has nothing to count.
func TestProgressSaysWhenTheProjectionHasNotCountedAnAssignment(t *testing.T) {
	ctx, b := setup(t)
	var empty uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (owner_id, title) VALUES ($1, 'Empty') RETURNING id)
		INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
		SELECT a.class_id, d.id, a.learner_id, a.teacher_id, a.due_at + interval '1 day' FROM assignments a, d WHERE a.id = $2 RETURNING id`,
		b.teacher, b.assignment).Scan(&empty))
	pending := func() map[uuid.UUID]bool {
		t.Helper()
		var p Progress
		require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) (err error) {
			p, err = b.study.Progress(ctx, tx, Viewer{ID: b.learner, Role: account.Learner}, uuid.Nil)
			return err
		}))
		out := map[uuid.UUID]bool{}
		for _, a := range p.Assignments {
			out[a.AssignmentID] = a.Pending
		}
		return out
	}
	require.Equal(t, map[uuid.UUID]bool{b.assignment: true, empty: false}, pending(), "before any progress row")

	q := store.On(b.pool)
	require.NoError(t, q.AddToProgress(ctx, store.AddToProgressParams{AssignmentIds: []uuid.UUID{b.assignment},
		LearnerID: b.learner, Seen: 1, Learned: 0, Reviews: 1, Day: b.clock.Now()}))
	require.Equal(t, map[uuid.UUID]bool{b.assignment: true, empty: false}, pending(), "a review counted before the creation")

	total := int32(2)
	require.NoError(t, q.AddToProgress(ctx, store.AddToProgressParams{AssignmentIds: []uuid.UUID{b.assignment}, LearnerID: b.learner, Total: &total}))
	require.Equal(t, map[uuid.UUID]bool{b.assignment: false, empty: false}, pending(), "the creation counted")
}
