package logging

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"
)

func TestNewWritesCloudLoggingFields(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	New(&buf, "drain").Warn("lease lost", "delivery_id", 7)
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	require.Equal(t, "WARNING", line["severity"])
	require.Equal(t, "lease lost", line["message"])
	require.Equal(t, "drain", line["component"])
	require.EqualValues(t, 7, line["delivery_id"])
	require.Contains(t, line, "time")
}

func TestTraceFieldsComeFromTheContext(t *testing.T) {
	t.Setenv("GOOGLE_CLOUD_PROJECT", "lexora-prod")
	var buf bytes.Buffer
	tid, _ := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	sid, _ := trace.SpanIDFromHex("00f067aa0ba902b7")
	ctx := trace.ContextWithSpanContext(context.Background(),
		trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled}))
	New(&buf, "functions").With("x", 1).InfoContext(ctx, "served")
	var line map[string]any
	require.NoError(t, json.Unmarshal(buf.Bytes(), &line))
	require.Equal(t, "projects/lexora-prod/traces/4bf92f3577b34da6a3ce929d0e0e4736", line["logging.googleapis.com/trace"])
	require.Equal(t, "00f067aa0ba902b7", line["logging.googleapis.com/spanId"])
	require.Equal(t, true, line["logging.googleapis.com/trace_sampled"])

	buf.Reset()
	New(&buf, "functions").Info("no trace")
	require.NotContains(t, buf.String(), "logging.googleapis.com/trace")
}
