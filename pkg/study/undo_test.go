package study

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
)

func (b bundle) undo(learner uuid.UUID, req UndoRequest) (UndoResult, events.Batch, error) {
	return inTx(b, learner, req, b.study.Undo)
}

// cardState is every column of the card an undo restores.
func (b bundle) cardState(t *testing.T, card uuid.UUID) string {
	t.Helper()
	var s string
	require.NoError(t, b.pool.QueryRow(context.Background(), `SELECT concat_ws('|', state, due, stability, difficulty, elapsed_days,
		scheduled_days, reps, lapses, step, coalesce(last_review::text, 'never'), suspended) FROM cards WHERE id = $1`, card).Scan(&s))
	return s
}

// undone decodes the batch's one event, review.undone, and returns it with
// its payload as sent.
func undone(t *testing.T, batch events.Batch) (events.ReviewUndonePayload, string) {
	t.Helper()
	evs, err := batch.Events()
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, events.ReviewUndone, evs[0].Topic)
	var p events.ReviewUndonePayload
	require.NoError(t, json.Unmarshal(evs[0].Payload, &p))
	return p, string(evs[0].Payload)
}

func TestUndoRestoresTheCardAsBeforeItsLastReview(t *testing.T) {
	ctx, b := setup(t)
	fresh := b.cardState(t, b.card)
	first, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	require.NotEqual(t, fresh, b.cardState(t, b.card))

	b.clock.Advance(time.Minute)
	out, batch, err := b.undo(b.learner, UndoRequest{CardID: b.card})
	require.NoError(t, err)
	require.Equal(t, fresh, b.cardState(t, b.card), "the card is as it was before the review")
	require.Equal(t, first.ReviewID, out.ReviewID)
	require.Equal(t, "new", out.Card.State)
	require.True(t, b.clock.Now().Equal(out.UndoneAt), "undone at the clock's now")
	p, raw := undone(t, batch)
	want, err := json.Marshal(events.ReviewUndonePayload{
		Review: events.Review{ReviewID: first.ReviewID, CardID: b.card, LearnerID: b.learner, LexemeID: p.LexemeID,
			Rating: int(learning.Good), StateBefore: int(learning.New), StateAfter: int(learning.Learning),
			ReviewedAt: b.clock.Now().Add(-time.Minute), StudyDay: "2026-03-02"},
		UndoneAt: b.clock.Now(), AssignmentIDs: []uuid.UUID{b.assignment}, LaterAssignmentIDs: []uuid.UUID{}})
	require.NoError(t, err)
	require.JSONEq(t, string(want), raw)
	require.NotEqual(t, uuid.Nil, p.LexemeID)
	var logged, undos int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM review_log), (SELECT count(*) FROM review_undo
		WHERE review_id = $1 AND card_id = $2 AND learner_id = $3)`, first.ReviewID, b.card, b.learner).Scan(&logged, &undos))
	require.Equal(t, []int{1, 1}, []int{logged, undos}, "the log keeps the review; the undo is a row of its own")
	_, err = b.pool.Exec(ctx, "DELETE FROM review_undo")
	require.ErrorContains(t, err, "append-only")

	// The card is reviewed again: that review is the last, and can be undone
	// by its id, back to the same state.
	again, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	_, _, err = b.undo(b.learner, UndoRequest{CardID: b.card, ReviewID: &again.ReviewID})
	require.NoError(t, err)
	require.Equal(t, fresh, b.cardState(t, b.card))
}

// An assignment that a review completed stays completed after the undo; a
// later assignment of the lexeme is named apart from those that counted the
// review.
func TestUndoKeepsCompletionAndNamesLaterAssignments(t *testing.T) {
	ctx, b := setup(t)
	out, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Easy})
	require.NoError(t, err)
	require.Equal(t, []uuid.UUID{b.assignment}, out.CompletedAssignments)
	var later uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH d AS (INSERT INTO decks (title) VALUES ('Later') RETURNING id),
		     i AS (INSERT INTO deck_items (deck_id, lexeme_id, position) SELECT d.id, l.id, 1 FROM d, lexemes l WHERE l.lemma = 'cat')
		INSERT INTO assignments (class_id, deck_id, learner_id, teacher_id, due_at)
		SELECT (SELECT id FROM classes WHERE teacher_id = $2), d.id, $1, $2, $3 FROM d RETURNING id`,
		b.learner, b.teacher, b.clock.Now().AddDate(0, 0, 7)).Scan(&later))

	_, batch, err := b.undo(b.learner, UndoRequest{CardID: b.card})
	require.NoError(t, err)
	p, _ := undone(t, batch)
	require.Equal(t, []uuid.UUID{b.assignment}, p.AssignmentIDs)
	require.Equal(t, []uuid.UUID{later}, p.LaterAssignmentIDs)
	var completed int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*) FROM assignments WHERE id = $1 AND completed_at IS NOT NULL",
		b.assignment).Scan(&completed))
	require.Equal(t, 1, completed, "an assignment the undone review completed stays completed")
}

