// Package functions holds Lexora's HTTP functions, one per request type,
// registered with the Functions Framework for Go under their own names:
//
//   - CreateAssignment (POST): a teacher assigns a deck to a learner.
//   - EnrollLearner (POST): a teacher adds a learner to a class by email, or
//     a learner joins one with its join code.
//   - SubmitReview (POST): a learner rates a card.
//   - GetSchedule (GET): a learner's due cards and forecast.
//   - GetProgress (GET): a learner's streak, achievements, assignment
//     progress and feed.
//   - OutboxHealth, ListDeadLetters (GET), ReplayDeadLetters,
//     SkipDeadLetters (POST): the operators' view of the event core.
//   - RegisterWebhookEndpoint, RotateWebhookSecret, EnableWebhookEndpoint,
//     DeleteWebhookEndpoint (POST), ListWebhookEndpoints (GET): a teacher's
//     webhooks.
//
// Every function first authenticates the caller and checks its role (401,
// or 404 for a role the function is not for), then validates the request
// (400). Every write is then one transaction: authorize on the resources,
// change state, enqueue events (pkg/outbox), commit, answer. Nothing slow happens in a request; the
// consequences are delivered later by jobs/drain.
//
// Every request carries an ID token (Authorization: Bearer), verified by
// pkg/platform/auth: Google Identity Platform in production, the development
// issuer locally (AUTH_DEV=true).
package functions

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sethvargo/go-envconfig"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/idempotency"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/logging"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// Functions maps each function's name, its path locally and its entry
// point on Cloud Run, to its handler.
var Functions = map[string]func(*Service, http.ResponseWriter, *http.Request){
	"EnrollLearner":           (*Service).EnrollLearner,
	"CreateAssignment":        (*Service).CreateAssignment,
	"SubmitReview":            (*Service).SubmitReview,
	"GetSchedule":             (*Service).GetSchedule,
	"GetProgress":             (*Service).GetProgress,
	"RegisterWebhookEndpoint": (*Service).RegisterWebhookEndpoint,
	"ListWebhookEndpoints":    (*Service).ListWebhookEndpoints,
	"RotateWebhookSecret":     (*Service).RotateWebhookSecret,
	"EnableWebhookEndpoint":   (*Service).EnableWebhookEndpoint,
	"DeleteWebhookEndpoint":   (*Service).DeleteWebhookEndpoint,
	"OutboxHealth":            (*Service).OutboxHealth,
	"ListDeadLetters":         (*Service).ListDeadLetters,
	"ReplayDeadLetters":       (*Service).ReplayDeadLetters,
	"SkipDeadLetters":         (*Service).SkipDeadLetters,
}

func init() {
	for name, fn := range Functions {
		functions.HTTP(name, service.serve(name, fn))
	}
}

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
	// Wakeup sends a NOTIFY hint at each commit that enqueues events, so a
	// drain in loop mode delivers at once instead of at its next poll.
	Wakeup bool `env:"OUTBOX_WAKEUP, default=true"`
}

// Service holds what every function needs. Build it with NewService.
type Service struct {
	allowedOrigin string
	verifier      *auth.Verifier
	webhooks      webhooks.Config
	pool          *pgxpool.Pool
	outbox        *outbox.Outbox
	scheduler     *learning.Scheduler
	now           learning.Clock
	log           *slog.Logger
}

// NewService returns a Service on pool whose clock is now (time.Now in
// production; tests inject their own), read at learning.Precision (the
// microseconds timestamptz stores), so that an instant answered, published
// in an event and stored is one value. It returns an error only for an
// invalid scheduler configuration.
func NewService(pool *pgxpool.Pool, verifier *auth.Verifier, now learning.Clock, log *slog.Logger) (*Service, error) {
	clk := now
	now = func() time.Time { return clk().Truncate(learning.Precision) }
	sched, err := learning.NewScheduler(learning.DefaultParams(), now)
	if err != nil {
		return nil, fmt.Errorf("build scheduler: %w", err)
	}
	return &Service{pool: pool, verifier: verifier, outbox: events.NewOutbox(), scheduler: sched, now: now, log: log}, nil
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
	verifier, err := auth.NewVerifier(ctx, cfg.Auth)
	if err != nil {
		pool.Close()
		return nil, err
	}
	svc, err := NewService(pool.Pool, verifier, time.Now, log)
	if err == nil && !cfg.Fuzz {
		p := svc.scheduler.Params()
		p.EnableFuzz = false
		svc.scheduler, err = learning.NewScheduler(p, time.Now)
	}
	if err != nil {
		pool.Close()
		return nil, err
	}
	svc.webhooks, svc.allowedOrigin = cfg.Webhooks, cfg.AllowedOrigin
	if cfg.Wakeup {
		svc.outbox = svc.outbox.WithWakeup(outbox.DefaultWakeupChannel)
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
			httpx.WriteError(w, r, slog.Default(), err)
			return
		}
		if cors(w, r, s.allowedOrigin) {
			return
		}
		fn(s, w, r)
	})
}

