package main

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
)

func TestParseFaultRates(t *testing.T) {
	t.Parallel()
	r, err := parseFaultRates("")
	require.NoError(t, err)
	require.Equal(t, faultRates{}, r)
	r, err = parseFaultRates("fail=0.02, timeout=0.01,panic=0.5")
	require.NoError(t, err)
	require.Equal(t, faultRates{fail: 0.02, timeout: 0.01, panic: 0.5}, r)
	for _, bad := range []string{"fail", "fail=x", "fail=-0.1", "fail=1.5", "crash=0.1", "fail=0.6,panic=0.6"} {
		_, err := parseFaultRates(bad)
		require.Error(t, err, bad)
	}
}

// TestWithFaults: without rates the handlers are the real ones; at rate 1
// each kind of fault happens before the real handler, which never runs.
func TestWithFaults(t *testing.T) {
	t.Parallel()
	ran := 0
	real := map[string]outbox.Handler{"s": outbox.HandlerFunc(func(context.Context, outbox.Delivery) error {
		ran++
		return nil
	})}
	log := slog.New(slog.DiscardHandler)
	d := outbox.Delivery{Subscriber: "s"}

	require.NoError(t, withFaults(real, faultRates{}, log)["s"].Handle(context.Background(), d))
	require.Equal(t, 1, ran)

	require.ErrorIs(t, withFaults(real, faultRates{fail: 1}, log)["s"].Handle(context.Background(), d), errInjected)

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, withFaults(real, faultRates{timeout: 1}, log)["s"].Handle(ctx, d), context.DeadlineExceeded)

	require.Panics(t, func() { _ = withFaults(real, faultRates{panic: 1}, log)["s"].Handle(context.Background(), d) })
	require.Equal(t, 1, ran, "an injected fault must not run the real handler")
}
