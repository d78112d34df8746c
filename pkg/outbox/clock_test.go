package outbox

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

// A run reads its deadline from its clock: a loop-mode run whose clock
// passes MaxDuration ends at its next wake-up, however long the poll, and
// reports the duration its clock measured.
func TestRunDeadlineFollowsClock(t *testing.T) {
	_, b := setup(t)
	clk := clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
	d := b.drainer(t, map[string]Handler{"s1": HandlerFunc(func(context.Context, Delivery) error { return nil })},
		Config{MaxDuration: time.Hour, PollInterval: time.Hour})
	d.UseClock(clk)
	wake := make(chan struct{}, 1)
	d.WakeOn(wake)
	d.signals.idle.Init(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run := runAsync(d, ctx)
	d.signals.idle.Wait()

	clk.Advance(time.Hour)
	wake <- struct{}{}
	select {
	case res := <-run.done:
		require.NoError(t, res.err)
		require.Equal(t, time.Hour, res.rep.Duration)
	case <-time.After(time.Minute):
		t.Fatal("the run did not end when its clock passed MaxDuration")
	}
}

// steppingClock is a clocktest.Stub that moves on by step each time it is
// read, so that a run sees its own time pass.
type steppingClock struct {
	*clocktest.Stub
	step time.Duration
}

func (c steppingClock) Now() time.Time {
	c.Advance(c.step)
	return c.Stub.Now()
}

// Prune reads its deadline from its clock: a clock that passes MaxDuration
// between the start and the first batch ends the run before that batch, and
// the report gives the duration the clock measured.
func TestPruneDeadlineFollowsClock(t *testing.T) {
	_, b := setup(t)
	b.enqueue(t, event(t, "t.b", 1))
	_, err := b.pool.Exec(context.Background(), `UPDATE outbox_events SET created_at = now() - interval '2 hours';
		DELETE FROM outbox_deliveries`)
	require.NoError(t, err)

	clk := steppingClock{Stub: clocktest.New(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)), step: time.Hour}
	rep, err := Prune(context.Background(), b.pool, PruneConfig{Retention: time.Hour, MaxDuration: time.Minute, Clock: clk})
	require.NoError(t, err)
	require.True(t, rep.ReachedDeadline)
	require.Zero(t, rep.Batches)
	require.Equal(t, 2*time.Hour, rep.Duration, "the start, the deadline check and the end each read the clock")
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_events"), "the event past its retention stays for the next run")
}
