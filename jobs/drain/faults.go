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
// injection harness (jobs/chaos) sets the variable; unset (the default, and
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
