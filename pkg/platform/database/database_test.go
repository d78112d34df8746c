package database

import (
	"cmp"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"

	"cloud.google.com/go/cloudsqlconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// adminAPI is a stand-in for the Cloud SQL Admin API that records the
// requests the connector makes and refuses them all, as the real API does
// for a service account without roles/cloudsql.client.
type adminAPI struct {
	mu       sync.Mutex
	requests []string // "METHOD path bearer-token"
}

func (a *adminAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.requests = append(a.requests, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization"))
	a.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte(`{"error":{"code":403,"message":"not authorized","status":"PERMISSION_DENIED"}}`))
}

func (a *adminAPI) seen() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.requests...)
}

// connectorToAdminAPI serves a new adminAPI and points the connector at it
// with fixed tokens (no Application Default Credentials needed) for the
// rest of the test.
func connectorToAdminAPI(t *testing.T) *adminAPI {
	t.Helper()
	api := &adminAPI{}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	saved := dialerOptions
	dialerOptions = []cloudsqlconn.Option{
		cloudsqlconn.WithAdminAPIEndpoint(srv.URL),
		cloudsqlconn.WithIAMAuthNTokenSources(
			oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "api-token"}),
			oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "login-token"})),
	}
	t.Cleanup(func() { dialerOptions = saved })
	return api
}

// With DATABASE_INSTANCE set, the pool dials through the connector, which
// asks the Admin API for that instance's connection settings with the
// workload's token, and a refusal is reported with the instance and the
// IAM database user, not a host and port that are never used.
func TestOpenWithInstanceDialsThroughTheConnector(t *testing.T) {
	api := connectorToAdminAPI(t)

	_, err := Open(context.Background(), Config{
		URL:      "user=lexora-drain@lexora-prod.iam dbname=lexora sslmode=disable",
		Instance: "lexora-prod:europe-west1:lexora",
		MaxConns: 2,
	})
	require.ErrorContains(t, err, "reach database Cloud SQL instance lexora-prod:europe-west1:lexora as lexora-drain@lexora-prod.iam")
	require.ErrorContains(t, err, "not authorized")
	require.Contains(t, api.seen(), "GET /sql/v1beta4/projects/lexora-prod/instances/lexora/connectSettings Bearer api-token")
}

func TestOpenWithInstanceRejectsAMalformedConnectionName(t *testing.T) {
	api := connectorToAdminAPI(t)

	_, err := Open(context.Background(), Config{
		URL:      "user=lexora-drain@lexora-prod.iam dbname=lexora sslmode=disable",
		Instance: "lexora-prod/lexora",
	})
	require.ErrorContains(t, err, "lexora-prod/lexora")
	require.Empty(t, api.seen(), "nothing is asked of the Admin API for a name that cannot be one")
}

// Close closes the dialer after the pool, so a job's last connections are
// returned before the connector stops (and flushes its metrics).
func TestCloseClosesTheDialerAfterThePool(t *testing.T) {
	connectorToAdminAPI(t)
	ctx := context.Background()
	dialer, err := cloudsqlconn.NewDialer(ctx, append([]cloudsqlconn.Option{cloudsqlconn.WithIAMAuthN(),
		cloudsqlconn.WithLazyRefresh(), cloudsqlconn.WithBuiltInMetrics(false)}, dialerOptions...)...)
	require.NoError(t, err)
	pgp, err := pgxpool.New(ctx, "postgres://nobody@127.0.0.1:1/none") // connects lazily: never here
	require.NoError(t, err)

	(&Pool{Pool: pgp, dialer: dialer}).Close()
	_, err = dialer.Dial(ctx, "lexora-prod:europe-west1:lexora")
	require.ErrorIs(t, err, cloudsqlconn.ErrDialerClosed)
	require.ErrorContains(t, pgp.Ping(ctx), "closed pool")
}

// Without DATABASE_INSTANCE (local runs, tests, CI) the pool connects to
// DATABASE_URL itself and no connector exists, so nothing reaches Google.
func TestOpenWithoutInstanceConnectsDirectly(t *testing.T) {
	// pgtest.AdminURL's default; pgtest imports this package, so it is written here.
	url := cmp.Or(os.Getenv("LEXORA_TEST_DATABASE_URL"), "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	pool, err := Open(context.Background(), Config{URL: url, MaxConns: 2})
	require.NoError(t, err)
	defer pool.Close()
	require.Nil(t, pool.dialer)
	var one int
	require.NoError(t, pool.QueryRow(context.Background(), "SELECT 1").Scan(&one))
	require.Equal(t, 1, one)
}
