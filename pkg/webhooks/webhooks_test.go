package webhooks

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

func TestEndpointsMustBePublicHTTPS(t *testing.T) {
	t.Parallel()
	for raw, ok := range map[string]bool{
		"https://school.example/hooks":                     true,
		"https://school.example./hooks":                    false, // trailing dot (review F7)
		"https://school.example:0/hooks":                   false, // port 0
		"https://school.example:65536/hooks":               false,
		"https://school.example:8443/hooks":                true,
		"https://school.example/hooks#frag":                false, // a fragment is never sent
		"https://school.example/hooks#":                    false,
		"https://school.example/%E2%80%8B":                 false, // U+200B percent-encoded
		"https://school.example/hooks?x=%E2%80%AE":         false, // U+202E in the query
		"https://school.example/hooks?x=%e2%80%8b":         false,
		"https://school.example/hooks?x=%zz":               false,
		"https://school.example/a%20b?x=y%20z":             true,
		"https://93.184.216.34/hooks":                      true,
		"https://93.184.216.34/x":                          true,
		"https://[2606:4700::1111]/x":                      true,
		"https://[64:ff9b::5db8:d822]/x":                   true, // NAT64 of 93.184.216.34
		"https://[2002:5db8:d822::1]/x":                    true, // 6to4 of 93.184.216.34
		"http://school.example/hooks":                      false,
		"https://school.example/hook ":                     false, // delivered to /hook%20
		" https://school.example/hook":                     false,
		"https://school.example/ho ok":                     false,
		"https://school.example/ho\u200bok":                false,
		"https://school.example/hook\u202e":                false,
		"https://school.example/hook?x=\t":                 false,
		"https://school.example/h%C3%BCk":                  true, // non-ASCII percent-encoded
		"https://school.example/hük":                       false,
		"https://169.254.169.254/x":                        false, // the metadata server
		"https://127.0.0.1/x":                              false,
		"https://[::1]/x":                                  false,
		"https://10.1.2.3/x":                               false,
		"https://[::ffff:192.168.1.1]/":                    false,
		"https://localhost/x":                              false,
		"https://localhost./x":                             false,
		"https://LocalHost./x":                             false,
		"https://app.localhost./x":                         false,
		"https://metadata.google.internal/":                false,
		"https://metadata.google.internal./":               false,
		"https://METADATA.GOOGLE.INTERNAL./":               false,
		"https://u:p@school.example/":                      false,
		"hooks":                                            false,
		"https://127.1/x":                                  false, // IPv4 shorthand, which resolvers accept
		"https://2130706433/x":                             false,
		"https://0x7f.1/x":                                 false,
		"https://0/x":                                      false,
		"https://localhost../x":                            false,
		"https://ⓛocalhost/x":                              false, // IDNA maps it to localhost
		"https://intranet/x":                               false, // a single label is a local name
		"https://-bad.example/x":                           false,
		"https://school.0xff/x":                            false,
		"https://xn--bcher-kva.example/x":                  true,
		"https://school-1.example/x":                       true,
		"https://100.64.0.1/x":                             false, // shared address space
		"https://100.100.100.200/x":                        false, // Alibaba Cloud metadata
		"https://100.127.255.254/x":                        false,
		"https://198.18.0.1/x":                             false, // benchmarking
		"https://198.19.255.254/x":                         false,
		"https://0.0.0.0/x":                                false,
		"https://0.1.2.3/x":                                false,
		"https://240.0.0.1/x":                              false, // reserved
		"https://255.255.255.255/x":                        false, // broadcast
		"https://192.0.0.1/x":                              false, // IETF protocol assignments
		"https://192.0.2.1/x":                              false, // documentation
		"https://198.51.100.1/x":                           false,
		"https://203.0.113.1/x":                            false,
		"https://224.0.0.1/x":                              false, // multicast
		"https://239.255.255.250/x":                        false,
		"https://[64:ff9b::a9fe:a9fe]/x":                   false, // NAT64 of 169.254.169.254
		"https://[64:ff9b::127.0.0.1]/x":                   false,
		"https://[64:ff9b:1::5db8:d822]/x":                 false, // local-use NAT64
		"https://[2002:7f00:1::]/x":                        false, // 6to4 of 127.0.0.1
		"https://[2002:a9fe:a9fe::1]/x":                    false, // 6to4 of 169.254.169.254
		"https://[::127.0.0.1]/x":                          false, // IPv4-compatible
		"https://[::a9fe:a9fe]/x":                          false,
		"https://[::]/x":                                   false,
		"https://[2001:db8::1]/x":                          false, // documentation
		"https://[100::1]/x":                               false, // discard
		"https://[fc00::1]/x":                              false, // unique local
		"https://[fd12:3456::1]/x":                         false,
		"https://[fe80::1]/x":                              false, // link-local
		"https://[fe80::1%25eth0]/x":                       false,
		"https://[ff02::1]/x":                              false, // multicast
		"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x": false, // Teredo
	} {
		require.Equal(t, ok, CheckURL(raw, false) == nil, raw)
	}
	require.NoError(t, CheckURL("http://127.0.0.1:9000/hooks", true), "development allows local receivers")
	require.NoError(t, CheckURL("http://localhost.:9000/hooks", true))
	require.NoError(t, CheckURL("https://[::1]:9000/hooks", true))
	for _, raw := range []string{"http://127.0.0.1:0/hooks", "http://localhost:9000/hooks#x", "http://localhost:9000/%E2%80%8B"} {
		require.ErrorIs(t, CheckURL(raw, true), ErrBadURL, "development still refuses %s", raw)
	}
}

