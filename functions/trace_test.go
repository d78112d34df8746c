package functions

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/lexora-app/lexora/pkg/outbox"
)

// spanRecorder records the spans of the whole test binary. OpenTelemetry's
// global provider can be set once for tracers taken before it was set (the
// package's tracer is), so a second test or -count=2 must share it.
var spanRecorder = sync.OnceValue(func() *tracetest.SpanRecorder {
	r := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(r)))
	return r
})

// One trace shows the request and every delivery it caused.
func TestTraceContinuesFromRequestToDelivery(t *testing.T) {
	recorder := spanRecorder()
	f := newFixture(t)
	ctx := context.Background()
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"

	req := httptest.NewRequest(http.MethodPost, "/CreateAssignment", strings.NewReader(
		`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", bearer(t, f.teacher))
	req.Header.Set("traceparent", "00-"+traceID+"-00f067aa0ba902b7-01")
	rec := httptest.NewRecorder()
	traced("CreateAssignment", f.svc.CreateAssignment)(rec, req)
	require.Equal(t, http.StatusCreated, rec.Code, rec.Body.String())

	var stored string
	require.NoError(t, f.pool.QueryRow(ctx, "SELECT headers->>'traceparent' FROM outbox_events").Scan(&stored))
	require.Contains(t, stored, traceID)

	seen := make(chan trace.TraceID, 2)
	h := outbox.HandlerFunc(func(ctx context.Context, d outbox.Delivery) error {
		seen <- trace.SpanContextFromContext(ctx).TraceID()
		return nil
	})
	d, err := outbox.NewDrainer(f.pool, map[string]outbox.Handler{"progress": h, "email": h},
		outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Delivered)
	for range 2 {
		require.Equal(t, traceID, (<-seen).String())
	}

	names := map[string]bool{}
	for _, s := range recorder.Ended() {
		if s.SpanContext().TraceID().String() == traceID {
			names[s.Name()] = true
		}
	}
	require.Equal(t, map[string]bool{
		"CreateAssignment":                       true,
		"deliver assignment.created to progress": true,
		"deliver assignment.created to email":    true,
	}, names)
}

// Every event of a request carries its request id, so only a short,
// printable one is kept.
func TestRequestHeadersKeepOnlyAShortRequestID(t *testing.T) {
	t.Parallel()
	actor := user{ID: uuid.New()}
	for id, kept := range map[string]bool{"req-42": true, strings.Repeat("r", 128): true,
		strings.Repeat("r", 129): false, "two words": false, "": false} {
		t.Run(fmt.Sprintf("%d bytes %.20q", len(id), id), func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			r.Header.Set("X-Request-Id", id)
			h := requestHeaders(r, actor)
			require.Equal(t, actor.ID.String(), h["actor"])
			got, ok := h["request_id"]
			require.Equal(t, kept, ok, "%.20q", id)
			if kept {
				require.Equal(t, id, got)
			}
		})
	}
}
