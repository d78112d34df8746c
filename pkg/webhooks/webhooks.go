// Package webhooks sends Lexora's events to teacher-registered HTTP
// endpoints, signed as the Standard Webhooks specification says
// (https://www.standardwebhooks.com): headers webhook-id, webhook-timestamp
// and webhook-signature, an HMAC-SHA256 over "id.timestamp.body" computed by
// the reference library github.com/standard-webhooks/standard-webhooks.
// The webhook-id is the event id, so a receiver can deduplicate retries.
package webhooks

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Config is the webhook part of the drain job's and functions' configuration.
type Config struct {
	// Timeout bounds one delivery attempt, connection to last byte.
	Timeout time.Duration `env:"WEBHOOK_TIMEOUT, default=10s"`
	// AllowHTTP accepts http:// endpoints and local addresses; only for
	// local development and tests. In production every endpoint must be
	// https:// on a public address.
	AllowHTTP bool `env:"WEBHOOK_ALLOW_HTTP"`
}

// NewSecret returns a fresh signing secret: "whsec_" and the base64 of 32
// random bytes, the format the reference libraries read.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// ErrBadURL is returned by CheckURL.
var ErrBadURL = errors.New("webhook URL must be an absolute https:// URL without credentials, to a public host")

// CheckURL validates an endpoint URL: absolute, https, a host, no user
// info, at most 2,000 characters, and not an address inside a network
// (loopback, private, link-local such as the cloud metadata server,
// unspecified). allowLocal (development only) also accepts http:// and local
// addresses. The Sender checks the resolved address again when it dials,
// since a name may resolve elsewhere later.
func CheckURL(raw string, allowLocal bool) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2000 || u.Host == "" || u.User != nil {
		return ErrBadURL
	}
	if u.Scheme != "https" && !(allowLocal && u.Scheme == "http") {
		return ErrBadURL
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !allowLocal && !public(ip) {
		return ErrBadURL
	}
	if h := strings.ToLower(u.Hostname()); !allowLocal && (h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".internal")) {
		return ErrBadURL
	}
	return nil
}

// public reports whether ip may receive webhooks: not loopback, private,
// link-local, multicast or unspecified.
func public(ip netip.Addr) bool {
	ip = ip.Unmap()
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast())
}

// Message is what an endpoint receives: the Standard Webhooks payload
// structure, with the event's own payload as data.
type Message struct {
	Type      string          `json:"type"`
	Timestamp time.Time       `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// Sender posts signed messages.
type Sender struct {
	client *http.Client
}

// NewSender returns a Sender whose attempts time out after cfg.Timeout and
// which, unless cfg.AllowHTTP (development), refuses to connect to
// non-public addresses whatever a name resolves to.
func NewSender(cfg Config) *Sender {
	dialer := &net.Dialer{Timeout: cfg.Timeout}
	if !cfg.AllowHTTP {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !public(ap.Addr()) {
				return fmt.Errorf("webhook: refusing to connect to non-public address %s", address)
			}
			return nil
		}
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = dialer.DialContext
	transport.Proxy = nil
	return &Sender{client: &http.Client{Timeout: cfg.Timeout, Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is an answer, not an instruction
		}}}
}

// Send posts m to endpointURL under msgID, signed with each of secrets (at
// least one; during a secret rotation the new one and the previous one, as
// space-separated signatures the receiver may check with either), and
// returns the receiver's status code. An error means no status was received
// (network failure, timeout, invalid or no secret).
func (s *Sender) Send(ctx context.Context, endpointURL string, secrets []string, msgID string, m Message) (int, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("webhook: encode message: %w", err)
	}
	if len(secrets) == 0 {
		return 0, errors.New("webhook: no signing secret")
	}
	now := time.Now()
	sigs := make([]string, len(secrets))
	for i, secret := range secrets {
		wh, err := standardwebhooks.NewWebhook(secret)
		if err != nil {
			return 0, fmt.Errorf("webhook: secret: %w", err)
		}
		if sigs[i], err = wh.Sign(msgID, now, body); err != nil {
			return 0, fmt.Errorf("webhook: sign: %w", err)
		}
	}
	sig := strings.Join(sigs, " ")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpointURL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("webhook: request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Lexora-Webhooks/1")
	req.Header.Set("webhook-id", msgID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("webhook: post to %s: %w", redact(endpointURL), err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// redact keeps a URL's scheme and host, so that tokens in paths or queries
// do not reach the logs.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	return u.Scheme + "://" + u.Host + "/…"
}
