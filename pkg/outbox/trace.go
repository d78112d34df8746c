package outbox

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// Trace context travels from the request that enqueued an event to every
// handler that delivers it, as W3C Trace Context headers ("traceparent",
// "tracestate") stored in the event's headers. Enqueue injects the caller's
// span; the drain extracts it and starts a consumer span under it, so one
// trace shows a request and every effect it caused. With no OpenTelemetry
// SDK installed the spans do not record, but the context still propagates.

var (
	tracer     = otel.Tracer("github.com/lexora-app/lexora/pkg/outbox")
	propagator = propagation.TraceContext{}
)

// headerCarrier adapts event headers to propagation.TextMapCarrier.
type headerCarrier map[string]string

func (h headerCarrier) Get(key string) string { return h[key] }
func (h headerCarrier) Set(key, value string) { h[key] = value }
func (h headerCarrier) Keys() []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	return keys
}

// injectTrace stores ctx's span context in e's headers, unless e already
// carries one.
func injectTrace(ctx context.Context, e *Event) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	if e.Headers == nil {
		e.Headers = map[string]string{}
	} else if _, ok := e.Headers["traceparent"]; ok {
		return
	}
	propagator.Inject(ctx, headerCarrier(e.Headers))
}

// startDeliverySpan continues the event's trace for one delivery.
func startDeliverySpan(ctx context.Context, d Delivery) (context.Context, trace.Span) {
	ctx = propagator.Extract(ctx, headerCarrier(d.Event.Headers))
	return tracer.Start(ctx, "deliver "+d.Event.Topic+" to "+d.Subscriber,
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "lexora-outbox"),
			attribute.String("messaging.destination.name", d.Event.Topic),
			attribute.String("messaging.consumer.group.name", d.Subscriber),
			attribute.String("messaging.message.id", d.Event.ID.String()),
			attribute.Int("messaging.delivery.attempt", d.Attempt),
		))
}

func endDeliverySpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}
