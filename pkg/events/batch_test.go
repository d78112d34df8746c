package events

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestBatchKeepsOrderKeyAndNotBefore(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	b := NewBatch("learner-1")
	b.Add(ReviewSubmittedPayload{Review: Review{ReviewID: 7}})
	b.AddAt(ReminderDailyPayload{At: at}, at)
	other := NewBatch("learner-1")
	other.Add(CardLeechedPayload{Lapses: 8})
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
	p, err := Decode[ReviewSubmittedPayload](evs[0])
	require.NoError(t, err)
	require.Equal(t, int64(7), p.ReviewID)
}

// unencodable is a payload that JSON cannot encode: a channel.
type unencodable struct{ C chan int }

func (unencodable) Topic() string { return "bad.one" }

// unencodableToo is another, a function.
type unencodableToo struct{ F func() }

func (unencodableToo) Topic() string { return "bad.two" }

func TestBatchKeepsTheFirstError(t *testing.T) {
	t.Parallel()
	b := NewBatch("k")
	b.Add(unencodable{C: make(chan int)})
	b.Add(ReviewSubmittedPayload{})
	joined := NewBatch("k")
	joined.Add(unencodableToo{F: func() {}})
	b.Join(joined)
	_, err := b.Events()
	require.ErrorContains(t, err, "encode bad.one payload")
	require.ErrorContains(t, err, "chan int")
}
