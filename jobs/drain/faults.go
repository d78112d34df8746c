package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/lexora-app/lexora/pkg/outbox"
)

// faultRates is DRAIN_CHAOS_SUBSCRIBER_FAULTS parsed: the probability of
// each kind of injected subscriber fault per delivery. Only the fault-
// injection harness (jobs/dev/chaos) sets the variable; unset (the default, and
// every deployment) injects nothing and leaves the handlers untouched.
type faultRates struct {
	fail, timeout, panic float64
}

// parseFaultRates reads "fail=0.02,timeout=0.01,panic=0.01" (any subset,
// each a probability in [0, 1], their sum at most 1). Empty means none.
func parseFaultRates(s string) (faultRates, error) {
	var r faultRates
	if s == "" {
		return r, nil
	}
	for part := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		p, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil || p < 0 || p > 1 {
			return r, fmt.Errorf("DRAIN_CHAOS_SUBSCRIBER_FAULTS: %q is not kind=probability", part)
		}
		switch name {
		case "fail":
			r.fail = p
		case "timeout":
			r.timeout = p
		case "panic":
			r.panic = p
		default:
			return r, fmt.Errorf("DRAIN_CHAOS_SUBSCRIBER_FAULTS: unknown fault %q (fail, timeout, panic)", name)
		}
	}
	if r.fail+r.timeout+r.panic > 1 {
		return r, errors.New("DRAIN_CHAOS_SUBSCRIBER_FAULTS: the rates add up to more than 1")
	}
	return r, nil
}

// errInjected is the error of an injected "fail" fault.
var errInjected = errors.New("chaos: injected subscriber failure")

// withFaults wraps every handler so that, before it runs, a delivery fails
// with errInjected (fail), waits until its deadline (timeout) or panics
// (panic) at the configured rates; otherwise the real handler runs. Each
// injected fault is logged as "injected subscriber fault" with its kind, so
// the harness can count them. With zero rates the handlers are returned as
// they are.
func withFaults(handlers map[string]outbox.Handler, r faultRates, log *slog.Logger) map[string]outbox.Handler {
	if r == (faultRates{}) {
		return handlers
	}
	out := make(map[string]outbox.Handler, len(handlers))
	for name, h := range handlers {
		out[name] = outbox.HandlerFunc(func(ctx context.Context, d outbox.Delivery) error {
			x := rand.Float64()
			kind := ""
			switch {
			case x < r.fail:
				kind = "fail"
			case x < r.fail+r.timeout:
				kind = "timeout"
			case x < r.fail+r.timeout+r.panic:
				kind = "panic"
			default:
				return h.Handle(ctx, d)
			}
			log.Warn("injected subscriber fault", slog.String("kind", kind),
				slog.String("subscriber", d.Subscriber), slog.String("event_id", d.Event.ID.String()))
			switch kind {
			case "fail":
				return errInjected
			case "timeout":
				<-ctx.Done()
				return ctx.Err()
			default:
				panic("chaos: injected subscriber panic")
			}
		})
	}
	return out
}

// withTrace wraps every handler so that each call of the real handler is
// logged when it starts ("chaos attempt") and when it returns or panics
// ("chaos attempt done", with its error, "" when it succeeded), naming the
// delivery, its subscriber and event. The fault-injection harness reads
// these lines to tell which task's attempt was in flight when an email or
// webhook arrived, which deliveries a task held when it was killed, and in
// which order an ordered subscriber saw each key's events. Injected
// subscriber faults happen outside it (withFaults wraps the traced
// handlers), so a traced attempt is always the subscriber's own.
func withTrace(handlers map[string]outbox.Handler, log *slog.Logger) map[string]outbox.Handler {
	out := make(map[string]outbox.Handler, len(handlers))
	for name, h := range handlers {
		out[name] = outbox.HandlerFunc(func(ctx context.Context, d outbox.Delivery) (err error) {
			attrs := []any{slog.Int64("delivery_id", d.ID), slog.String("subscriber", d.Subscriber),
				slog.String("event_id", d.Event.ID.String())}
			log.Info("chaos attempt", attrs...)
			returned := false
			defer func() {
				outcome := "panicked"
				switch {
				case returned && err == nil:
					outcome = ""
				case returned:
					outcome = err.Error()
				}
				log.Info("chaos attempt done", append(attrs, slog.String("error", outcome))...)
			}()
			err = h.Handle(ctx, d)
			returned = true
			return err
		})
	}
	return out
}
