package events

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
)

func TestStudyDayRollsOverAtFourLocalEvenOnDaylightSavingDays(t *testing.T) {
	t.Parallel()
	paris, err := time.LoadLocation("Europe/Paris")
	require.NoError(t, err)
	for local, want := range map[string]string{
		"2026-03-29T04:30:00+02:00": "2026-03-29", // clocks went forward at 02:00
		"2026-03-29T03:30:00+02:00": "2026-03-28",
		"2026-10-25T03:30:00+01:00": "2026-10-24", // clocks went back at 03:00
		"2026-10-25T04:00:00+01:00": "2026-10-25",
		"2026-01-15T23:59:00+01:00": "2026-01-15",
		"2026-01-16T00:30:00+01:00": "2026-01-15",
	} {
		at, err := time.Parse(time.RFC3339, local)
		require.NoError(t, err)
		require.Equal(t, want, StudyDay(at, paris), local)
	}
}

func TestNextDailyReminderIsTheNextSixPMLocal(t *testing.T) {
	t.Parallel()
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	require.NoError(t, err)
	at := time.Date(2026, 3, 1, 8, 59, 0, 0, time.UTC) // 17:59 in Tokyo
	require.Equal(t, time.Date(2026, 3, 1, 18, 0, 0, 0, tokyo), NextDailyReminder(at, tokyo))
	require.Equal(t, time.Date(2026, 3, 2, 18, 0, 0, 0, tokyo), NextDailyReminder(at.Add(time.Minute), tokyo))
}

func TestRoutingIsValid(t *testing.T) {
	t.Parallel()
	_, err := outbox.New(Subscriptions...)
	require.NoError(t, err)
}