func TestUndoOfTheReviewThatMadeALeechLiftsTheSuspension(t *testing.T) {
	ctx, b := setup(t)
	_, err := b.pool.Exec(ctx, `UPDATE cards SET state = $2, lapses = $3, stability = 20, difficulty = 6,
		reps = 20, scheduled_days = 10, last_review = $4, due = $5 WHERE id = $1`, b.card, learning.Review, learning.LeechLapses-1,
		b.clock.Now().AddDate(0, 0, -10), b.clock.Now())
	require.NoError(t, err)
	before := b.cardState(t, b.card)
	out, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Again})
	require.NoError(t, err)
	require.True(t, out.Card.Suspended)

	res, batch, err := b.undo(b.learner, UndoRequest{CardID: b.card})
	require.NoError(t, err)
	require.False(t, res.Card.Suspended)
	require.Equal(t, before, b.cardState(t, b.card))
	p, _ := undone(t, batch)
	require.True(t, p.Unsuspended)
	_, _, err = b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err, "the card takes reviews again")
}

func TestUndoRefusalsChangeNothing(t *testing.T) {
	ctx, b := setup(t)
	first, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Again})
	require.NoError(t, err)
	b.clock.Advance(2 * time.Minute)
	second, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	// Both undone, the last first.
	for _, want := range []int64{second.ReviewID, first.ReviewID} {
		out, _, err := b.undo(b.learner, UndoRequest{CardID: b.card})
		require.NoError(t, err)
		require.Equal(t, want, out.ReviewID)
	}
	// A review of a card recorded before undo existed (schema 00019).
	var old uuid.UUID
	require.NoError(t, b.pool.QueryRow(ctx, `
		WITH l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source) VALUES ('dog', 'noun', 'a canine', 'test') RETURNING id)
		INSERT INTO cards (learner_id, lexeme_id, due, state, reps, last_review) SELECT $1, l.id, $2, 1, 1, $2 FROM l RETURNING id`,
		b.learner, b.clock.Now()).Scan(&old))
	_, err = b.pool.Exec(ctx, `INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before, state_after, due_after,
		stability, difficulty, elapsed_days, scheduled_days, reviewed_at) VALUES ($1, $2, 3, 0, $3, 1, $3, 1, 5, 0, 0, $3)`,
		old, b.learner, b.clock.Now())
	require.NoError(t, err)

	rows := func() string {
		var undos string
		require.NoError(t, b.pool.QueryRow(ctx, "SELECT count(*)::text FROM review_undo").Scan(&undos))
		return b.rows(t) + "," + undos
	}
	before := rows()
	for _, c := range []struct {
		name    string
		learner uuid.UUID
		req     UndoRequest
		want    error
	}{
		{"a card without a review", b.learner, UndoRequest{CardID: b.suspendedCard}, ErrNothingToUndo},
		{"another learner's card", b.learner, UndoRequest{CardID: b.strange}, ErrCardNotFound},
		{"an unknown card", b.learner, UndoRequest{CardID: uuid.New()}, ErrCardNotFound},
		{"the card of another learner, as them", b.otherLearner, UndoRequest{CardID: b.card}, ErrCardNotFound},
		{"every review undone", b.learner, UndoRequest{CardID: b.card}, ErrAlreadyUndone},
		{"the last, undone, by id", b.learner, UndoRequest{CardID: b.card, ReviewID: &second.ReviewID}, ErrAlreadyUndone},
		{"the first, undone, by id", b.learner, UndoRequest{CardID: b.card, ReviewID: &first.ReviewID}, ErrAlreadyUndone},
		{"a review from before undo existed", b.learner, UndoRequest{CardID: old}, ErrUndoUnavailable},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := b.undo(c.learner, c.req)
			require.ErrorIs(t, err, c.want)
			require.Equal(t, before, rows())
		})
	}
	// An earlier review named while a later one is not undone: refused; the
	// later undone, then the earlier.
	third, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	fourth, _, err := b.review(b.learner, ReviewRequest{CardID: b.card, Rating: learning.Good})
	require.NoError(t, err)
	before = rows()
	_, _, err = b.undo(b.learner, UndoRequest{CardID: b.card, ReviewID: &third.ReviewID})
	require.ErrorIs(t, err, ErrNotLastReview)
	require.Equal(t, before, rows())
	for _, id := range []int64{fourth.ReviewID, third.ReviewID} {
		out, _, err := b.undo(b.learner, UndoRequest{CardID: b.card, ReviewID: &id})
		require.NoError(t, err)
		require.Equal(t, id, out.ReviewID)
	}
}
