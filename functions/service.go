package functions

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sethvargo/go-envconfig"

	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/logging"
	"github.com/lexora-app/lexora/pkg/study"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// Config is the functions' environment.
type Config struct {
	Database database.Config
	Auth     auth.Config
	Webhooks webhooks.Config
	// AllowedOrigin is the web client's origin (e.g. https://app.lexora.app),
	// the only one CORS lets call the functions from a browser; empty allows
	// none.
	AllowedOrigin string `env:"CORS_ALLOWED_ORIGIN"`
	// Fuzz randomises review intervals of 2.5 days or more by a few percent
	// (learning.Params.EnableFuzz, FSRS's default), so that cards learnt
	// together do not fall due together; false schedules exactly.
	Fuzz bool `env:"FSRS_FUZZ, default=true"`
	// Wakeup sends a NOTIFY hint after writes' commits, outside the
	// requests (outbox.Waker), so a drain in loop mode delivers at once
	// instead of at its next poll.
	Wakeup bool `env:"OUTBOX_WAKEUP, default=true"`
}

// waker is what a write asks for a wake-up hint after its commit: an
// *outbox.Waker in production.
type waker interface{ Wake() }

// Service holds what every function needs. Build it with NewService.
type Service struct {
	allowedOrigin string
	verifier      *auth.Verifier
	webhooks      webhooks.Config
	pool          *pgxpool.Pool
	outbox        *outbox.Outbox
	waker         waker // nil: no wake-up hints (OUTBOX_WAKEUP=false)
	scheduler     *learning.Scheduler
	study         study.Study
	clock         clock.Clock
	log           *slog.Logger
}

// NewService returns a Service on pool whose instants come from clk
// (clock.System in production; tests inject a clocktest.Stub), at
// clock.Precision (the microseconds timestamptz stores), so that an instant
// answered, published in an event and stored is one value. What a request
// writes with the database's now() (invitations, secret overlap,
// updated_at) takes clk.NowOrNil() instead, so one request decides with one
// clock. It returns an error only for an invalid scheduler configuration.
func NewService(pool *pgxpool.Pool, verifier *auth.Verifier, clk clock.Clock, log *slog.Logger) (*Service, error) {
	sched, err := learning.NewScheduler(learning.DefaultParams(), clk)
	if err != nil {
		return nil, fmt.Errorf("build scheduler: %w", err)
	}
	s := &Service{pool: pool, verifier: verifier, outbox: events.NewOutbox(), clock: clk, log: log}
	s.setScheduler(sched)
	return s, nil
}

// setScheduler makes sched the scheduler of every function.
func (s *Service) setScheduler(sched *learning.Scheduler) {
	s.scheduler, s.study = sched, study.New(s.clock, sched)
}

// now is the request's instant (see NewService).
func (s *Service) now() time.Time { return s.clock.Now() }

// classroom is the classroom's rules on s's outbox, clock and scheduler.
func (s *Service) classroom() classroom.Classroom {
	return classroom.New(s.outbox, s.clock, s.scheduler)
}

// endpoints is the webhook endpoints' rules with s's configuration and clock.
func (s *Service) endpoints() webhooks.Endpoints {
	return webhooks.Endpoints{AllowHTTP: s.webhooks.AllowHTTP, Clock: s.clock}
}

// fromEnv builds the Service from the environment. It fails when the
// configuration is invalid or the database cannot be reached.
func fromEnv() (*Service, error) {
	log := logging.New(os.Stdout, "functions")
	var cfg Config
	ctx := context.Background()
	if err := envconfig.Process(ctx, &cfg); err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	pool, err := database.Open(ctx, cfg.Database)
	if err != nil {
		return nil, err
	}
	verifier, err := auth.NewVerifier(ctx, cfg.Auth, clock.System{})
	if err != nil {
		pool.Close()
		return nil, err
	}
	svc, err := NewService(pool.Pool, verifier, clock.System{}, log)
	if err == nil && !cfg.Fuzz {
		p := svc.scheduler.Params()
		p.EnableFuzz = false
		var sched *learning.Scheduler
		if sched, err = learning.NewScheduler(p, svc.clock); err == nil {
			svc.setScheduler(sched)
		}
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	svc.webhooks, svc.allowedOrigin = cfg.Webhooks, cfg.AllowedOrigin
	if cfg.Wakeup {
		svc.waker = outbox.NewWaker(pool.Pool, outbox.DefaultWakeupChannel, log)
	}
	return svc, nil
}

// lazyService is the instance's Service, built by build on the first
// request, so that cold starts that never get a request do not open a pool.
// A build that fails (the database unreachable at that moment) is not kept:
// that request answers 503 and the next one builds again, so an instance
// recovers with the database instead of answering 503 for the rest of its
// life. One build runs at a time; requests arriving meanwhile wait for it.
type lazyService struct {
	build func() (*Service, error)
	mu    sync.Mutex
	svc   *Service
}

var service = &lazyService{build: fromEnv}

// get returns the built Service, building it if none was built yet.
func (l *lazyService) get() (*Service, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.svc != nil {
		return l.svc, nil
	}
	svc, err := l.build()
	if err != nil {
		return nil, err
	}
	l.svc = svc
	return svc, nil
}

// serve is fn as the HTTP function name, on l's Service.
func (l *lazyService) serve(name string, fn func(*Service, http.ResponseWriter, *http.Request)) http.HandlerFunc {
	return traced(name, func(w http.ResponseWriter, r *http.Request) {
		s, err := l.get()
		if err != nil {
			WriteError(w, r, slog.Default(), err)
			return
		}
		if cors(w, r, s.allowedOrigin) {
			return
		}
		fn(s, w, r)
	})
}