var tracer = otel.Tracer("github.com/lexora-app/lexora/functions")

// cors lets the web client's origin, and no other, call the functions from a
// browser: it answers a preflight (OPTIONS) itself and reports true, or adds
// the CORS headers to the actual response and reports false.
func cors(w http.ResponseWriter, r *http.Request, allowed string) bool {
	origin := r.Header.Get("Origin")
	w.Header().Add("Vary", "Origin")
	if origin == "" || allowed == "" || origin != allowed {
		if r.Method == http.MethodOptions && origin != "" {
			httpx.WriteProblem(w, httpx.NewProblem(http.StatusForbidden, httpx.TypeForbiddenOrigin, "Origin not allowed",
				"this origin may not call Lexora from a browser"))
			return true
		}
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", "Idempotent-Replayed, Retry-After")
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key, traceparent")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// traced continues the caller's W3C trace context (the traceparent header,
// which Cloud Run and browsers' instrumentation send) in a server span named
// after the function. Events enqueued during the request carry that span's
// context, so their deliveries join the same trace.
func traced(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		h(w, r.WithContext(ctx))
	}
}

// user is the acting user.
type user struct {
	ID       uuid.UUID
	Role     string
	Timezone string
}

// actor authenticates the request's ID token and resolves it to a user: by
// the token's subject, or, at a first sign-in, by its verified email, which
// links the account to the subject (the email matched in its canonical
// form, text.CanonicalEmail; one that has none links nothing). It returns a
// 401 problem for a missing, invalid or expired token, or an identity
// without a Lexora account.
func (s *Service) actor(ctx context.Context, r *http.Request) (user, error) {
	unauthenticated := func(detail string) error {
		return httpx.NewProblem(http.StatusUnauthorized, httpx.TypeUnauthenticated, "Unauthenticated", detail)
	}
	c, err := s.verifier.Verify(ctx, r)
	if err != nil {
		s.log.InfoContext(ctx, "request not authenticated", slog.String("reason", err.Error()))
		return user{}, unauthenticated("send a valid, unexpired ID token as Authorization: Bearer <token>")
	}
	var u user
	bySubject := func() error {
		return s.pool.QueryRow(ctx, "SELECT id, role, timezone FROM users WHERE auth_subject = $1", c.Subject).Scan(&u.ID, &u.Role, &u.Timezone)
	}
	err = bySubject()
	email, emailErr := text.CanonicalEmail(c.Email)
	if errors.Is(err, pgx.ErrNoRows) && c.EmailVerified && emailErr == nil {
		err = s.pool.QueryRow(ctx, `UPDATE users SET auth_subject = $1 WHERE email = $2 AND auth_subject IS NULL
			RETURNING id, role, timezone`, c.Subject, email).Scan(&u.ID, &u.Role, &u.Timezone)
		if errors.Is(err, pgx.ErrNoRows) {
			err = bySubject() // a concurrent first request of the same sign-in linked it
		}
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return user{}, unauthenticated("this identity has no Lexora account")
	}
	if err != nil {
		return user{}, fmt.Errorf("load acting user: %w", err)
	}
	return u, nil
}

// UnknownPath answers a request for a path that names no function with a
// 404 problem document listing the functions, so that every answer of the
// API is a problem document or a function's own.
func UnknownPath(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteProblem(w, httpx.NewProblem(http.StatusNotFound, httpx.TypeNotFound, "Not found",
		"no function at this path; the functions are /"+strings.Join(slices.Sorted(maps.Keys(Functions)), ", /")))
}

// allow answers 405 unless r uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	httpx.WriteProblem(w, httpx.NewProblem(http.StatusMethodNotAllowed, httpx.TypeMethodNotAllowed,
		"Method not allowed", "use "+method))
	return false
}

