package webhooks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"
)

func TestEndpointsMustBePublicHTTPS(t *testing.T) {
	t.Parallel()
	for raw, ok := range map[string]bool{
		"https://school.example/hooks":      true,
		"https://93.184.216.34/hooks":       true,
		"http://school.example/hooks":       false,
		"https://169.254.169.254/x":         false, // the metadata server
		"https://127.0.0.1/x":               false,
		"https://[::1]/x":                   false,
		"https://10.1.2.3/x":                false,
		"https://[::ffff:192.168.1.1]/":     false,
		"https://localhost/x":               false,
		"https://metadata.google.internal/": false,
		"https://u:p@school.example/":       false,
		"hooks":                             false,
	} {
		require.Equal(t, ok, CheckURL(raw, false) == nil, raw)
	}
	require.NoError(t, CheckURL("http://127.0.0.1:9000/hooks", true), "development allows local receivers")
}

func TestSenderRefusesNonPublicAddressesAtDialTime(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	secret := NewSecret()
	m := Message{Type: "t", Timestamp: time.Now(), Data: []byte(`{}`)}
	_, err := NewSender(Config{Timeout: time.Second}).Send(context.Background(), srv.URL, []string{secret}, "id-1", m)
	require.ErrorContains(t, err, "non-public address")
	status, err := NewSender(Config{Timeout: time.Second, AllowHTTP: true}).Send(context.Background(), srv.URL, []string{secret}, "id-1", m)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
}

// TestRotationOverlapSignsWithBothSecrets checks, with the reference
// library, that a message signed with a new and a previous secret verifies
// with either, and not with a third.
func TestRotationOverlapSignsWithBothSecrets(t *testing.T) {
	t.Parallel()
	fresh, previous := NewSecret(), NewSecret()
	got := make(chan http.Header, 1)
	var body []byte
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		got <- r.Header
	}))
	defer srv.Close()
	m := Message{Type: "assignment.created", Timestamp: time.Now(), Data: []byte(`{"n":1}`)}
	status, err := NewSender(Config{Timeout: time.Second, AllowHTTP: true}).
		Send(context.Background(), srv.URL, []string{fresh, previous}, "msg_1", m)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	h := <-got
	require.Len(t, strings.Fields(h.Get("webhook-signature")), 2)
	for secret, valid := range map[string]bool{fresh: true, previous: true, NewSecret(): false} {
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		require.Equal(t, valid, wh.Verify(body, h) == nil)
	}
	_, err = NewSender(Config{Timeout: time.Second, AllowHTTP: true}).Send(context.Background(), srv.URL, nil, "msg_2", m)
	require.ErrorContains(t, err, "no signing secret")
}