// TestInternationalisedHostsBecomePunycode: a host name in Unicode is
// converted to its IDNA (punycode) form, which is what is checked, stored
// and dialled; everything else in the URL is kept byte for byte, and a name
// that IDNA maps to a local one is still refused.
func TestInternationalisedHostsBecomePunycode(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://bücher.example/hooks?x=%C3%BC": "https://xn--bcher-kva.example/hooks?x=%C3%BC",
		"https://BÜCHER.example:8443/h":         "https://xn--bcher-kva.example:8443/h",
		"https://пример.рф/h":                   "https://xn--e1afmkfd.xn--p1ai/h",
		"https://school.example/hooks":          "https://school.example/hooks",
	} {
		got, err := ASCIIHost(raw)
		require.NoError(t, err, raw)
		require.Equal(t, want, got, raw)
		require.NoError(t, CheckURL(got, false), raw)
	}
	for _, raw := range []string{"https://ⓛocalhost/x", "https://bücher.example/hük", "https://exa\u200bmple.com/x"} {
		got, err := ASCIIHost(raw)
		if err == nil {
			err = CheckURL(got, false)
		}
		require.ErrorIs(t, err, ErrBadURL, raw)
	}
	require.ErrorContains(t, CheckURL("https://bücher.example/x", false), "punycode",
		"the advice for a host is punycode, not percent-encoding")
}

// TestPublicJudgesEmbeddedIPv4 checks that IPv6 forms carrying an IPv4
// address are judged by that address.
func TestPublicJudgesEmbeddedIPv4(t *testing.T) {
	t.Parallel()
	for addr, ok := range map[string]bool{
		"93.184.216.34":            true,
		"::ffff:93.184.216.34":     true, // IPv4-mapped
		"64:ff9b::93.184.216.34":   true, // NAT64
		"2002:5db8:d822::":         true, // 6to4
		"2002:5db8:d822:1::1":      true,
		"::ffff:127.0.0.1":         false,
		"::ffff:169.254.169.254":   false,
		"::ffff:100.100.100.200":   false,
		"::127.0.0.1":              false, // IPv4-compatible
		"::10.0.0.1":               false,
		"::93.184.216.34":          true, // IPv4-compatible, judged by what it embeds
		"64:ff9b::10.0.0.1":        false,
		"64:ff9b::100.64.0.1":      false,
		"64:ff9b::198.18.0.1":      false,
		"64:ff9b::255.255.255.255": false,
		"2002:0a00:0001::":         false, // 6to4 of 10.0.0.1
		"2002:c0a8:0101::1":        false, // 6to4 of 192.168.1.1
		"2002:e000:0001::":         false, // 6to4 of 224.0.0.1
		"64:ff9b:1::93.184.216.34": false, // local-use NAT64, refused whatever it embeds
		"fe80::1%eth0":             false,
		"::":                       false,
		"::1":                      false,
	} {
		require.Equal(t, ok, public(netip.MustParseAddr(addr)), addr)
	}
	require.False(t, public(netip.Addr{}))
}

func TestSenderRefusesNonPublicAddressesAtDialTime(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	secret := NewSecret()
	m := Message{Type: "t", Timestamp: time.Now(), Data: []byte(`{}`)}
	_, err := NewSender(Config{Timeout: time.Second}, clock.System{}).Send(context.Background(), srv.URL, []string{secret}, "id-1", m)
	require.ErrorContains(t, err, "non-public address")
	status, err := NewSender(Config{Timeout: time.Second, AllowHTTP: true}, clock.System{}).Send(context.Background(), srv.URL, []string{secret}, "id-1", m)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
}

// TestRotationOverlapSignsWithBothSecrets checks, with the reference
// library, that a message signed with a new and a previous secret verifies
// with either, and not with a third, at the instant of the sender's clock.
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
	signedAt := clocktest.New(time.Now().Add(-time.Minute)) // within the receiver's tolerance
	sender := NewSender(Config{Timeout: time.Second, AllowHTTP: true}, signedAt)
	status, err := sender.Send(context.Background(), srv.URL, []string{fresh, previous}, "msg_1", m)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, status)
	h := <-got
	require.Len(t, strings.Fields(h.Get("webhook-signature")), 2)
	require.Equal(t, strconv.FormatInt(signedAt.Now().Unix(), 10), h.Get("webhook-timestamp"))
	for secret, valid := range map[string]bool{fresh: true, previous: true, NewSecret(): false} {
		wh, err := standardwebhooks.NewWebhook(secret)
		require.NoError(t, err)
		require.Equal(t, valid, wh.Verify(body, h) == nil)
	}
	_, err = sender.Send(context.Background(), srv.URL, nil, "msg_2", m)
	require.ErrorContains(t, err, "no signing secret")
}
