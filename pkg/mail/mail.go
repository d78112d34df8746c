// Package mail sends Lexora's emails over SMTP with github.com/wneessen/go-mail.
//
// Locally and in tests the server is a mailpit sink (no TLS, no auth); in
// production it is the relay given by SMTP_HOST, SMTP_PORT, SMTP_USERNAME and
// SMTP_PASSWORD, with STARTTLS required.
package mail

import (
	"context"
	"fmt"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Config is the SMTP part of the drain job's configuration.
type Config struct {
	Host     string `env:"SMTP_HOST, default=127.0.0.1"`
	Port     int    `env:"SMTP_PORT, default=1025"`
	Username string `env:"SMTP_USERNAME"`
	Password string `env:"SMTP_PASSWORD"`
	// TLS is "none" for a local sink or "starttls" for a real relay.
	TLS  string `env:"SMTP_TLS, default=none"`
	From string `env:"MAIL_FROM, default=Lexora <no-reply@lexora.app>"`
	// Timeout bounds one connection and send, in Go duration syntax.
	Timeout time.Duration `env:"SMTP_TIMEOUT, default=10s"`
}

// Message is one plain-text email. MessageID is the bare id, without angle
// brackets; receivers deduplicate on it, so a resend after a crash is
// recognised as the same message.
type Message struct {
	MessageID string
	To        string
	Subject   string
	Body      string
}

// Sender sends messages.
type Sender interface {
	Send(ctx context.Context, m Message) error
}

// SMTP is a Sender that opens one SMTP connection per message.
type SMTP struct {
	cfg Config
}

// NewSMTP returns an SMTP sender for cfg. It returns an error for an unknown
// TLS mode or a missing host.
func NewSMTP(cfg Config) (*SMTP, error) {
	if cfg.Host == "" {
		return nil, fmt.Errorf("mail: SMTP_HOST is empty")
	}
	if cfg.TLS != "none" && cfg.TLS != "starttls" {
		return nil, fmt.Errorf("mail: SMTP_TLS must be none or starttls, not %q", cfg.TLS)
	}
	return &SMTP{cfg: cfg}, nil
}

// Send delivers m to the SMTP server. An error means the server did not
// accept the message (it may still have been accepted if the connection
// broke after the final reply was sent; callers retry with the same
// MessageID).
func (s *SMTP) Send(ctx context.Context, m Message) error {
	msg := gomail.NewMsg()
	if err := msg.From(s.cfg.From); err != nil {
		return fmt.Errorf("mail: from address: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return fmt.Errorf("mail: to address %q: %w", m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDate()
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)

	opts := []gomail.Option{gomail.WithPort(s.cfg.Port), gomail.WithTimeout(s.cfg.Timeout), gomail.WithTLSPolicy(gomail.NoTLS)}
	if s.cfg.TLS == "starttls" {
		opts[2] = gomail.WithTLSPolicy(gomail.TLSMandatory)
	}
	if s.cfg.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthPlain),
			gomail.WithUsername(s.cfg.Username), gomail.WithPassword(s.cfg.Password))
	}
	client, err := gomail.NewClient(s.cfg.Host, opts...)
	if err != nil {
		return fmt.Errorf("mail: client: %w", err)
	}
	if err := client.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send to %s via %s:%d: %w", m.To, s.cfg.Host, s.cfg.Port, err)
	}
	return nil
}
