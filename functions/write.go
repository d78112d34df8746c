package functions

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/idempotency"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

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
// After a commit (not after a replay) it asks for the outbox's wake-up hint
// (OUTBOX_WAKEUP; outbox.Waker sends it outside the request). A write that
// enqueued nothing (a webhook endpoint registered) costs the drains at most
// one empty claim.
//
// u is the acting user, from caller.
func (s *Service) write(w http.ResponseWriter, r *http.Request, u user, name string, status int, req any, fn func(pgx.Tx) (any, error)) {
	key := r.Header.Get(IdempotencyKeyHeader)
	if vals := r.Header.Values(IdempotencyKeyHeader); len(vals) > 1 || (vals != nil && !printableASCII(key, 255)) {
		s.fail(w, r, invalid("the Idempotency-Key header is invalid",
			httpx.FieldError{Field: IdempotencyKeyHeader, Reason: "must be one value of 1 to 255 printable ASCII characters"}))
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
		s.fail(w, r, err)
		return
	}
	if replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	} else if s.waker != nil {
		s.waker.Wake()
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(resp.Status)
	_, _ = w.Write(append(resp.Body, '\n'))
}

// post serves a POST function named name of a user of role: the acting
// user (caller), the body decoded into a Req (decode), then do in a keyed
// write (write) answered with status.
func post[Req any](s *Service, w http.ResponseWriter, r *http.Request, role account.Role, name string, status int,
	do func(ctx context.Context, tx pgx.Tx, u user, req Req) (any, error)) {
	postUpTo(s, w, r, role, name, status, httpx.MaxBodyBytes, do)
}

// postUpTo is post for a function whose body may be up to maxBytes bytes
// (a deck's entries, a list to import) instead of httpx.MaxBodyBytes.
func postUpTo[Req any](s *Service, w http.ResponseWriter, r *http.Request, role account.Role, name string, status int, maxBytes int64,
	do func(ctx context.Context, tx pgx.Tx, u user, req Req) (any, error)) {
	u, ok := s.caller(w, r, http.MethodPost, role)
	var req Req
	if !ok || !s.decodeUpTo(w, r, &req, maxBytes) {
		return
	}
	s.write(w, r, u, name, status, req, func(tx pgx.Tx) (any, error) {
		return do(r.Context(), tx, u, req)
	})
}

// read runs fn, a read-only function's work, in one repeatable-read
// transaction (one snapshot for every statement) and answers 200 with fn's
// result as JSON, or fn's error as a problem.
func (s *Service) read(w http.ResponseWriter, r *http.Request, fn func(pgx.Tx) (any, error)) {
	var out any
	err := pgx.BeginTxFunc(r.Context(), s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var err error
		out, err = fn(tx)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, out)
}

// enqueue enqueues b's events in tx, each with the request's headers
// (requestHeaders), or returns the error met while building them.
func (s *Service) enqueue(ctx context.Context, tx pgx.Tx, r *http.Request, actor user, b events.Batch) error {
	evs, err := b.Events()
	if err != nil {
		return err
	}
	headers := requestHeaders(r, actor)
	for i := range evs {
		evs[i].Headers = headers
	}
	return s.outbox.Enqueue(ctx, tx, evs...)
}

// requestHeaders are the event headers that tie an event to its request:
// the actor and the request id (kept when it is 1 to 128 printable ASCII
// characters, since every event of the request carries a copy). The trace
// context is added by outbox.Enqueue from the request's span (see traced).
func requestHeaders(r *http.Request, actor user) map[string]string {
	h := map[string]string{"actor": actor.ID.String()}
	if v := r.Header.Get("X-Request-Id"); printableASCII(v, 128) {
		h["request_id"] = v
	}
	return h
}
