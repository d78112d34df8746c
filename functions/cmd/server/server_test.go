package main

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

func TestStaticHandlerServesTheClientAndItsRoutes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "assets"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "index.html"), []byte("<!doctype html><title>Lexora</title>"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "assets", "app-1a2b.js"), []byte("console.log(1)"), 0o644))
	h, err := staticHandler(dir, http.HandlerFunc(functions.UnknownPath))
	require.NoError(t, err)

	get := func(method, target string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(method, target, nil))
		return rec
	}
	for _, route := range []string{"/", "/review", "/teacher/webhooks"} {
		rec := get(http.MethodGet, route)
		require.Equal(t, http.StatusOK, rec.Code, route)
		require.Contains(t, rec.Body.String(), "<title>Lexora</title>", route)
		require.Equal(t, "no-cache", rec.Header().Get("Cache-Control"), route)
	}
	rec := get(http.MethodGet, "/assets/app-1a2b.js")
	require.Equal(t, http.StatusOK, rec.Code)
	require.Equal(t, "console.log(1)", rec.Body.String())
	require.Contains(t, rec.Header().Get("Cache-Control"), "immutable")
	// What is neither a file nor a client route is the functions' 404.
	for _, req := range [][2]string{{"GET", "/assets/gone-9z.js"}, {"GET", "/NoSuchFunction"}, {"GET", "/GetSchedule/extra"}, {"POST", "/review"}} {
		rec := get(req[0], req[1])
		require.Equal(t, http.StatusNotFound, rec.Code, req)
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"), req)
	}

	_, err = staticHandler(t.TempDir(), http.NotFoundHandler())
	require.ErrorContains(t, err, "no index.html")
}

func TestDevSignInMintsTokensForUsersInTheDatabase(t *testing.T) {
	pool := pgtest.New(t)
	ctx := context.Background()
	var linked, unlinked uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role, auth_subject)
		VALUES ('ada@example.com', 'Ada', 'teacher', 'google-uid-ada') RETURNING id`).Scan(&linked))
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role)
		VALUES ('sam@example.com', 'Sam', 'learner') RETURNING id`).Scan(&unlinked))

	open := func(context.Context) (*database.Pool, error) { return &database.Pool{Pool: pool}, nil }
	t.Setenv("K_SERVICE", "functions")
	_, err := newDevSignIn(open, "lexora-dev", slog.New(slog.DiscardHandler))
	require.ErrorContains(t, err, "refused on Cloud Run")
	t.Setenv("K_SERVICE", "")
	d, err := newDevSignIn(open, "lexora-dev", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	mux := http.NewServeMux()
	for path, h := range d.routes() {
		mux.HandleFunc(path, h)
	}
	do := func(method, path, body string) (int, map[string]any) {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		mux.ServeHTTP(rec, req)
		var out map[string]any
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out), rec.Body.String())
		return rec.Code, out
	}

	code, body := do(http.MethodGet, "/dev/users", "")
	require.Equal(t, http.StatusOK, code)
	users := body["users"].([]any)
	require.Len(t, users, 2)
	require.Equal(t, "Ada", users[0].(map[string]any)["display_name"], "teachers before learners")

	verifier, err := auth.NewVerifier(ctx, auth.Config{Project: "lexora-dev", Dev: true}, clock.System{})
	require.NoError(t, err)
	claims := func(token string) auth.Claims {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Header.Set("Authorization", "Bearer "+token)
		c, err := verifier.Verify(ctx, r)
		require.NoError(t, err)
		return c
	}
	code, body = do(http.MethodPost, "/dev/token", `{"user_id":"`+linked.String()+`"}`)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, "google-uid-ada", claims(body["token"].(string)).Subject, "a linked user signs in as its identity")
	code, body = do(http.MethodPost, "/dev/token", `{"user_id":"`+unlinked.String()+`"}`)
	require.Equal(t, http.StatusOK, code)
	c := claims(body["token"].(string))
	require.Equal(t, auth.Claims{Subject: unlinked.String(), Email: "sam@example.com", EmailVerified: true}, c,
		"an unlinked user's verified email links the account at its first request")

	// By email: a user's email signs in as that user; any other is a
	// newcomer without an account, the same identity at every sign-in.
	code, body = do(http.MethodPost, "/dev/token", `{"email":"Sam@Example.com"}`)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, unlinked.String(), body["user"].(map[string]any)["id"])
	require.Equal(t, unlinked.String(), claims(body["token"].(string)).Subject)
	code, body = do(http.MethodPost, "/dev/token", `{"email":"New.Teacher@example.com"}`)
	require.Equal(t, http.StatusOK, code)
	require.Equal(t, map[string]any{"id": uuid.Nil.String(), "display_name": "new.teacher", "email": "new.teacher@example.com", "role": ""},
		body["user"])
	c = claims(body["token"].(string))
	require.True(t, strings.HasPrefix(c.Subject, "dev-"), c.Subject)
	require.Equal(t, auth.Claims{Subject: c.Subject, Email: "new.teacher@example.com", EmailVerified: true}, c)
	_, again := do(http.MethodPost, "/dev/token", `{"email":"new.teacher@example.com"}`)
	require.Equal(t, c.Subject, claims(again["token"].(string)).Subject, "the same newcomer signs in as the same identity")
	_, other := do(http.MethodPost, "/dev/token", `{"email":"someone.else@example.com"}`)
	require.NotEqual(t, c.Subject, claims(other["token"].(string)).Subject)
	var accounts int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM users`).Scan(&accounts))
	require.Equal(t, 2, accounts, "signing in creates no account")
	for _, bad := range []string{`{}`, `{"user_id":"` + linked.String() + `","email":"ada@example.com"}`, `{"email":"not-an-address"}`} {
		code, _ = do(http.MethodPost, "/dev/token", bad)
		require.Equal(t, http.StatusBadRequest, code, bad)
	}

	code, _ = do(http.MethodPost, "/dev/token", `{"user_id":"`+uuid.NewString()+`"}`)
	require.Equal(t, http.StatusNotFound, code)
	code, _ = do(http.MethodPost, "/dev/token", `{"user_id":"ada"}`)
	require.Equal(t, http.StatusBadRequest, code)
	code, _ = do(http.MethodGet, "/dev/token", "")
	require.Equal(t, http.StatusMethodNotAllowed, code)
}

// TestDevSignInOpensTheDatabaseAtItsFirstRequest: the server starts while
// the database is down (as the functions do); the sign-in answers 503 until
// the database can be opened, then works.
func TestDevSignInOpensTheDatabaseAtItsFirstRequest(t *testing.T) {
	pool := pgtest.New(t)
	down := true
	opens := 0
	d, err := newDevSignIn(func(context.Context) (*database.Pool, error) {
		opens++
		if down {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}
		}
		return &database.Pool{Pool: pool}, nil
	}, "lexora-dev", slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	users := func() int {
		rec := httptest.NewRecorder()
		d.routes()["/dev/users"](rec, httptest.NewRequest(http.MethodGet, "/dev/users", nil))
		return rec.Code
	}
	require.Equal(t, http.StatusServiceUnavailable, users())
	down = false
	require.Equal(t, http.StatusOK, users())
	require.Equal(t, http.StatusOK, users())
	require.Equal(t, 2, opens, "a failed open is tried again; a pool that opened is kept")
}
