package decks

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// race runs first in a transaction left open, then second in a goroutine
// (its own transaction), waits until second waits for a lock first holds,
// commits first and answers second's error.
func (b bundle) race(t *testing.T, first func(context.Context, pgx.Tx) (events.Batch, error), second func() error) error {
	t.Helper()
	ctx := context.Background()
	tx, err := b.pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	batch, err := first(ctx, tx)
	require.NoError(t, err)
	require.NoError(t, enqueue(tx, batch))
	done := make(chan error, 1)
	go func() { done <- second() }()
	b.waitForLock(t)
	require.NoError(t, tx.Commit(ctx))
	return <-done
}

// TestAnEditRacesJoinsAndAssignments: an edit adding entries to a deck
// while a learner joins the class that has it, or while the deck is
// assigned, in either order: every learner ends with a card of every entry,
// once.
func TestAnEditRacesJoinsAndAssignments(t *testing.T) {
	_, b := setup(t)
	n := 0
	newDeck := func() uuid.UUID {
		n++
		d, err := b.create(t, b.teacher, fmt.Sprintf("Race %d", n), words(2)...)
		require.NoError(t, err)
		return d.ID
	}
	add := func(deck uuid.UUID) func(context.Context, pgx.Tx) (events.Batch, error) {
		return func(ctx context.Context, tx pgx.Tx) (events.Batch, error) {
			_, batch, err := b.decks.EditEntries(ctx, tx, b.teacher, deck, EntriesEdit{Add: []EntryInput{
				{Term: "nuevo1", Meaning: "new 1"}, {Term: "nuevo2", Meaning: "new 2"}, {Term: "nuevo3", Meaning: "new 3"}}})
			return batch, err
		}
	}
	join := func(learner uuid.UUID) func(context.Context, pgx.Tx) (events.Batch, error) {
		return func(ctx context.Context, tx pgx.Tx) (events.Batch, error) {
			_, batch, err := b.classroom.Enroll(ctx, tx, classroom.Actor{ID: learner, Role: account.Learner}, classroom.EnrolRequest{JoinCode: b.joinCode(t, learner)})
			return batch, err
		}
	}
	assignTo := func(class, deck uuid.UUID) func(context.Context, pgx.Tx) (events.Batch, error) {
		return func(ctx context.Context, tx pgx.Tx) (events.Batch, error) {
			_, batch, err := b.classroom.Assign(ctx, tx, b.teacher, classroom.AssignRequest{ClassID: class, DeckID: deck, DueAt: b.clock.Now().Add(7 * 24 * time.Hour)})
			return batch, err
		}
	}
	later := func(op func(context.Context, pgx.Tx) (events.Batch, error)) func() error {
		return func() error {
			_, err := enqueued(b, func(ctx context.Context, tx pgx.Tx) (struct{}, events.Batch, error) {
				batch, err := op(ctx, tx)
				return struct{}{}, batch, err
			})
			return err
		}
	}
	// cards counts each learner's cards of the deck's live entries.
	cards := func(deck uuid.UUID, learners ...uuid.UUID) []int {
		out := make([]int, len(learners))
		for i, l := range learners {
			out[i] = count(t, b, `SELECT count(*) FROM cards c JOIN deck_items di ON di.lexeme_id = c.lexeme_id
				WHERE di.deck_id = $1 AND c.learner_id = $2`, deck, l)
		}
		return out
	}
	for i, editFirst := range []bool{true, false} {
		// A learner joins the class that has the deck.
		deck := newDeck()
		class := b.newClass(t, b.teacher, fmt.Sprintf("JOINR%d", i))
		_, err := b.assign(b.teacher, class, deck)
		require.NoError(t, err)
		joiner := pgtest.User(t, b.pool, fmt.Sprintf("joiner%d@example.com", i), "Joiner", account.Learner, "UTC")
		b.codes[joiner] = fmt.Sprintf("JOINR%d", i)
		if editFirst {
			require.NoError(t, b.race(t, add(deck), later(join(joiner))))
		} else {
			require.NoError(t, b.race(t, join(joiner), later(add(deck))))
			changed := payload[events.DeckEntriesChangedPayload](t, b, deck, events.DeckEntriesChanged)
			require.Equal(t, 3, changed.CardsCreated, "the edit saw the joiner's assignment")
			require.Len(t, changed.Assignments, 1)
		}
		require.Equal(t, []int{5}, cards(deck, joiner), "edit first: %v", editFirst)

		// The deck is assigned to a class of two while it is edited.
		deck = newDeck()
		learners := []uuid.UUID{
			pgtest.User(t, b.pool, fmt.Sprintf("a%d@example.com", i), "A", account.Learner, "UTC"),
			pgtest.User(t, b.pool, fmt.Sprintf("b%d@example.com", i), "B", account.Learner, "UTC"),
		}
		class = b.newClass(t, b.teacher, fmt.Sprintf("ASSIGN%d", i), learners...)
		if editFirst {
			require.NoError(t, b.race(t, add(deck), later(assignTo(class, deck))))
		} else {
			require.NoError(t, b.race(t, assignTo(class, deck), later(add(deck))))
		}
		require.Equal(t, []int{5, 5}, cards(deck, learners...), "edit first: %v", editFirst)
	}
	require.Zero(t, count(t, b, `SELECT count(*) FROM (SELECT learner_id, lexeme_id FROM cards GROUP BY 1, 2 HAVING count(*) > 1) x`))
}

// joinCode is the join code the test gave learner.
func (b bundle) joinCode(t *testing.T, learner uuid.UUID) string {
	t.Helper()
	code, ok := b.codes[learner]
	require.True(t, ok)
	return code
}
