package outbox

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultWakeupChannel is the LISTEN/NOTIFY channel the outbox uses for
// wake-up hints.
const DefaultWakeupChannel = "lexora_outbox"

// ListenerApplicationName names the listener's connection in
// pg_stat_activity.
const ListenerApplicationName = "lexora-outbox-listener"

// Listener keeps one dedicated connection LISTENing for wake-up hints sent
// after commits (see Waker) and turns them into signals
// on Wake. Notifications are never the delivery mechanism: they are not
// stored, and a drain always polls as well, so a dead or reconnecting
// listener only costs latency. The connection is health-checked every
// HealthInterval and re-established with capped backoff after any error; it
// cannot go through PgBouncer in transaction pooling mode, so poll-only mode
// (no Listener) is the one to use there.
type Listener struct {
	connConfig *pgx.ConnConfig
	channel    string
	log        *slog.Logger
	wake       chan struct{}
	// connected is whether the listener is LISTENing now; connects counts
	// the connections established so far (1 + reconnects).
	connected atomic.Bool
	connects  atomic.Int64
	signals   listenerSignals

	// HealthInterval is how long the listener waits for a notification
	// before checking its connection with a query. Default 5 s.
	HealthInterval time.Duration
}

// NewListener returns a listener on channel over a connection made with
// connConfig (a pool's Config().ConnConfig dials the way the pool does, e.g.
// through the Cloud SQL connector). Call Run to start it.
func NewListener(connConfig *pgx.ConnConfig, channel string, log *slog.Logger) *Listener {
	return &Listener{connConfig: connConfig, channel: channel, log: log, wake: make(chan struct{}, 1),
		HealthInterval: 5 * time.Second}
}

// Wake delivers one signal per burst of notifications.
func (l *Listener) Wake() <-chan struct{} { return l.wake }

// Run listens until ctx ends, reconnecting after failures with a backoff
// from 100 ms doubling to 5 s.
func (l *Listener) Run(ctx context.Context) {
	const firstDelay = 100 * time.Millisecond
	delay := firstDelay
	for ctx.Err() == nil {
		connects := l.connects.Load()
		err := l.listen(ctx)
		if l.connected.Swap(false) {
			l.signals.disconnected.Signal(struct{}{})
		}
		if l.connects.Load() > connects {
			delay = firstDelay // it was connected: start the backoff afresh
		}
		if ctx.Err() != nil {
			return
		}
		l.log.Warn("wake-up listener lost its connection; polling continues", slog.String("error", err.Error()),
			slog.Duration("retry_in", delay))
		if !sleep(ctx, delay) {
			return
		}
		delay = min(2*delay, 5*time.Second)
	}
}

func (l *Listener) listen(ctx context.Context) error {
	cfg := l.connConfig.Copy()
	cfg.RuntimeParams["application_name"] = ListenerApplicationName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	// The connection is done with when listen returns (lost, or the
	// listener stopping); a failed close has nothing left to undo.
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{l.channel}.Sanitize()); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	l.connected.Store(true)
	connects := l.connects.Add(1)
	l.log.Info("wake-up listener connected", slog.Int64("connects", connects))
	l.signals.connected.Signal(connects)
	// A notification may have been missed while disconnected.
	l.signal()
	for {
		wctx, cancel := context.WithTimeout(ctx, l.HealthInterval)
		_, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			l.signal()
		case ctx.Err() != nil:
			return ctx.Err()
		case wctx.Err() != nil:
			if _, err := conn.Exec(ctx, "SELECT 1"); err != nil {
				return fmt.Errorf("health check: %w", err)
			}
		default:
			return fmt.Errorf("wait for notification: %w", err)
		}
	}
}

func (l *Listener) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}
