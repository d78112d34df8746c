package outbox

import (
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// In poll-only mode everything, enqueue, claim, acknowledge and idempotent
// consumers, works through PgBouncer in transaction pooling mode.
func TestPollOnlyThroughPgBouncerTransactionPooling(t *testing.T) {
	ctx, direct := setup(t)
	direct.effects(t)
	pool, err := database.Open(ctx, database.Config{URL: pgtest.PgBouncer(t, direct.pool), MaxConns: 8, SimpleProtocol: true})
	require.NoError(t, err)
	defer pool.Close()
	b := bundle{pool: pool.Pool, outbox: direct.outbox}

	events := numbered(t, "t.a", 200)
	for i := 0; i < len(events); i += 20 {
		require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
			return b.outbox.Enqueue(ctx, tx, events[i:i+20]...)
		}))
	}
	h := b.effectHandler()
	var g errgroup.Group
	delivered := make([]int, 2)
	for i := range delivered {
		d := b.drainer(t, map[string]Handler{"s1": h, "s2": h}, Config{StopWhenIdle: true, BatchSize: 25, Concurrency: 4})
		g.Go(func() error {
			rep, err := d.Run(ctx)
			delivered[i] = rep.Delivered
			return err
		})
	}
	require.NoError(t, g.Wait())
	require.Equal(t, 400, delivered[0]+delivered[1])
	require.Equal(t, 400, direct.count(t, "SELECT count(DISTINCT (event_id, subscriber)) FROM effects"))
	require.Equal(t, 400, direct.count(t, "SELECT count(*) FROM effects"))
}
