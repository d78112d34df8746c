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
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// BenchmarkEditReachesAClass measures one edit adding MaxEntries entries
// to a deck assigned to a class of 35 learners: 70,000 cards written in
// the edit's transaction, committed with its event (the bound).
// Each iteration edits a fresh deck. Run with
// go test -run '^$' -bench EditReachesAClass -benchtime 3x ./pkg/decks.
func BenchmarkEditReachesAClass(b *testing.B) {
	const learners = 35
	ctx := context.Background()
	pool := pgtest.New(b)
	clk := clocktest.New(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	sched, err := learning.NewScheduler(learning.DefaultParams(), clk)
	require.NoError(b, err)
	d, c := New(clk, sched), classroom.New(events.NewOutbox(), clk, sched)
	teacher := pgtest.User(b, pool, "t@example.com", "T", account.Teacher, "UTC")
	members := make([]uuid.UUID, learners)
	for i := range members {
		members[i] = pgtest.User(b, pool, fmt.Sprintf("l%d@example.com", i), "L", account.Learner, "UTC")
	}
	var class uuid.UUID
	require.NoError(b, pool.QueryRow(ctx, `WITH c AS (INSERT INTO classes (teacher_id, name) VALUES ($1, 'C') RETURNING id),
		m AS (INSERT INTO class_members (class_id, learner_id) SELECT c.id, l FROM c, unnest($2::uuid[]) l) SELECT id FROM c`,
		teacher, members).Scan(&class))
	inTx := func(fn func(pgx.Tx) (events.Batch, error)) {
		require.NoError(b, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			batch, err := fn(tx)
			if err != nil {
				return err
			}
			return enqueue(tx, batch)
		}))
	}
	entries := make([]EntryInput, MaxEntries-1)
	for i := range entries {
		entries[i] = EntryInput{Term: fmt.Sprintf("palabra %d", i), Meaning: fmt.Sprintf("word number %d of the list", i)}
	}
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		var deck Deck
		inTx(func(tx pgx.Tx) (events.Batch, error) {
			var batch events.Batch
			var err error
			deck, batch, err = d.Create(ctx, tx, teacher, NewDeck{DeckInfo: DeckInfo{Title: fmt.Sprintf("Deck %d", i), TermLanguage: "es", MeaningLanguage: "en"},
				Entries: []EntryInput{{Term: "primera", Meaning: "first"}}})
			return batch, err
		})
		inTx(func(tx pgx.Tx) (events.Batch, error) {
			_, batch, err := c.Assign(ctx, tx, teacher, classroom.AssignRequest{ClassID: class, DeckID: deck.ID, DueAt: clk.Now().Add(24 * time.Hour)})
			return batch, err
		})
		b.StartTimer()
		inTx(func(tx pgx.Tx) (events.Batch, error) {
			res, batch, err := d.EditEntries(ctx, tx, teacher, deck.ID, EntriesEdit{Add: entries})
			if err == nil && res.CardsCreated != learners*len(entries) {
				err = fmt.Errorf("%d cards created", res.CardsCreated)
			}
			return batch, err
		})
	}
	b.ReportMetric(float64(learners*len(entries)), "cards/op")
}
