package webhooks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
)

// A teacher's webhook endpoints receive the events of their assignments.
// Only the owning teacher sees or changes an endpoint: for anyone else it
// does not exist (ErrEndpointNotFound).

// PreviousSecretOverlap is how long a rotated secret keeps signing
// deliveries beside the new one, unless the rotation revokes it.
const PreviousSecretOverlap = 24 * time.Hour

// ErrEndpointNotFound: no endpoint with that id among the teacher's.
var ErrEndpointNotFound = errors.New("webhook endpoint not found")

// ErrDuplicateURL: the teacher has an active endpoint at that URL already
// (a disabled one does not count).
var ErrDuplicateURL = errors.New("an active webhook endpoint of yours has this URL already")

// Endpoint is an endpoint as its owner sees it. Secret is set only when the
// endpoint is registered or its secret rotated.
type Endpoint struct {
	ID             uuid.UUID
	URL            string
	Topics         []string
	Secret         string
	CreatedAt      time.Time
	DisabledAt     *time.Time
	DisabledReason *string
	// PreviousSecretExpiresAt is when the secret replaced by the last
	// rotation stops signing deliveries; null when none does.
	PreviousSecretExpiresAt *time.Time
	// Health is what its deliveries say of it; only List answers it.
	Health *Health
}

// endpointView is row as its owner sees it, without its secrets.
func endpointView(row store.WebhookEndpoint) Endpoint {
	return Endpoint{ID: row.ID, URL: row.Url, Topics: row.Topics, CreatedAt: row.CreatedAt, DisabledAt: row.DisabledAt,
		DisabledReason: row.DisabledReason, PreviousSecretExpiresAt: row.PreviousSecretExpiresAt}
}

// Endpoints manages teachers' endpoints. AllowHTTP is Config.AllowHTTP
// (CheckURL's allowLocal); Clock gives the instants the SQL records.
type Endpoints struct {
	AllowHTTP bool
	Clock     clock.Clock
}

// Register stores an endpoint of teacherID at rawURL for topics (empty: all
// of them) with a fresh signing secret (NewSecret), and answers it with
// that secret, which is never shown again. A host name in another script
// is stored in its punycode form (ASCIIHost), and the scheme and host in
// their canonical form (CanonicalOrigin). Errors: ErrBadURL (ASCIIHost,
// CheckURL), ErrDuplicateURL (the URL as stored, so a punycode and a
// Unicode spelling of one host, or its upper-case spelling, or one with the
// default port, are one URL).
func (e Endpoints) Register(ctx context.Context, db store.DBTX, teacherID uuid.UUID, rawURL string, topics []string) (Endpoint, error) {
	rawURL, err := ASCIIHost(rawURL)
	if err != nil {
		return Endpoint{}, err
	}
	if err := CheckURL(rawURL, e.AllowHTTP); err != nil {
		return Endpoint{}, err
	}
	rawURL = CanonicalOrigin(rawURL)
	if topics == nil {
		topics = []string{}
	}
	ep := Endpoint{URL: rawURL, Topics: topics, Secret: NewSecret()}
	row, err := store.On(db).InsertEndpoint(ctx, store.InsertEndpointParams{TeacherID: teacherID, Url: ep.URL,
		Secret: ep.Secret, Topics: ep.Topics, Now: e.Clock.NowOrNil()})
	if errors.Is(err, store.ErrNotFound) {
		return Endpoint{}, ErrDuplicateURL
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("insert webhook endpoint: %w", err)
	}
	ep.ID, ep.CreatedAt = row.ID, row.CreatedAt
	return ep, nil
}

