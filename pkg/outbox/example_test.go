package outbox_test

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/pgtest"
)

// A request writes its state change and its event in one transaction; a
// drain run later hands the event to each subscriber, whose effect goes
// through HandleOnce so that a redelivery changes nothing.
func Example() {
	ctx := context.Background()
	pool, done := exampleDatabase()
	defer done()

	ob, err := outbox.New(outbox.Subscription{Topic: "review.submitted", Subscriber: "progress"})
	if err != nil {
		panic(err)
	}

	// The request: the state change and the event commit together, or not at all.
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "CREATE TABLE reviews (learner text, rating text)"); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "INSERT INTO reviews VALUES ('learner-1', 'good')"); err != nil {
			return err
		}
		e, err := outbox.NewEvent("review.submitted", "learner-1", map[string]string{"rating": "good"})
		if err != nil {
			return err
		}
		return ob.Enqueue(ctx, tx, e)
	})
	if err != nil {
		panic(err)
	}

	// The subscriber: its effect and its dedup record commit together.
	var delivered []outbox.Delivery
	progress := outbox.HandlerFunc(func(ctx context.Context, d outbox.Delivery) error {
		return outbox.HandleOnce(ctx, pool, d, func(pgx.Tx) error {
			delivered = append(delivered, d)
			fmt.Printf("%s for %s: %s\n", d.Event.Topic, d.Subscriber, d.Event.Payload)
			return nil
		})
	})

	// The drain job: one bounded run that ends when nothing is due.
	drainer, err := outbox.NewDrainer(pool, map[string]outbox.Handler{"progress": progress},
		outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	if err != nil {
		panic(err)
	}
	rep, err := drainer.Run(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Printf("claimed %d, delivered %d\n", rep.Claimed, rep.Delivered)

	// A redelivery (a drain killed before its acknowledgement) finds the
	// dedup record and does nothing.
	if err := progress.Handle(ctx, delivered[0]); err != nil {
		panic(err)
	}
	fmt.Println("effects:", len(delivered))
	// Output:
	// review.submitted for progress: {"rating": "good"}
	// claimed 1, delivered 1
	// effects: 1
}

// exampleDatabase returns a pool on a database of its own (see pgtest) and
// a function that removes it.
func exampleDatabase() (*pgxpool.Pool, func()) {
	tb := &exampleTB{}
	return pgtest.New(tb), tb.cleanup
}

// exampleTB is the part of testing.TB that pgtest uses, for an example,
// which has no *testing.T: failures panic, cleanups run when the example
// calls cleanup. Its other methods are not implemented.
type exampleTB struct {
	testing.TB
	cleanups []func()
}

func (*exampleTB) Helper()                           {}
func (*exampleTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (*exampleTB) Errorf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
func (tb *exampleTB) Cleanup(f func())               { tb.cleanups = append(tb.cleanups, f) }

func (tb *exampleTB) cleanup() {
	for i := len(tb.cleanups) - 1; i >= 0; i-- {
		tb.cleanups[i]()
	}
}
