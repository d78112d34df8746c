package functions

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// countingWaker counts the hints asked for.
type countingWaker struct{ n atomic.Int64 }

func (w *countingWaker) Wake() { w.n.Add(1) }

// TestWriteWakesTheDrainsAfterItsCommit: a committed write asks for the
// outbox's wake-up hint (Enqueue no longer sends it: pkg/outbox's
// TestWakeIsSentAfterCommitNotWithin, which also shows a Waker's hint
// arriving); a rejected write and an idempotent replay ask for none.
func TestWriteWakesTheDrainsAfterItsCommit(t *testing.T) {
	_, f := setup(t)
	w := &countingWaker{}
	f.svc.waker = w
	f.assign(t)
	require.EqualValues(t, 1, w.n.Load(), "the assignment's hint")
	cards := f.cards(t)

	body := `{"card_id":"` + cards[0].String() + `","rating":3}`
	require.Equal(t, http.StatusOK, f.keyed(t, "k1", f.learner, body).Code)
	require.EqualValues(t, 2, w.n.Load(), "the review's hint")
	require.Equal(t, http.StatusOK, f.keyed(t, "k1", f.learner, body).Code)
	require.EqualValues(t, 2, w.n.Load(), "a replay commits nothing: no hint")
	require.Equal(t, http.StatusBadRequest, f.keyed(t, "k2", f.learner, `{"card_id":"`+cards[1].String()+`","rating":9}`).Code)
	require.EqualValues(t, 2, w.n.Load(), "a rejected write: no hint")
}
