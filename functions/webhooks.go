package functions

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// A teacher's webhook endpoints receive the events of their assignments,
// signed per Standard Webhooks; their rules are webhooks.Endpoints'. Only
// the owning teacher sees or changes an endpoint; anyone else gets 404.

// RegisterWebhookEndpoint (POST) registers an https:// endpoint for the
// calling teacher, receiving topics (left out: all of them; an empty list is a 400), and answers 201 with it (a webhooks.Endpoint), including
// its signing secret, which is never shown again. 400 for an invalid URL or
// topic; 409 (webhook-url-taken) when the teacher has an active endpoint at
// that URL already.
func (s *Service) RegisterWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req api.RegisterWebhookEndpointJSONBody
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if req.Topics == nil {
		req.Topics = []string{}
	}
	s.write(w, r, t, "RegisterWebhookEndpoint", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		ep, err := s.endpoints().Register(r.Context(), tx, t.ID, req.Url, req.Topics)
		return toWebhookEndpoint(ep), err
	})
}

// ListWebhookEndpoints (GET) lists the calling teacher's endpoints, without
// secrets, with whether and why each was disabled: {"endpoints":
// [webhooks.Endpoint]}.
func (s *Service) ListWebhookEndpoints(w http.ResponseWriter, r *http.Request) {
	t, ok := s.listCaller(w, r, account.Teacher)
	if !ok {
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		eps, err := s.endpoints().List(r.Context(), tx, t.ID)
		return api.WebhookEndpointList{Endpoints: each(eps, toWebhookEndpoint)}, err
	})
}

// RotateWebhookSecret (POST {"id", "revoke_previous"}) gives an endpoint a
// new signing secret and answers 200 with the endpoint and the new secret.
// For webhooks.PreviousSecretOverlap (24 h) deliveries carry signatures
// with both secrets, so that the receiver can switch without rejecting any;
// with revoke_previous the old secret stops at once. 404 for an endpoint
// that is not the caller's.
func (s *Service) RotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "RotateWebhookSecret", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.RotateWebhookSecretJSONBody) (any, error) {
			ep, err := s.endpoints().RotateSecret(ctx, tx, t.ID, uuid.MustParse(req.Id), req.RevokePrevious)
			return toWebhookEndpoint(ep), err
		})
}

// EnableWebhookEndpoint (POST {"id"}) turns an endpoint that was disabled
// (its receiver answered 410 Gone) back on and answers 200 with it; events
// from then on are sent to it again, the ones in between are not. 404 for an
// endpoint that is not the caller's; 409 (webhook-url-taken) when another
// endpoint of the caller's at its URL is active.
func (s *Service) EnableWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	s.changeEndpoint(w, r, "EnableWebhookEndpoint", s.endpoints().Enable)
}

// DeleteWebhookEndpoint (POST {"id"}) removes an endpoint and answers 200
// with what it was. 404 for an endpoint that is not the caller's.
func (s *Service) DeleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	s.changeEndpoint(w, r, "DeleteWebhookEndpoint", s.endpoints().Delete)
}

// changeEndpoint is the function name, a teacher's POST {"id"}: a write
// applying change to the caller's endpoint id, answered 200 with the
// endpoint change returns.
func (s *Service) changeEndpoint(w http.ResponseWriter, r *http.Request, name string,
	change func(ctx context.Context, db store.DBTX, teacherID, id uuid.UUID) (webhooks.Endpoint, error)) {
	post(s, w, r, account.Teacher, name, http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.EndpointID) (any, error) {
			ep, err := change(ctx, tx, t.ID, uuid.MustParse(req.Id))
			return toWebhookEndpoint(ep), err
		})
}
