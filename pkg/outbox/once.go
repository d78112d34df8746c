package outbox

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

const markProcessedSQL = `
INSERT INTO outbox_processed (subscriber, event_id) VALUES ($1, $2)
ON CONFLICT (subscriber, event_id) DO NOTHING`

// MarkProcessed records that subscriber has processed eventID, inside tx, and
// reports whether this is the first time. Call it as the first statement of
// the consumer's transaction: a concurrent duplicate blocks on the row until
// the first commits (then sees false) or rolls back (then sees true), so two
// copies of one delivery can never both pass.
func MarkProcessed(ctx context.Context, tx pgx.Tx, subscriber string, eventID uuid.UUID) (bool, error) {
	tag, err := tx.Exec(ctx, markProcessedSQL, subscriber, eventID)
	if err != nil {
		return false, fmt.Errorf("mark %s processed by %s: %w", eventID, subscriber, err)
	}
	return tag.RowsAffected() == 1, nil
}

// HandleOnce runs fn in a new transaction on pool that first records
// (d.Subscriber, d.Event.ID). If the record already exists the delivery is a
// duplicate: fn is not called, HandleOnce returns nil and the drain counts
// the delivery as skipped. Otherwise fn's
// changes and the record commit together, or neither does. It returns fn's
// error or the database error, wrapped.
func HandleOnce(ctx context.Context, pool *pgxpool.Pool, d Delivery, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		first, err := MarkProcessed(ctx, tx, d.Subscriber, d.Event.ID)
		if err != nil {
			return err
		}
		if !first {
			markDuplicate(ctx)
			return nil
		}
		if err := fn(tx); err != nil {
			return fmt.Errorf("%s on %s %s: %w", d.Subscriber, d.Event.Topic, d.Event.ID, err)
		}
		return nil
	})
}

const processedSQL = `
SELECT EXISTS (SELECT 1 FROM outbox_processed WHERE subscriber = $1 AND event_id = $2)`

// Processed reports whether d's subscriber has already recorded d's event
// (see MarkProcessed); when it has, the drain counts the delivery as
// skipped. It is for consumers whose effect is outside the database (an
// email, an HTTP call): check with Processed, do the effect outside any
// transaction, then record it with HandleOnce, so that no transaction or
// pooled connection is held across the network call. A crash between the
// effect and the record repeats the effect on the retry, so the effect must
// carry an id derived from the event (a Message-ID, a webhook-id) for the
// receiver to recognise it.
func Processed(ctx context.Context, db DBTX, d Delivery) (bool, error) {
	var done bool
	if err := db.QueryRow(ctx, processedSQL, d.Subscriber, d.Event.ID).Scan(&done); err != nil {
		return false, fmt.Errorf("check %s processed by %s: %w", d.Event.ID, d.Subscriber, err)
	}
	if done {
		markDuplicate(ctx)
	}
	return done, nil
}

type duplicateKey struct{}

// withDuplicateFlag returns a context in which markDuplicate records that
// the handler found its delivery already processed.
func withDuplicateFlag(ctx context.Context) (context.Context, *atomic.Bool) {
	flag := new(atomic.Bool)
	return context.WithValue(ctx, duplicateKey{}, flag), flag
}

func markDuplicate(ctx context.Context) {
	if flag, ok := ctx.Value(duplicateKey{}).(*atomic.Bool); ok {
		flag.Store(true)
	}
}