// caller is every function's first step: it answers 405 unless r uses
// method, 401 unless r carries a valid ID token of a Lexora user (actor),
// and, when roles are given, 404 to every other role, as if the function did
// not exist. So a request that may not call the function learns nothing
// about its body or parameters. It reports whether to go on.
func (s *Service) caller(w http.ResponseWriter, r *http.Request, method string, roles ...string) (user, bool) {
	if !allow(w, r, method) {
		return user{}, false
	}
	u, err := s.actor(r.Context(), r)
	if err == nil && len(roles) > 0 && !slices.Contains(roles, u.Role) {
		err = httpx.NotFound("function")
	}
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return user{}, false
	}
	return u, true
}

// decode answers a problem to a body that does not decode into req (see
// httpx.DecodeJSON); it reports whether to go on.
func (s *Service) decode(w http.ResponseWriter, r *http.Request, req any) bool {
	if err := httpx.DecodeJSON(r, req); err != nil {
		httpx.WriteError(w, r, s.log, err)
		return false
	}
	return true
}

// IdempotencyKeyHeader names the header that makes a write safe to retry.
const IdempotencyKeyHeader = "Idempotency-Key"

// write runs fn, a state-changing function's work, in one transaction and
// answers status (or the result's httpStatus(), when it has one) with fn's
// result as JSON, or fn's error as a problem.
//
// With an Idempotency-Key header (1 to 255 printable ASCII characters) the
// key is recorded first in the same transaction (package idempotency): the
// first request with it commits its state, events and response together; a
// retry with the same key and request gets the stored response back, marked
// Idempotent-Replayed: true, without doing anything again; the same key with
// a different request answers 422. Keys are scoped to the function and the
// acting user. Requests that fail leave no key, so they can be retried.
//
// u is the acting user, from caller.
func (s *Service) write(w http.ResponseWriter, r *http.Request, u user, name string, status int, req any, fn func(pgx.Tx) (any, error)) {
	key := r.Header.Get(IdempotencyKeyHeader)
	if vals := r.Header.Values(IdempotencyKeyHeader); len(vals) > 1 || (vals != nil && !printableASCII(key, 255)) {
		p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "the Idempotency-Key header is invalid")
		p.Errors = []httpx.FieldError{{Field: IdempotencyKeyHeader, Reason: "must be one value of 1 to 255 printable ASCII characters"}}
		httpx.WriteError(w, r, s.log, p)
		return
	}
	scope := name + " " + u.ID.String()
	var resp idempotency.Response
	replayed := false
	err := pgx.BeginFunc(r.Context(), s.pool, func(tx pgx.Tx) error {
		if key != "" {
			hash, err := idempotency.Hash(req)
			if err != nil {
				return err
			}
			stored, err := idempotency.Begin(r.Context(), tx, scope, key, hash)
			if errors.Is(err, idempotency.ErrMismatch) {
				return httpx.NewProblem(http.StatusUnprocessableEntity, httpx.TypeIdempotencyMismatch,
					"Idempotency key reused", "this Idempotency-Key was used with a different request")
			}
			if err != nil || stored != nil {
				if stored != nil {
					resp, replayed = *stored, true
				}
				return err
			}
		}
		out, err := fn(tx)
		if err != nil {
			return err
		}
		body, err := json.Marshal(out)
		if err != nil {
			return fmt.Errorf("encode response: %w", err)
		}
		resp = idempotency.Response{Status: status, Body: body}
		if o, ok := out.(interface{ httpStatus() int }); ok {
			resp.Status = o.httpStatus()
		}
		if key != "" {
			return idempotency.Finish(r.Context(), tx, scope, key, resp)
		}
		return nil
	})
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(append(resp.Body, '\n'))
}

// parseUUID accepts only the canonical form (36 characters with dashes), as
// the request bodies' uuid rule does; uuid.Parse also takes urn:uuid:,
// braced and undashed forms.
func parseUUID(raw string) (uuid.UUID, error) {
	if len(raw) != 36 {
		return uuid.UUID{}, errors.New("not a canonical UUID")
	}
	return uuid.Parse(raw)
}

// printableASCII reports whether s is 1 to maxLen printable ASCII
// characters without spaces.
func printableASCII(s string, maxLen int) bool {
	if len(s) == 0 || len(s) > maxLen {
		return false
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}
