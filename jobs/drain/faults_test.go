package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
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

// TestWithTrace: each call of the real handler is logged when it starts and
// when it returns, with its error ("" on success, "panicked" on a panic);
// an injected fault, outside the trace, logs no attempt.
func TestWithTrace(t *testing.T) {
	t.Parallel()
	var lines bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&lines, nil))
	boom := errors.New("boom")
	real := map[string]outbox.Handler{
		"ok":    outbox.HandlerFunc(func(context.Context, outbox.Delivery) error { return nil }),
		"fails": outbox.HandlerFunc(func(context.Context, outbox.Delivery) error { return boom }),
		"panics": outbox.HandlerFunc(func(context.Context, outbox.Delivery) error {
			panic("handler panic")
		}),
	}
	traced := withTrace(real, log)
	id := uuid.New()
	d := func(sub string) outbox.Delivery {
		return outbox.Delivery{ID: 7, Subscriber: sub, Event: outbox.Event{ID: id}}
	}
	require.NoError(t, traced["ok"].Handle(context.Background(), d("ok")))
	require.ErrorIs(t, traced["fails"].Handle(context.Background(), d("fails")), boom)
	require.Panics(t, func() { _ = traced["panics"].Handle(context.Background(), d("panics")) })
	require.ErrorIs(t, withFaults(traced, faultRates{fail: 1}, slog.New(slog.DiscardHandler))["ok"].Handle(context.Background(), d("ok")), errInjected)

	type line struct {
		Msg        string  `json:"msg"`
		DeliveryID int64   `json:"delivery_id"`
		Subscriber string  `json:"subscriber"`
		EventID    string  `json:"event_id"`
		Error      *string `json:"error"`
	}
	var got []line
	for l := range strings.Lines(lines.String()) {
		var x line
		require.NoError(t, json.Unmarshal([]byte(l), &x))
		require.Equal(t, int64(7), x.DeliveryID)
		require.Equal(t, id.String(), x.EventID)
		got = append(got, x)
	}
	errText := func(l line) string {
		if l.Error == nil {
			return "<none>"
		}
		return *l.Error
	}
	var summary []string
	for _, l := range got {
		summary = append(summary, l.Msg+" "+l.Subscriber+" "+errText(l))
	}
	require.Equal(t, []string{
		"chaos attempt ok <none>", "chaos attempt done ok ",
		"chaos attempt fails <none>", "chaos attempt done fails boom",
		"chaos attempt panics <none>", "chaos attempt done panics panicked",
	}, summary)
}
