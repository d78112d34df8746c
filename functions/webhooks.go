package functions

import (
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// A teacher's webhook endpoints receive the events of their assignments,
// signed per Standard Webhooks (see pkg/webhooks). Only the owning teacher
// sees or changes an endpoint; anyone else gets 404.

// WebhookTopics are the event types a webhook endpoint may subscribe to.
var WebhookTopics = []string{events.LearnerEnrolled, events.AssignmentCreated, events.AssignmentCompleted}

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
}

// RegisterWebhookEndpointRequest is the body of RegisterWebhookEndpoint.
type RegisterWebhookEndpointRequest struct {
	URL string `json:"url" validate:"required,max=2000"`
	// Topics to receive; empty means all of WebhookTopics.
	Topics []string `json:"topics" validate:"max=10,unique,dive,oneof=learner.enrolled assignment.created assignment.completed"`
}

// WebhookEndpointRequest names one endpoint.
type WebhookEndpointRequest struct {
	ID string `json:"id" validate:"required,uuid"`
}

// teacher resolves the acting user and requires the teacher role; others
// get 404, as if webhooks did not exist.
func (s *Service) teacher(r *http.Request) (user, error) {
	u, err := s.actor(r.Context(), s.pool, r)
	if err != nil {
		return user{}, err
	}
	return u, requireTeacher(u)
}

func requireTeacher(u user) error {
	if u.Role != "teacher" {
		return httpx.NotFound("function")
	}
	return nil
}

// RegisterWebhookEndpoint (POST) registers an https:// endpoint for the
// calling teacher and answers 201 with it, including its signing secret,
// which is never shown again. 400 for an invalid URL or topic.
func (s *Service) RegisterWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var req RegisterWebhookEndpointRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		httpx.WriteError(w, r, s.log, err)
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
	s.write(w, r, "RegisterWebhookEndpoint", http.StatusCreated, req, func(tx pgx.Tx, t user) (any, error) {
		if err := requireTeacher(t); err != nil {
			return nil, err
		}
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
	if !allow(w, r, http.MethodGet) {
		return
	}
	t, err := s.teacher(r)
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	rows, err := s.pool.Query(r.Context(), `SELECT id, url, topics, created_at, disabled_at, disabled_reason
		FROM webhook_endpoints WHERE teacher_id = $1 ORDER BY created_at, id`, t.ID)
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	eps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (WebhookEndpoint, error) {
		var ep WebhookEndpoint
		return ep, row.Scan(&ep.ID, &ep.URL, &ep.Topics, &ep.CreatedAt, &ep.DisabledAt, &ep.DisabledReason)
	})
	if err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"endpoints": append([]WebhookEndpoint{}, eps...)})
}

// RotateWebhookSecret (POST {"id"}) replaces an endpoint's signing secret
// and answers 200 with the endpoint and its new secret; deliveries from then
// on are signed with it. 404 for an endpoint that is not the caller's.
func (s *Service) RotateWebhookSecret(w http.ResponseWriter, r *http.Request) {
	s.changeEndpoint(w, r, `UPDATE webhook_endpoints SET secret = $3 WHERE id = $1 AND teacher_id = $2
		RETURNING id, url, topics, created_at, disabled_at, disabled_reason`, true)
}

// DeleteWebhookEndpoint (POST {"id"}) removes an endpoint and answers 200
// with what it was. 404 for an endpoint that is not the caller's.
func (s *Service) DeleteWebhookEndpoint(w http.ResponseWriter, r *http.Request) {
	s.changeEndpoint(w, r, `DELETE FROM webhook_endpoints WHERE id = $1 AND teacher_id = $2
		RETURNING id, url, topics, created_at, disabled_at, disabled_reason`, false)
}

func (s *Service) changeEndpoint(w http.ResponseWriter, r *http.Request, sql string, rotate bool) {
	if !allow(w, r, http.MethodPost) {
		return
	}
	var req WebhookEndpointRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		httpx.WriteError(w, r, s.log, err)
		return
	}
	name := "DeleteWebhookEndpoint"
	if rotate {
		name = "RotateWebhookSecret"
	}
	s.write(w, r, name, http.StatusOK, req, func(tx pgx.Tx, t user) (any, error) {
		if err := requireTeacher(t); err != nil {
			return nil, err
		}
		args := []any{req.ID, t.ID}
		secret := webhooks.NewSecret()
		if rotate {
			args = append(args, secret)
		}
		var ep WebhookEndpoint
		err := tx.QueryRow(r.Context(), sql, args...).
			Scan(&ep.ID, &ep.URL, &ep.Topics, &ep.CreatedAt, &ep.DisabledAt, &ep.DisabledReason)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, httpx.NotFound("webhook endpoint")
		}
		if err != nil {
			return nil, fmt.Errorf("change webhook endpoint: %w", err)
		}
		if rotate {
			ep.Secret = secret
		}
		return ep, nil
	})
}
