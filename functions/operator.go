package functions

import (
	"context"
	"net/http"

	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// The operator functions expose the outbox's health and dead letters. Only a
// user with the operator role may call them; anyone else gets 404, as if they
// did not exist.

// OutboxHealth (GET) answers the outbox's live health figures
// (outbox.Health): backlog and oldest age per subscriber and topic, dead
// counts, blocked ordered keys, deliveries per minute over the last hour.
// It reads no query parameter: any is a 400 (noQuery).
func (s *Service) OutboxHealth(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.caller(w, r, http.MethodGet, account.Operator); !ok || !s.noQuery(w, r) {
		return
	}
	h, err := outbox.ReadHealth(r.Context(), s.pool)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, toOutboxHealth(h))
}

// ListDeadLetters (GET) lists dead deliveries, most recent first. Query
// parameters: topic, subscriber, since and until (RFC 3339, on the time the
// delivery went dead), limit (1..1000, default 100). A topic or subscriber
// that the routing table does not name (unrouted) is a 400 naming the
// parameter; times that select no dead delivery answer 200 with none.
func (s *Service) ListDeadLetters(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.caller(w, r, http.MethodGet, account.Operator); !ok {
		return
	}
	q := newQueryParams(r)
	f := outbox.DeadFilter{Topic: q.get("topic"), Subscriber: q.get("subscriber"),
		Since: q.time("since"), Until: q.time("until"), Limit: q.int("limit", 100, 1, 1000)}
	q.errs = append(q.errs, s.unrouted(f)...)
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	dead, err := outbox.ListDead(r.Context(), s.pool, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, api.DeadLetters{Dead: each(dead, toDeadDelivery)})
}

// ReplayDeadLetters (POST an api.DeadFilter: at least one selector, or
// all, and a reason) makes the selected dead deliveries pending again
// with a fresh attempt budget; SkipDeadLetters (POST) resolves them without
// delivery. Both need a reason, write one outbox_audit row per delivery and
// answer {"replayed": n} or {"skipped": n}; a missing or blank reason, and
// a topic or subscriber that the routing table does not name (unrouted),
// is a 400 with a field error for each, and changes nothing. Ids and times
// that select no dead delivery answer 200 with n = 0.
func (s *Service) ReplayDeadLetters(w http.ResponseWriter, r *http.Request) {
	s.resolveDead(w, r, "ReplayDeadLetters", outbox.Replay)
}

// SkipDeadLetters: see ReplayDeadLetters.
func (s *Service) SkipDeadLetters(w http.ResponseWriter, r *http.Request) {
	s.resolveDead(w, r, "SkipDeadLetters", outbox.Skip)
}

func (s *Service) resolveDead(w http.ResponseWriter, r *http.Request, name string,
	apply func(context.Context, outbox.DBTX, outbox.DeadFilter, string, string) (int, error)) {
	op, ok := s.caller(w, r, http.MethodPost, account.Operator)
	var req api.DeadFilter
	if !ok || !s.decode(w, r, &req) {
		return
	}
	f := outbox.DeadFilter{IDs: req.Ids, Topic: req.Topic, Subscriber: req.Subscriber, All: req.All}
	if errs := s.unrouted(f); errs != nil {
		s.fail(w, r, invalid("one or more fields are invalid", errs...))
		return
	}
	f.Since, _ = text.ParseTime(req.Since)
	f.Until, _ = text.ParseTime(req.Until)
	s.write(w, r, op, name, http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		n, err := apply(r.Context(), tx, f, op.ID.String(), req.Reason)
		if err != nil {
			return nil, err
		}
		if name == "ReplayDeadLetters" {
			return api.DeadLettersReplayed{Replayed: n}, nil
		}
		return api.DeadLettersSkipped{Skipped: n}, nil
	})
}

// unrouted returns a field error for each of f's topic and subscriber that
// no subscription of the routing table (events.Subscriptions) names
// (outbox.Outbox.Unrouted), nil when there is none: a filter on such a name
// selects nothing, so it is a typo, not a request for nothing.
func (s *Service) unrouted(f outbox.DeadFilter) []httpx.FieldError {
	var errs []httpx.FieldError
	for _, field := range s.outbox.Unrouted(f) {
		errs = append(errs, httpx.FieldError{Field: field, Reason: "is no " + field + " of the routing table (events.Subscriptions)"})
	}
	return errs
}
