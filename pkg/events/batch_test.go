package events

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBatchKeepsOrderKeyAndNotBefore(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	b := NewBatch("learner-1")
	b.Add(ReviewSubmitted, ReviewSubmittedPayload{Review: Review{ReviewID: 7}})
	b.AddAt(ReminderDaily, ReminderDailyPayload{At: at}, at)
	other := NewBatch("learner-1")
	other.Add(CardLeeched, CardLeechedPayload{Lapses: 8})
	b.Join(other)

	evs, err := b.Events()
	require.NoError(t, err)
	require.Len(t, evs, 3)
	require.Equal(t, []string{ReviewSubmitted, ReminderDaily, CardLeeched}, []string{evs[0].Topic, evs[1].Topic, evs[2].Topic})
	for _, ev := range evs {
		require.Equal(t, "learner-1", ev.OrderingKey)
	}
	require.True(t, evs[0].NotBefore.IsZero())
	require.Equal(t, at, evs[1].NotBefore)
	var p ReviewSubmittedPayload
	require.NoError(t, json.Unmarshal(evs[0].Payload, &p))
	require.Equal(t, int64(7), p.ReviewID)
}

func TestBatchKeepsTheFirstError(t *testing.T) {
	t.Parallel()
	b := NewBatch("k")
	b.Add("bad.one", make(chan int)) // a channel cannot be encoded as JSON
	b.Add(ReviewSubmitted, ReviewSubmittedPayload{})
	joined := NewBatch("k")
	joined.Add("bad.two", func() {})
	b.Join(joined)
	_, err := b.Events()
	require.ErrorContains(t, err, "chan int")
}
