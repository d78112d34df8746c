package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
)

// devTokenTTL is how long a development sign-in lasts: a working day.
const devTokenTTL = 12 * time.Hour

// maxDevUsers caps the sign-in picker's list.
const maxDevUsers = 200

// devSignIn is the local stand-in for Google's sign-in page: it lists the
// users in the database and mints, for the one picked, the development ID
// token (auth.DevToken) that the functions accept with AUTH_DEV=true. It
// exists only in this local server, never in a deployed function.
type devSignIn struct {
	open    func(context.Context) (*database.Pool, error)
	project string
	log     *slog.Logger

	mu   sync.Mutex
	pool *database.Pool // opened at the first request, so the server starts while the database is down
}

// DevUser is one user the development sign-in offers; a newcomer (an
// email without an account) has the nil ID and an empty Role.
type DevUser struct {
	ID          uuid.UUID    `json:"id"`
	DisplayName string       `json:"display_name"`
	Email       string       `json:"email"`
	Role        account.Role `json:"role"`
}

// DevToken is a minted development ID token and when it expires.
type DevToken struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
	User      DevUser   `json:"user"`
}

// newDevSignIn returns the development sign-in for project's tokens, on the
// database that open opens at its first request (a failed open is tried
// again at the next). It refuses to exist on Cloud Run (K_SERVICE set), as
// auth.NewVerifier refuses development mode there.
func newDevSignIn(open func(context.Context) (*database.Pool, error), project string, log *slog.Logger) (*devSignIn, error) {
	if os.Getenv("K_SERVICE") != "" {
		return nil, errors.New("the development sign-in is refused on Cloud Run (K_SERVICE is set)")
	}
	return &devSignIn{open: open, project: project, log: log}, nil
}

func (d *devSignIn) db(ctx context.Context) (*database.Pool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pool == nil {
		p, err := d.open(ctx)
		if err != nil {
			return nil, err
		}
		d.pool = p
	}
	return d.pool, nil
}

// close closes the database pool, if one was opened.
func (d *devSignIn) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.pool != nil {
		d.pool.Close()
	}
}

// routes are the sign-in's paths: GET /dev/users answers {"users": [DevUser]}
// (operators, teachers, then learners, by name); POST /dev/token with
// {"user_id": "<uuid>"} answers a DevToken, 400 for a malformed body and 404
// for a user that does not exist. POST /dev/token with {"email": "..."}
// instead signs in as that email: as its user when there is one, otherwise
// as a newcomer without an account (the identity a Google sign-in of a new
// person gives), whose DevToken's user has the nil id and no role; a
// newcomer becomes a teacher by creating a class (CreateClass), and signs in
// as the same identity again with the same email.
func (d *devSignIn) routes() map[string]func(http.ResponseWriter, *http.Request) {
	return map[string]func(http.ResponseWriter, *http.Request){
		"/dev/users": d.users,
		"/dev/token": d.token,
	}
}

func (d *devSignIn) users(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		d.methodNotAllowed(w, http.MethodGet)
		return
	}
	pool, err := d.db(r.Context())
	if err != nil {
		functions.WriteError(w, r, d.log, err)
		return
	}
	rows, err := store.On(pool).DevUsers(r.Context(), maxDevUsers)
	if err != nil {
		functions.WriteError(w, r, d.log, fmt.Errorf("list users: %w", err))
		return
	}
	users := make([]DevUser, len(rows))
	for i, row := range rows {
		users[i] = DevUser(row)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"users": users})
}

// devTokenRequest is POST /dev/token's body: exactly one of UserID and Email.
type devTokenRequest struct {
	UserID string `json:"user_id" validate:"omitempty,uuid"`
	Email  string `json:"email" validate:"omitempty,max=254"`
}

func (d *devSignIn) token(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		d.methodNotAllowed(w, http.MethodPost)
		return
	}
	var req devTokenRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		functions.WriteError(w, r, d.log, err)
		return
	}
	pool, err := d.db(r.Context())
	if err != nil {
		functions.WriteError(w, r, d.log, err)
		return
	}
	u, subject, err := d.identity(r.Context(), pool, req)
	if err != nil {
		functions.WriteError(w, r, d.log, err)
		return
	}
	now := clock.System{}.Now()
	tok, err := auth.DevToken(d.project, subject, u.Email, devTokenTTL)
	if err != nil {
		functions.WriteError(w, r, d.log, err)
		return
	}
	httpx.WriteJSON(w, http.StatusOK, DevToken{Token: tok, ExpiresAt: now.Add(devTokenTTL).UTC().Truncate(time.Second), User: u})
}

// identity is who req signs in as, and the subject of their token. A user
// linked to an identity signs in as that subject; one not yet linked
// (enrolled by email) gets a token with its id as subject and its verified
// email, which links the account at the first request. An email without a
// user is a newcomer, whose subject is derived from the email, so that
// signing in again with it is the same identity.
func (d *devSignIn) identity(ctx context.Context, pool *database.Pool, req devTokenRequest) (DevUser, string, error) {
	if (req.UserID == "") == (req.Email == "") {
		p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "give user_id or email")
		p.Errors = []httpx.FieldError{{Field: "user_id", Reason: "give exactly one of user_id and email"}}
		return DevUser{}, "", p
	}
	var id *uuid.UUID
	var email *string
	if req.UserID != "" {
		parsed, err := uuid.Parse(req.UserID)
		if err != nil {
			return DevUser{}, "", httpx.NotFound("user")
		}
		id = &parsed
	} else {
		canonical, err := text.CanonicalEmail(req.Email)
		if err != nil {
			p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", "the email is not an address")
			p.Errors = []httpx.FieldError{{Field: "email", Reason: "must be an email address"}}
			return DevUser{}, "", p
		}
		email = &canonical
	}
	u, err := store.On(pool).DevUser(ctx, id, email)
	switch {
	case errors.Is(err, store.ErrNotFound) && id != nil:
		return DevUser{}, "", httpx.NotFound("user")
	case errors.Is(err, store.ErrNotFound):
		local, _, _ := strings.Cut(*email, "@")
		sum := sha256.Sum256([]byte(*email))
		return DevUser{DisplayName: local, Email: *email}, "dev-" + hex.EncodeToString(sum[:12]), nil
	case err != nil:
		return DevUser{}, "", fmt.Errorf("load user: %w", err)
	}
	return DevUser{ID: u.ID, DisplayName: u.DisplayName, Email: u.Email, Role: u.Role}, u.Subject, nil
}

func (d *devSignIn) methodNotAllowed(w http.ResponseWriter, allowed string) {
	w.Header().Set("Allow", allowed)
	httpx.WriteProblem(w, httpx.NewProblem(http.StatusMethodNotAllowed, httpx.TypeMethodNotAllowed,
		"Method not allowed", "use "+allowed))
}
