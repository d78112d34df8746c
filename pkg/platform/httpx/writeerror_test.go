package httpx

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// A failure is an ERROR, unless the client left first: then it is an INFO
// line that says so (a closed tab must not page the on-call engineer).
func TestWriteErrorLogsAnAbandonedRequestAsInfo(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		canceled bool
		level    string
		message  string
	}{
		{"the request failed", false, "level=ERROR", "request failed"},
		{"the client left", true, "level=INFO", "request abandoned by the client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			ctx, cancel := context.WithCancel(context.Background())
			if tc.canceled {
				cancel()
			} else {
				defer cancel()
			}
			r := httptest.NewRequestWithContext(ctx, http.MethodGet, "/GetSchedule", nil)
			w := httptest.NewRecorder()
			WriteError(w, r, log, errors.New("query cards: context canceled"))
			require.Equal(t, http.StatusInternalServerError, w.Code)
			require.Contains(t, logs.String(), tc.level)
			require.Contains(t, logs.String(), tc.message)
			require.Contains(t, logs.String(), "path=/GetSchedule")
		})
	}
}
