// Command outboxctl is the operators' tool for the event core: it shows the
// outbox's health and lists, replays and skips dead deliveries. Every replay
// and skip is written to outbox_audit with the actor and reason. It reads
// DATABASE_URL like every Lexora binary, and runs locally or as a one-off
// Cloud Run job execution (the arguments are the job's args).
//
// Usage:
//
//	outboxctl health
//	outboxctl dead list   [-topic T] [-subscriber S] [-since RFC3339] [-until RFC3339] [-limit N]
//	outboxctl dead replay (-id N ... | -topic T | -subscriber S | -since/-until | -all) -reason R
//	outboxctl dead skip   (-id N ... | ...) -reason R
//
// A -topic or -subscriber that the routing table (events.Subscriptions)
// does not name is refused before the database is opened: it would select
// nothing, so it is a typo.
//
// Output is JSON on stdout. Exit status: 0 done, 1 failed, 2 bad usage
// (a refused command, an unknown topic or subscriber included).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/database"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// stderr is where a failure is reported; a failed write to it has
	// nowhere else to go, and the exit status still says what happened.
	say := func(a ...any) { _, _ = fmt.Fprintln(stderr, a...) }
	var cfg database.Config
	if err := envconfig.Process(ctx, &cfg); err != nil {
		say("outboxctl:", err)
		return 1
	}
	err := dispatch(ctx, cfg, args, stdout, stderr)
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		say(strings.TrimSpace(usage))
		return 2
	case errors.Is(err, errUsage):
		say("outboxctl:", err)
		say(strings.TrimSpace(usage))
		return 2
	default:
		say("outboxctl:", err)
		return 1
	}
}

const usage = `
usage:
  outboxctl health
  outboxctl dead list   [-topic T] [-subscriber S] [-since RFC3339] [-until RFC3339] [-limit N]
  outboxctl dead replay (-id N ... | -topic T | -subscriber S | -since/-until | -all) -reason R
  outboxctl dead skip   (-id N ... | -topic T | -subscriber S | -since/-until | -all) -reason R
`

func dispatch(ctx context.Context, cfg database.Config, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errUsage
	}
	connect := func() (*database.Pool, error) { return database.Open(ctx, cfg) }
	switch {
	case args[0] == "health" && len(args) == 1:
		pool, err := connect()
		if err != nil {
			return err
		}
		defer pool.Close()
		h, err := outbox.ReadHealth(ctx, pool.Pool)
		if err != nil {
			return err
		}
		return writeJSON(stdout, h)
	case args[0] == "dead" && len(args) >= 2:
		return dead(ctx, connect, args[1], args[2:], stdout, stderr)
	default:
		return errUsage
	}
}

// ids collects repeated -id flags.
type ids []int64

func (v *ids) String() string { return fmt.Sprint(*v) }
func (v *ids) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return fmt.Errorf("not a delivery id: %q", s)
	}
	*v = append(*v, n)
	return nil
}

// timeFlag parses an RFC 3339 time.
type timeFlag struct{ t *time.Time }

func (v timeFlag) String() string {
	if v.t == nil || v.t.IsZero() {
		return ""
	}
	return v.t.Format(time.RFC3339)
}
func (v timeFlag) Set(s string) error {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return fmt.Errorf("not an RFC 3339 time: %q", s)
	}
	*v.t = t
	return nil
}

func dead(ctx context.Context, connect func() (*database.Pool, error), verb string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("outboxctl dead "+verb, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f outbox.DeadFilter
	var idList ids
	fs.Var(&idList, "id", "delivery id (repeatable)")
	fs.StringVar(&f.Topic, "topic", "", "only this topic")
	fs.StringVar(&f.Subscriber, "subscriber", "", "only this subscriber")
	fs.Var(timeFlag{&f.Since}, "since", "only deliveries that went dead at or after this RFC 3339 time")
	fs.Var(timeFlag{&f.Until}, "until", "only deliveries that went dead before this RFC 3339 time")
	fs.IntVar(&f.Limit, "limit", 100, "list at most this many (1..1000)")
	fs.BoolVar(&f.All, "all", false, "replay or skip every dead delivery")
	reason := fs.String("reason", "", "why (recorded in outbox_audit; required to replay or skip)")
	actor := fs.String("actor", defaultActor(), "who (recorded in outbox_audit)")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	f.IDs = idList
	if err := checkDead(fs, verb, f, *reason); err != nil {
		return err
	}
	pool, err := connect()
	if err != nil {
		return err
	}
	defer pool.Close()
	switch verb {
	case "list":
		dead, err := outbox.ListDead(ctx, pool.Pool, f)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]any{"dead": dead})
	case "replay":
		n, err := outbox.Replay(ctx, pool.Pool, f, *actor, *reason)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]int{"replayed": n})
	default: // skip
		n, err := outbox.Skip(ctx, pool.Pool, f, *actor, *reason)
		if err != nil {
			return err
		}
		return writeJSON(stdout, map[string]int{"skipped": n})
	}
}

// checkDead refuses a dead command whose verb, arguments or filter make no
// sense, with an error wrapping errUsage.
func checkDead(fs *flag.FlagSet, verb string, f outbox.DeadFilter, reason string) error {
	// Flags that mean nothing to the verb are refused, not ignored.
	var misplaced error
	fs.Visit(func(fl *flag.Flag) {
		if verb == "list" && (fl.Name == "all" || fl.Name == "reason" || fl.Name == "actor") ||
			verb != "list" && fl.Name == "limit" {
			misplaced = fmt.Errorf("%w: -%s does not apply to dead %s", errUsage, fl.Name, verb)
		}
	})
	switch {
	case misplaced != nil:
		return misplaced
	case verb != "list" && verb != "replay" && verb != "skip":
		return fmt.Errorf("%w: unknown command dead %s", errUsage, verb)
	case fs.NArg() > 0:
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	case f.Limit < 1 || f.Limit > 1000:
		return fmt.Errorf("%w: -limit must be from 1 to 1000", errUsage)
	case verb != "list" && strings.TrimFunc(reason, unicode.IsSpace) == "":
		return fmt.Errorf("%w: %w", errUsage, outbox.ErrNoReason)
	}
	if err := f.Validate(); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if err := unrouted(f); err != nil {
		return err
	}
	if verb != "list" && len(f.IDs) == 0 && f.Topic == "" && f.Subscriber == "" && f.Since.IsZero() && f.Until.IsZero() && !f.All {
		return fmt.Errorf("%w: %w", errUsage, outbox.ErrEmptyFilter)
	}
	return nil
}

// unrouted is the error (wrapping errUsage) naming f's -topic and
// -subscriber that no subscription of the routing table
// (events.Subscriptions) names (outbox.Outbox.Unrouted), nil when there is
// none.
func unrouted(f outbox.DeadFilter) error {
	var refused []string
	for _, field := range events.NewOutbox().Unrouted(f) {
		value := map[string]string{"topic": f.Topic, "subscriber": f.Subscriber}[field]
		refused = append(refused, fmt.Sprintf("-%s %q is no %s of the routing table (events.Subscriptions)", field, value, field))
	}
	if refused == nil {
		return nil
	}
	return fmt.Errorf("%w: %s", errUsage, strings.Join(refused, "; "))
}

func defaultActor() string {
	host, _ := os.Hostname()
	name := "unknown"
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	return name + "@" + host
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
