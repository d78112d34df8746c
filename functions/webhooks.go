package functions

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/store/webhookstore"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// A teacher's webhook endpoints receive the events of their assignments,
// signed per Standard Webhooks (see pkg/webhooks). Only the owning teacher
// sees or changes an endpoint; anyone else gets 404.

// WebhookEndpoint is an endpoint as its owner sees it. Secret is returned
// only when the endpoint is registered or its secret rotated.
type WebhookEndpoint struct {
	ID             uuid.UUID  `json:"id"`
	URL            string     `json:"url"`
	Topics         []string   `json:"topics"`
	Secret         string     `json:"secret,omitempty"`
	CreatedAt      time.Time  `json:"created_at"`
	DisabledAt     *time.Time `json:"disabled_at"`
	DisabledReason *string    `json:"disabled_reason"`
	// PreviousSecretExpiresAt is when the secret replaced by the last
	// rotation stops signing deliveries; null when none does.
	PreviousSecretExpiresAt *time.Time `json:"previous_secret_expires_at"`
}

// PreviousSecretOverlap is how long a rotated secret keeps signing
// deliveries beside the new one, unless the rotation revokes it.
const PreviousSecretOverlap = 24 * time.Hour

// endpointView is ep as its owner sees it, without its secrets.
func endpointView(ep webhookstore.WebhookEndpoint) WebhookEndpoint {
	return WebhookEndpoint{ID: ep.ID, URL: ep.Url, Topics: ep.Topics, CreatedAt: ep.CreatedAt, DisabledAt: ep.DisabledAt,
		DisabledReason: ep.DisabledReason, PreviousSecretExpiresAt: ep.PreviousSecretExpiresAt}
}

// RegisterWebhookEndpointRequest is the body of RegisterWebhookEndpoint.
type RegisterWebhookEndpointRequest struct {
	URL string `json:"url" validate:"required,max=2000"`
	// Topics to receive (learner.enrolled, assignment.created,
	// assignment.completed); empty means all of them.
	Topics []string `json:"topics" validate:"max=10,unique,dive,oneof=learner.enrolled assignment.created assignment.completed"`
}

// WebhookEndpointRequest names one endpoint.
type WebhookEndpointRequest struct {
	ID string `json:"id" validate:"required,uuid"`
}

// RotateWebhookSecretRequest is the body of RotateWebhookSecret.
type RotateWebhookSecretRequest struct {
	ID string `json:"id" validate:"required,uuid"`
	// RevokePrevious stops the old secret at once (it leaked) instead of
	// after PreviousSecretOverlap.
	RevokePrevious bool `json:"revoke_previous"`
}

// RegisterWebhookEndpoint (POST) registers an https:// endpoint for the
// calling teacher and answers 201 with it, including its signing secret,
// which is never shown again. 400 for an invalid URL or topic.
func (s *Service) RegisterWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req RegisterWebhookEndpointRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if err := webhooks.CheckURL(req.URL, s.webhooks.AllowHTTP); err != nil {
		p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "one or more fields are invalid")
		p.Errors = []httpx.FieldError{{Field: "url", Reason: err.Error()}}
		s.fail(w, r, p)
		return
	}
	if req.Topics == nil {
		req.Topics = []string{}
	}
	s.write(w, r, t, "RegisterWebhookEndpoint", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		ep := WebhookEndpoint{URL: req.URL, Topics: req.Topics, Secret: webhooks.NewSecret()}
		row, err := webhookstore.New(tx).InsertEndpoint(r.Context(), t.ID, ep.URL, ep.Secret, ep.Topics)
		if err != nil {
			return nil, fmt.Errorf("insert webhook endpoint: %w", err)
		}
		ep.ID, ep.CreatedAt = row.ID, row.CreatedAt
		return ep, nil
	})
}

// ListWebhookEndpoints (GET) lists the calling teacher's endpoints, without
// secrets, with whether and why each was disabled.
func (s *Service) ListWebhookEndpoints(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	rows, err := webhookstore.New(s.pool).ListEndpoints(r.Context(), t.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	eps := make([]WebhookEndpoint, 0, len(rows))
	for _, ep := range rows {
		eps = append(eps, endpointView(ep))
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"endpoints": eps})
}

// RotateWebhookSecret (POST {"id", "revoke_previous"}) gives an endpoint a
// new signing secret and answers 200 with the endpoint and the new secret.
// For PreviousSecretOverlap (24 h) deliveries carry signatures with both
// secrets, so that the receiver can switch without rejecting any; with
// revoke_previous the old secret stops at once. 404 for an endpoint that is
// not the caller's.
func (s *Service) RotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req RotateWebhookSecretRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.changeEndpoint(w, r, t, "RotateWebhookSecret", req, func(ctx context.Context, q *webhookstore.Queries) (WebhookEndpoint, error) {
		row, err := q.RotateSecret(ctx, webhookstore.RotateSecretParams{EndpointID: uuid.MustParse(req.ID), TeacherID: t.ID,
			Secret: webhooks.NewSecret(), RevokePrevious: req.RevokePrevious, Now: s.clock.NowOrNil(),
			OverlapSecs: PreviousSecretOverlap.Seconds()})
		ep := endpointView(row)
		ep.Secret = row.Secret
		return ep, err
	})
}

// EnableWebhookEndpoint (POST {"id"}) turns an endpoint that was disabled
// (its receiver answered 410 Gone) back on and answers 200 with it; events
// from then on are sent to it again, the ones in between are not. 404 for an
// endpoint that is not the caller's.
func (s *Service) EnableWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req WebhookEndpointRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.changeEndpoint(w, r, t, "EnableWebhookEndpoint", req, func(ctx context.Context, q *webhookstore.Queries) (WebhookEndpoint, error) {
		row, err := q.EnableEndpoint(ctx, uuid.MustParse(req.ID), t.ID)
		return endpointView(row), err
	})
}

// DeleteWebhookEndpoint (POST {"id"}) removes an endpoint and answers 200
// with what it was. 404 for an endpoint that is not the caller's.
func (s *Service) DeleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req WebhookEndpointRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.changeEndpoint(w, r, t, "DeleteWebhookEndpoint", req, func(ctx context.Context, q *webhookstore.Queries) (WebhookEndpoint, error) {
		row, err := q.DeleteEndpoint(ctx, uuid.MustParse(req.ID), t.ID)
		return endpointView(row), err
	})
}

// changeEndpoint runs change, a statement on one of teacher t's endpoints,
// as the write name; an endpoint that is not t's is a 404.
func (s *Service) changeEndpoint(w http.ResponseWriter, r *http.Request, t user, name string, req any,
	change func(context.Context, *webhookstore.Queries) (WebhookEndpoint, error)) {
	s.write(w, r, t, name, http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		ep, err := change(r.Context(), webhookstore.New(tx))
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, httpx.NotFound("webhook endpoint")
		}
		if err != nil {
			return nil, fmt.Errorf("change webhook endpoint: %w", err)
		}
		return ep, nil
	})
}
