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
	t.Parallel()
	b := setup(t)
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
