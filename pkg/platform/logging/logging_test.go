package logging

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
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
