package outbox

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// deadSetup is setup with every delivery of subscriber s2 dead and s1's
// delivered.
func deadSetup(t *testing.T) (context.Context, bundle, *Drainer) {
	t.Helper()
	ctx, b := setup(t)
	b.enqueue(t, event(t, "t.a", 1), event(t, "t.a", 2), event(t, "t.b", 3))
	d := b.drainer(t, map[string]Handler{
		"s1": HandlerFunc(func(context.Context, Delivery) error { return nil }),
		"s2": HandlerFunc(func(context.Context, Delivery) error { return Permanent(errors.New("410 gone")) }),
	}, Config{StopWhenIdle: true})
	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, rep.Dead)
	return ctx, b, d
}

func TestDeadLettersAreListedFilteredAndCounted(t *testing.T) {
	ctx, b, _ := deadSetup(t)
	all, err := ListDead(ctx, b.pool, DeadFilter{})
	require.NoError(t, err)
	require.Len(t, all, 2)
	require.Equal(t, "permanent: 410 gone", all[0].LastError)
	require.Equal(t, 1, all[0].Attempts)
	require.Equal(t, "s2", all[0].Subscriber)

	none, err := ListDead(ctx, b.pool, DeadFilter{Subscriber: "s1"})
	require.NoError(t, err)
	require.Empty(t, none)
	byTopic, err := ListDead(ctx, b.pool, DeadFilter{Topic: "t.a", Since: time.Now().Add(-time.Minute)})
	require.NoError(t, err)
	require.Len(t, byTopic, 2)
	future, err := ListDead(ctx, b.pool, DeadFilter{Since: time.Now().Add(time.Hour)})
	require.NoError(t, err)
	require.Empty(t, future)

	h, err := ReadHealth(ctx, b.pool)
	require.NoError(t, err)
	require.Equal(t, []TopicCount{{Subscriber: "s2", Topic: "t.a", Count: 2}}, h.Dead)
	require.Len(t, h.DeliveredPerMinute, 60)
	require.Equal(t, 3, h.DeliveredPerMinute[59]+h.DeliveredPerMinute[58])
	require.Empty(t, h.Backlog)
}

func TestReplayAndSkipAreAudited(t *testing.T) {
	ctx, b, d := deadSetup(t)
	dead, err := ListDead(ctx, b.pool, DeadFilter{})
	require.NoError(t, err)

	_, err = Replay(ctx, b.pool, DeadFilter{}, "ops", "why")
	require.ErrorIs(t, err, ErrEmptyFilter)
	for _, reason := range []string{"", "   ", "\t\u3000"} {
		_, err = Skip(ctx, b.pool, DeadFilter{IDs: []int64{dead[0].ID}}, "ops", reason)
		require.ErrorIs(t, err, ErrNoReason, "skip with reason %q", reason)
		_, err = Replay(ctx, b.pool, DeadFilter{All: true}, "ops", reason)
		require.ErrorIs(t, err, ErrNoReason, "replay with reason %q", reason)
	}
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_audit"), "a refused replay or skip writes no audit row")
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'dead'"), "and changes no delivery")

	n, err := Skip(ctx, b.pool, DeadFilter{IDs: []int64{dead[0].ID}}, "ops@lexora.app", "partner endpoint retired")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = Replay(ctx, b.pool, DeadFilter{All: true}, "ops@lexora.app", "after the fix")
	require.NoError(t, err)
	require.Equal(t, 1, n, "only the remaining dead delivery is replayed")
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE state = 'pending' AND attempts = 0"))
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_deliveries WHERE id = $1", dead[0].ID), "a skipped delivery is resolved")
	require.Equal(t, 2, b.count(t, `SELECT count(*) FROM outbox_audit WHERE actor = 'ops@lexora.app'
		AND last_error = 'permanent: 410 gone' AND attempts = 1`))
	require.Equal(t, 1, b.count(t, "SELECT count(*) FROM outbox_audit WHERE action = 'skip' AND reason = 'partner endpoint retired'"))

	h, err := ReadHealth(ctx, b.pool)
	require.NoError(t, err)
	require.Equal(t, []TopicBacklog{{Subscriber: "s2", Topic: "t.a", Pending: 1, Due: 1, OldestAgeSeconds: h.Backlog[0].OldestAgeSeconds}}, h.Backlog)

	rep, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, rep.Dead, "the replayed delivery ran again")

	n, err = Replay(ctx, b.pool, DeadFilter{Subscriber: "nobody"}, "ops", "nothing to do")
	require.NoError(t, err)
	require.Zero(t, n)
}

// The reason's limit counts characters (code points), as the API's
// validate tag and the client do, not bytes: 1,000 "é" (2,000 bytes) is
// kept, 1,001 refused.
func TestReasonLimitCountsCharacters(t *testing.T) {
	ctx, b, _ := deadSetup(t)
	dead, err := ListDead(ctx, b.pool, DeadFilter{})
	require.NoError(t, err)

	_, err = Skip(ctx, b.pool, DeadFilter{IDs: []int64{dead[0].ID}}, "ops", strings.Repeat("é", 1001))
	require.ErrorIs(t, err, ErrInvalidFilter)
	require.ErrorContains(t, err, "reason must be UTF-8 text without NUL, at most 1000 characters")
	_, err = Replay(ctx, b.pool, DeadFilter{All: true}, strings.Repeat("é", 201), "why")
	require.ErrorContains(t, err, "actor must be UTF-8 text without NUL, at most 200 characters")
	require.Zero(t, b.count(t, "SELECT count(*) FROM outbox_audit"))

	n, err := Skip(ctx, b.pool, DeadFilter{IDs: []int64{dead[0].ID}}, strings.Repeat("é", 200), strings.Repeat("é", 1000))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	n, err = Replay(ctx, b.pool, DeadFilter{All: true}, "ops", strings.Repeat("é", 1000))
	require.NoError(t, err)
	require.Equal(t, 1, n)
	require.Equal(t, 2, b.count(t, "SELECT count(*) FROM outbox_audit WHERE char_length(reason) = 1000 AND octet_length(reason) = 2000"))
}