// List answers teacherID's endpoints, oldest first, without secrets, with
// whether and why each was disabled and each one's Health. Call it in one
// snapshot (a read-only repeatable-read transaction), so that an endpoint
// registered meanwhile does not lack its health.
func (e Endpoints) List(ctx context.Context, db store.DBTX, teacherID uuid.UUID) ([]Endpoint, error) {
	q := store.On(db)
	rows, err := q.ListEndpoints(ctx, teacherID)
	if err != nil {
		return nil, fmt.Errorf("list webhook endpoints: %w", err)
	}
	healths, err := q.EndpointHealth(ctx, FailuresCounted, teacherID)
	if err != nil {
		return nil, fmt.Errorf("read webhook endpoints' health: %w", err)
	}
	byID := make(map[uuid.UUID]store.EndpointHealthRow, len(healths))
	for _, h := range healths {
		byID[h.ID] = h
	}
	eps := make([]Endpoint, 0, len(rows))
	for _, row := range rows {
		ep := endpointView(row)
		h := health(row, byID[row.ID])
		ep.Health = &h
		eps = append(eps, ep)
	}
	return eps, nil
}

// Owner is an endpoint named for an operator: its URL and its teacher.
type Owner struct {
	ID           uuid.UUID
	URL          string
	TeacherName  string
	TeacherEmail string
}

// Owners answers the endpoints of ids that still exist (a deleted one is
// left out), by id, with their URLs and teachers: an operator's dead
// letters name the endpoints their errors give by id.
func Owners(ctx context.Context, db store.DBTX, ids []uuid.UUID) ([]Owner, error) {
	rows, err := store.On(db).EndpointOwners(ctx, ids)
	if err != nil {
		return nil, fmt.Errorf("name webhook endpoints: %w", err)
	}
	out := make([]Owner, 0, len(rows))
	for _, r := range rows {
		out = append(out, Owner{ID: r.ID, URL: r.Url, TeacherName: r.TeacherName, TeacherEmail: r.TeacherEmail})
	}
	return out, nil
}

// RotateSecret gives teacherID's endpoint id a new signing secret and
// answers the endpoint with it. For PreviousSecretOverlap from the clock's
// NowOrNil, deliveries carry signatures with both secrets, so that the
// receiver can switch without rejecting any; with revokePrevious the old
// secret stops at once. Errors: ErrEndpointNotFound.
func (e Endpoints) RotateSecret(ctx context.Context, db store.DBTX, teacherID, id uuid.UUID, revokePrevious bool) (Endpoint, error) {
	row, err := store.On(db).RotateSecret(ctx, store.RotateSecretParams{EndpointID: id, TeacherID: teacherID,
		Secret: NewSecret(), RevokePrevious: revokePrevious, Now: e.Clock.NowOrNil(),
		OverlapSecs: PreviousSecretOverlap.Seconds()})
	if err != nil {
		return Endpoint{}, endpointError(err)
	}
	ep := endpointView(row)
	ep.Secret = row.Secret
	return ep, nil
}

// Enable turns teacherID's endpoint id back on after it was disabled (its
// receiver answered 410 Gone); events from then on are sent to it again,
// the ones in between are not. Errors: ErrEndpointNotFound,
// ErrDuplicateURL (another endpoint at its URL is active).
func (e Endpoints) Enable(ctx context.Context, db store.DBTX, teacherID, id uuid.UUID) (Endpoint, error) {
	row, err := store.On(db).EnableEndpoint(ctx, id, teacherID)
	if err != nil {
		return Endpoint{}, endpointError(err)
	}
	return endpointView(row), nil
}

// Delete removes teacherID's endpoint id and answers what it was. Errors:
// ErrEndpointNotFound.
func (e Endpoints) Delete(ctx context.Context, db store.DBTX, teacherID, id uuid.UUID) (Endpoint, error) {
	row, err := store.On(db).DeleteEndpoint(ctx, id, teacherID)
	if err != nil {
		return Endpoint{}, endpointError(err)
	}
	return endpointView(row), nil
}

// endpointError is err of a statement on one endpoint: ErrEndpointNotFound
// for no row (another teacher's endpoint is no row), ErrDuplicateURL for
// a second active endpoint at its URL (webhook_endpoints_active_url).
func endpointError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return ErrEndpointNotFound
	case errors.Is(err, store.ErrDuplicate):
		return ErrDuplicateURL
	}
	return fmt.Errorf("change webhook endpoint: %w", err)
}
