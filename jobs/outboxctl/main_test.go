package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestMain fails the package's tests when they leave goroutines running.
func TestMain(m *testing.M) { leaktest.Main(m) }

func TestDeadLetterCommands(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	t.Setenv("DATABASE_URL", pgtest.URL(pool))
	ob, err := outbox.New(outbox.Subscription{Topic: "x", Subscriber: "webhook"})
	require.NoError(t, err)
	e, err := outbox.NewEvent("x", "k", map[string]int{})
	require.NoError(t, err)
	require.NoError(t, pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error { return ob.Enqueue(ctx, tx, e) }))
	d, err := outbox.NewDrainer(pool, map[string]outbox.Handler{"webhook": outbox.HandlerFunc(
		func(context.Context, outbox.Delivery) error { return outbox.Permanent(errors.New("410 gone")) })},
		outbox.Config{StopWhenIdle: true}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	_, err = d.Run(ctx)
	require.NoError(t, err)

	cli := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(ctx, args, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	code, out := cli("dead", "list", "-subscriber", "webhook")
	require.Equal(t, 0, code, out)
	var list struct{ Dead []outbox.DeadDelivery }
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	require.Len(t, list.Dead, 1)
	require.Equal(t, "permanent: 410 gone", list.Dead[0].LastError)

	code, out = cli("dead", "replay", "-reason", "fixed")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "selects nothing")
	code, _ = cli("dead", "list", "-limit", "0")
	require.Equal(t, 2, code)
	code, _ = cli("dead", "purge")
	require.Equal(t, 2, code)
	code, _ = cli("dead", "list", "-since", "yesterday")
	require.Equal(t, 2, code)
	code, out = cli("dead", "list", "-subscriber", "a\xffb")
	require.Equal(t, 2, code, out)
	require.Contains(t, out, "UTF-8")
	for _, verb := range []string{"replay", "skip"} {
		code, out = cli("dead", verb, "-all")
		require.Equal(t, 2, code, "%s needs a reason: %s", verb, out)
		require.Contains(t, out, "reason")
		code, out = cli("dead", verb, "-id", strconv.FormatInt(list.Dead[0].ID, 10), "-reason", " \t ")
		require.Equal(t, 2, code, "%s refuses a blank reason: %s", verb, out)
	}
	// A topic or subscriber that the routing table (events.Subscriptions)
	// does not name would select nothing: a typo, refused as bad usage.
	for args, refused := range map[string][]string{
		"dead list -subscriber nope":                              {`-subscriber "nope" is no subscriber of the routing table`},
		"dead replay -topic nope -reason fixed":                   {`-topic "nope" is no topic of the routing table`},
		"dead skip -topic no.pe -subscriber nope -reason retired": {`-topic "no.pe" is no topic`, `-subscriber "nope" is no subscriber`},
	} {
		code, out = cli(strings.Fields(args)...)
		require.Equal(t, 2, code, "%s: %s", args, out)
		for _, msg := range refused {
			require.Contains(t, out, msg, args)
		}
	}
	var audited, dead int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM outbox_audit),
		(SELECT count(*) FROM outbox_deliveries WHERE state = 'dead')`).Scan(&audited, &dead))
	require.Equal(t, []int{0, 1}, []int{audited, dead}, "a refused replay or skip writes no audit row and changes nothing")
	code, out = cli("dead", "list", "-reason", "x", "-all")
	require.Equal(t, 2, code, "flags a verb ignores are refused")
	require.Contains(t, out, "does not apply")
	code, _ = cli("dead", "replay", "-all", "-limit", "5")
	require.Equal(t, 2, code)
	code, _ = cli("bogus")
	require.Equal(t, 2, code)

	code, out = cli("dead", "skip", "-all", "-reason", "endpoint retired", "-actor", "oncall@lexora.app")
	require.Equal(t, 0, code, out)
	require.JSONEq(t, `{"skipped":1}`, out)
	var actor, reason string
	require.NoError(t, pool.QueryRow(ctx, "SELECT actor, reason FROM outbox_audit").Scan(&actor, &reason))
	require.Equal(t, []string{"oncall@lexora.app", "endpoint retired"}, []string{actor, reason})

	code, out = cli("health")
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "delivered_per_minute")
}
