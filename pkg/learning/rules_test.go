package learning

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestNextDailyReminderIsTheNextSixPMLocal(t *testing.T) {
	t.Parallel()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 8, 59, 0, 0, time.UTC) // 17:59 in Tokyo
	require.Equal(t, time.Date(2026, 3, 1, 18, 0, 0, 0, tokyo), NextDailyReminder(at, tokyo))
	require.Equal(t, time.Date(2026, 3, 2, 18, 0, 0, 0, tokyo), NextDailyReminder(at.Add(time.Minute), tokyo))
}
