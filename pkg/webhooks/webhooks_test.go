package webhooks

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

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
	_, err := NewSender(Config{Timeout: time.Second}).Send(context.Background(), srv.URL, secret, "id-1", m)
	require.ErrorContains(t, err, "non-public address")
	status, err := NewSender(Config{Timeout: time.Second, AllowHTTP: true}).Send(context.Background(), srv.URL, secret, "id-1", m)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
}
