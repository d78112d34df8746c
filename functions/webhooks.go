package functions

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/platform/httpx"
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

const endpointColumns = "id, url, topics, created_at, disabled_at, disabled_reason, previous_secret_expires_at"

func scanEndpoint(row pgx.Row, ep *WebhookEndpoint) error {
	return row.Scan(&ep.ID, &ep.URL, &ep.Topics, &ep.CreatedAt, &ep.DisabledAt, &ep.DisabledReason, &ep.PreviousSecretExpiresAt)
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
	t, ok := s.caller(w, r, http.MethodPost, "teacher")
	var req RegisterWebhookEndpointRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	if err := webhooks.CheckURL(req.URL, s.webhooks.AllowHTTP); err != nil {
		p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "one or more fields are invalid")
		p.Errors = []httpx.FieldError{{Field: "url", Reason: err.Error()}}
		httpx.WriteError(w, r, s.log, p)
		return
	}
	if req.Topics == nil {
		req.Topics = []string{}
	}
	s.write(w, r, t, "RegisterWebhookEndpoint", http.StatusCreated, req, func(tx pgx.Tx) (any, error) {
		ep := WebhookEndpoint{URL: req.URL, Topics: req.Topics, Secret: webhooks.NewSecret()}
		if err := tx.QueryRow(r.Context(), `INSERT INTO webhook_endpoints (teacher_id, url, secret, topics)
			VALUES ($1, $2, $3, $4) RETURNING id, created_at`, t.ID, ep.URL, ep.Secret, ep.Topics).Scan(&ep.ID, &ep.CreatedAt); err != nil {
			return nil, fmt.Errorf("insert webhook endpoint: %w", err)
		}
		return ep, nil
	})
}

// ListWebhookEndpoints (GET) lists the calling teacher's endpoints, without
// secrets, with whether and why each was disabled.
func (s *Service) ListWebhookEndpoints(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, "teacher")
	if !ok {
		return
	}
	rows, err := s.pool.Query(r.Context(), `SELECT `+endpointColumns+`
		FROM webhook_endpoints WHERE teacher_id = $1 ORDER BY created_at, id`, t.ID)
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	eps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookEndpoint, error) {
		var ep WebhookEndpoint
		return ep, scanEndpoint(row, &ep)
	})
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"endpoints": append([]WebhookEndpoint{}, eps...)})
}

// RotateWebhookSecret (POST {"id", "revoke_previous"}) gives an endpoint a
// new signing secret and answers 200 with the endpoint and the new secret.
// For PreviousSecretOverlap (24 h) deliveries carry signatures with both
// secrets, so that the receiver can switch without rejecting any; with
// revoke_previous the old secret stops at once. 404 for an endpoint that is
// not the caller's.
func (s *Service) RotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, "teacher")
	var req RotateWebhookSecretRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	secret := webhooks.NewSecret()
	s.changeEndpoint(w, r, t, "RotateWebhookSecret", req, req.ID, `UPDATE webhook_endpoints
		SET previous_secret = CASE WHEN $4 THEN NULL ELSE secret END,
		    previous_secret_expires_at = CASE WHEN $4 THEN NULL ELSE now() + make_interval(secs => $5) END,
		    secret = $3
		WHERE id = $1 AND teacher_id = $2 RETURNING `+endpointColumns,
		func(ep *WebhookEndpoint) { ep.Secret = secret }, secret, req.RevokePrevious, PreviousSecretOverlap.Seconds())
}

// EnableWebhookEndpoint (POST {"id"}) turns an endpoint that was disabled
// (its receiver answered 410 Gone) back on and answers 200 with it; events
// from then on are sent to it again, the ones in between are not. 404 for an
// endpoint that is not the caller's.
func (s *Service) EnableWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, "teacher")
	var req WebhookEndpointRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.changeEndpoint(w, r, t, "EnableWebhookEndpoint", req, req.ID, `UPDATE webhook_endpoints
		SET disabled_at = NULL, disabled_reason = NULL WHERE id = $1 AND teacher_id = $2 RETURNING `+endpointColumns, nil)
}

// DeleteWebhookEndpoint (POST {"id"}) removes an endpoint and answers 200
// with what it was. 404 for an endpoint that is not the caller's.
func (s *Service) DeleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodPost, "teacher")
	var req WebhookEndpointRequest
	if !ok || !s.decode(w, r, &req) {
		return
	}
	s.changeEndpoint(w, r, t, "DeleteWebhookEndpoint", req, req.ID,
		`DELETE FROM webhook_endpoints WHERE id = $1 AND teacher_id = $2 RETURNING `+endpointColumns, nil)
}

// changeEndpoint runs sql, whose $1 is the endpoint id and $2 the calling
// teacher t, then extra, as the write name; reveal, when set, adds to the
// answer what only this write may show.
func (s *Service) changeEndpoint(w http.ResponseWriter, r *http.Request, t user, name string, req any, id, sql string,
	reveal func(*WebhookEndpoint), extra ...any) {
	s.write(w, r, t, name, http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		var ep WebhookEndpoint
		err := scanEndpoint(tx.QueryRow(r.Context(), sql, append([]any{id, t.ID}, extra...)...), &ep)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, httpx.NotFound("webhook endpoint")
		}
		if err != nil {
			return nil, fmt.Errorf("change webhook endpoint: %w", err)
		}
		if reveal != nil {
			reveal(&ep)
		}
		return ep, nil
	})
}
