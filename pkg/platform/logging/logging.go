// Package logging builds the JSON slog logger every Lexora binary uses, in
// the shape Google Cloud Logging reads from a container's output: "severity"
// (DEBUG, INFO, WARNING, ERROR), "message" and "time" in RFC 3339, and, for
// records logged with a context that carries an OpenTelemetry span, the
// trace fields "logging.googleapis.com/trace" (projects/P/traces/T when
// GOOGLE_CLOUD_PROJECT is set), "logging.googleapis.com/spanId" and
// "logging.googleapis.com/trace_sampled", which link the line to its trace.
package logging

import (
	"context"
	"io"
	"log/slog"
	"os"

	"go.opentelemetry.io/otel/trace"
)

// New returns a logger writing one JSON object per line to w, tagged with
// the name of the component (for example "drain").
func New(w io.Writer, component string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: cloudLogging})
	return slog.New(traceHandler{Handler: h, project: os.Getenv("GOOGLE_CLOUD_PROJECT")}).
		With(slog.String("component", component))
}

// traceHandler adds Cloud Logging's trace fields from the record's context.
type traceHandler struct {
	slog.Handler
	project string
}

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		id := sc.TraceID().String()
		if h.project != "" {
			id = "projects/" + h.project + "/traces/" + id
		}
		r.AddAttrs(slog.String("logging.googleapis.com/trace", id),
			slog.String("logging.googleapis.com/spanId", sc.SpanID().String()),
			slog.Bool("logging.googleapis.com/trace_sampled", sc.IsSampled()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceHandler{Handler: h.Handler.WithAttrs(attrs), project: h.project}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{Handler: h.Handler.WithGroup(name), project: h.project}
}

func cloudLogging(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.MessageKey:
		a.Key = "message"
	case slog.LevelKey:
		a.Key = "severity"
		if lvl, ok := a.Value.Any().(slog.Level); ok && lvl >= slog.LevelWarn && lvl < slog.LevelError {
			a.Value = slog.StringValue("WARNING")
		}
	}
	return a
}
