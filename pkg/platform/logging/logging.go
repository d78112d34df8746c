// Package logging builds the JSON slog logger every Lexora binary uses, in
// the shape Google Cloud Logging reads from a container's output: "severity"
// (DEBUG, INFO, WARNING, ERROR), "message" and "time" in RFC 3339.
package logging

import (
	"io"
	"log/slog"
)

// New returns a logger writing one JSON object per line to w, tagged with
// the name of the component (for example "drain").
func New(w io.Writer, component string) *slog.Logger {
	h := slog.NewJSONHandler(w, &slog.HandlerOptions{ReplaceAttr: cloudLogging})
	return slog.New(h).With(slog.String("component", component))
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
