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
	"net/http"
	"net/url"
	"strconv"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// Config is the webhook part of the drain job's and functions' configuration.
type Config struct {
	// Timeout bounds one delivery attempt, connection to last byte.
	Timeout time.Duration `env:"WEBHOOK_TIMEOUT, default=10s"`
	// AllowHTTP accepts http:// endpoints; only for local development and
	// tests. In production every endpoint must be https://.
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
var ErrBadURL = errors.New("webhook URL must be an absolute https:// URL without credentials")

// CheckURL validates an endpoint URL: absolute, https (or http when
// allowHTTP), a host, no user info, at most 2,000 characters.
func CheckURL(raw string, allowHTTP bool) error {
	u, err := url.Parse(raw)
	if err != nil || len(raw) > 2000 || u.Host == "" || u.User != nil {
		return ErrBadURL
	}
	if u.Scheme != "https" && !(allowHTTP && u.Scheme == "http") {
		return ErrBadURL
	}
	return nil
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

// NewSender returns a Sender whose attempts time out after cfg.Timeout.
func NewSender(cfg Config) *Sender {
	return &Sender{client: &http.Client{Timeout: cfg.Timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse // a redirect is an answer, not an instruction
	}}}
}

// Send posts m to endpointURL signed with secret under msgID, and returns
// the receiver's status code. An error means no status was received
// (network failure, timeout, invalid secret).
func (s *Sender) Send(ctx context.Context, endpointURL, secret, msgID string, m Message) (int, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("webhook: encode message: %w", err)
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		return 0, fmt.Errorf("webhook: secret: %w", err)
	}
	now := time.Now()
	sig, err := wh.Sign(msgID, now, body)
	if err != nil {
		return 0, fmt.Errorf("webhook: sign: %w", err)
	}
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
