// Package auth verifies the ID tokens that authenticate every request:
// Google Identity Platform (Firebase Auth) tokens in production, checked
// with github.com/coreos/go-oidc/v3 (issuer
// https://securetoken.google.com/<project>, audience the project id, RS256
// only, expiry checked, keys from Google's JWKS). In development a fixed key
// stands in for Google's: DevToken mints tokens of the same shape, and a
// verifier built with Dev accepts only those. Development mode refuses to
// start on Cloud Run (K_SERVICE set).
package auth

import (
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// Config selects the token issuer.
type Config struct {
	// Project is the Google Cloud / Firebase project id: the tokens'
	// audience, and the last part of their issuer.
	Project string `env:"AUTH_PROJECT, default=lexora-dev"`
	// Dev accepts tokens signed by the development key instead of Google's.
	Dev bool `env:"AUTH_DEV"`
}

// GoogleJWKS is where Google publishes the keys of Identity Platform tokens.
const GoogleJWKS = "https://www.googleapis.com/service_accounts/v1/jwk/securetoken@system.gserviceaccount.com"

// Issuer returns the token issuer of project.
func Issuer(project string) string { return "https://securetoken.google.com/" + project }

// Claims are what Lexora reads from a verified token. Name is the user's
// name as the identity provider gives it (Google's profile name; empty when
// the token has none), unchecked: a newcomer's account takes it only as
// text.SingleLine of at most 200 characters.
type Claims struct {
	Subject       string `json:"sub"`
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
	Name          string `json:"name"`
}

// Verifier checks bearer tokens.
type Verifier struct {
	v       *oidc.IDTokenVerifier
	project string
	// lifetime is the longest exp − iat accepted: TokenLifetime, or
	// DevTokenLifetime in development mode.
	lifetime time.Duration
	// clock tells the instant a token's exp, iat and auth_time are checked
	// against.
	clock clock.Clock
}

// ErrUnauthenticated wraps every reason a request is not authenticated.
var ErrUnauthenticated = errors.New("unauthenticated")

// NewVerifier returns a verifier for cfg that checks a token's times (exp,
// iat, auth_time) against clk. It returns an error for an empty project, or
// for development mode on Cloud Run.
func NewVerifier(ctx context.Context, cfg Config, clk clock.Clock) (*Verifier, error) {
	return newVerifier(ctx, cfg, clk, GoogleJWKS)
}

// newVerifier is NewVerifier with the production keys fetched from jwks, so
// that tests can stand in for Google's endpoint.
func newVerifier(ctx context.Context, cfg Config, clk clock.Clock, jwks string) (*Verifier, error) {
	if cfg.Project == "" {
		return nil, errors.New("auth: AUTH_PROJECT is empty")
	}
	var keys oidc.KeySet
	lifetime := TokenLifetime
	if cfg.Dev {
		lifetime = DevTokenLifetime
		if os.Getenv("K_SERVICE") != "" {
			return nil, errors.New("auth: AUTH_DEV is refused on Cloud Run (K_SERVICE is set)")
		}
		keys = &oidc.StaticKeySet{PublicKeys: []crypto.PublicKey{&devKey.PublicKey}}
	} else {
		keys = oidc.NewRemoteKeySet(ctx, jwks)
	}
	return &Verifier{v: oidc.NewVerifier(Issuer(cfg.Project), keys, &oidc.Config{
		ClientID:             cfg.Project,
		SupportedSigningAlgs: []string{oidc.RS256},
		Now:                  clk.Now,
	}), project: cfg.Project, lifetime: lifetime, clock: clk}, nil
}

// Verify checks the request's "Authorization: Bearer <token>" and returns
// its claims. Every failure (no header, malformed, bad signature, wrong
// algorithm or key, or a claim that breaks one of claimRules) wraps
// ErrUnauthenticated.
func (v *Verifier) Verify(ctx context.Context, r *http.Request) (Claims, error) {
	scheme, raw, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(raw) == "" { // schemes are case-insensitive (RFC 9110)
		return Claims{}, fmt.Errorf("%w: send an ID token as Authorization: Bearer <token>", ErrUnauthenticated)
	}
	tok, err := v.v.Verify(ctx, strings.TrimSpace(raw))
	if err != nil {
		return Claims{}, fmt.Errorf("%w: %w", ErrUnauthenticated, err)
	}
	var c tokenClaims
	if err := tok.Claims(&c); err != nil {
		return Claims{}, fmt.Errorf("%w: claims: %w", ErrUnauthenticated, err)
	}
	now := v.clock.Now()
	for _, rule := range claimRules {
		if !rule.ok(c, v, now) {
			return Claims{}, fmt.Errorf("%w: claim %s: must %s", ErrUnauthenticated, rule.claim, rule.must)
		}
	}
	return Claims{Subject: *c.Subject, Email: c.Email, EmailVerified: c.EmailVerified, Name: c.Name}, nil
}

// ClockSkew is how far ahead of this server's clock the issuer's may be: a
// token issued (iat) or signed in (auth_time) up to this long in the future
// is accepted. Five minutes, as the Firebase Admin SDKs allow
// (firebase-admin-go auth/token_verifier.go, clockSkewSeconds).
const ClockSkew = 5 * time.Minute

// TokenLifetime is the longest an Identity Platform ID token may be valid
// (exp − iat): Firebase ID tokens expire one hour after they are issued
// ("Manage user sessions", https://firebase.google.com/docs/auth/admin/manage-sessions).
// A longer-lived token was not minted by the issuer's ordinary flow.
const TokenLifetime = time.Hour

// DevTokenLifetime is TokenLifetime in development mode, where a sign-in
// lasts a working day (functions/cmd/server's development sign-in) and
// load runs mint one token per actor; the development key is public, so
// the bound only keeps tokens from living for ever.
const DevTokenLifetime = 24 * time.Hour

// tokenClaims are the claims of an Identity Platform ID token that
// claimRules check. Pointers tell a missing claim from a zero one.
type tokenClaims struct {
	Issuer        string   `json:"iss"`
	Audience      any      `json:"aud"`
	Subject       *string  `json:"sub"`
	Expiry        *float64 `json:"exp"`
	IssuedAt      *float64 `json:"iat"`
	AuthTime      *float64 `json:"auth_time"`
	Email         string   `json:"email"`
	EmailVerified bool     `json:"email_verified"`
	Name          string   `json:"name"`
}

// claimRules are the ID token's claim constraints as Firebase documents them
// ("Verify ID tokens using a third-party JWT library",
// https://firebase.google.com/docs/auth/admin/verify-id-tokens), one row
// per claim. go-oidc checks the header (alg RS256, kid of a published key),
// the signature, iss, aud and exp too; the table states every rule in one
// place and does not depend on what a library version checks.
var claimRules = []struct {
	claim, must string
	ok          func(c tokenClaims, v *Verifier, now time.Time) bool
}{
	{"iss", "be https://securetoken.google.com/<project id>", func(c tokenClaims, v *Verifier, _ time.Time) bool {
		return c.Issuer == Issuer(v.project)
	}},
	{"aud", "be the project id", func(c tokenClaims, v *Verifier, _ time.Time) bool {
		return c.Audience == v.project
	}},
	{"exp", "be in the future", func(c tokenClaims, _ *Verifier, now time.Time) bool {
		return c.Expiry != nil && now.Before(unixTime(*c.Expiry))
	}},
	{"exp (lifetime)", "be at most the issuer's token lifetime (TokenLifetime, 1 h) after iat", func(c tokenClaims, v *Verifier, _ time.Time) bool {
		return c.Expiry != nil && c.IssuedAt != nil && !unixTime(*c.Expiry).After(unixTime(*c.IssuedAt).Add(v.lifetime))
	}},
	{"iat", "be in the past", func(c tokenClaims, _ *Verifier, now time.Time) bool {
		return c.IssuedAt != nil && !unixTime(*c.IssuedAt).After(now.Add(ClockSkew))
	}},
	{"iat (positive)", "be after the epoch", func(c tokenClaims, _ *Verifier, _ time.Time) bool {
		return c.IssuedAt != nil && *c.IssuedAt > 0
	}},
	{"auth_time", "be in the past", func(c tokenClaims, _ *Verifier, now time.Time) bool {
		return c.AuthTime != nil && !unixTime(*c.AuthTime).After(now.Add(ClockSkew))
	}},
	{"auth_time (positive)", "be after the epoch", func(c tokenClaims, _ *Verifier, _ time.Time) bool {
		return c.AuthTime != nil && *c.AuthTime > 0
	}},
	{"sub", "be a non-empty string of at most 128 characters (the user's uid)", func(c tokenClaims, _ *Verifier, _ time.Time) bool {
		return c.Subject != nil && *c.Subject != "" && utf8.RuneCountInString(*c.Subject) <= 128
	}},
	{"sub (blank)", "not be only white space", func(c tokenClaims, _ *Verifier, _ time.Time) bool {
		return c.Subject != nil && strings.TrimFunc(*c.Subject, unicode.IsSpace) != ""
	}},
}

// unixTime is the time of a NumericDate claim (RFC 7519: seconds since the
// epoch, possibly fractional).
func unixTime(secs float64) time.Time { return time.UnixMilli(int64(secs * 1000)) }

// DevToken mints a development ID token for project, issued now on
// clock.System and valid for ttl, with the given subject and email
// (verified), signed by the development key. Only a verifier in development
// mode accepts it.
func DevToken(project, subject, email string, ttl time.Duration) (string, error) {
	return DevNamedToken(project, subject, email, "", ttl)
}

// DevNamedToken is DevToken with a name claim too (none when name is
// empty), as Google's sign-in gives one.
func DevNamedToken(project, subject, email, name string, ttl time.Duration) (string, error) {
	claims := idTokenClaims(project, subject, email, clock.System{}.Now(), ttl)
	if name != "" {
		claims["name"] = name
	}
	return signClaims(jose.SigningKey{Algorithm: jose.RS256, Key: devKey}, claims)
}

// signToken signs claims of the shape Identity Platform issues with key,
// whose Key may be a *jose.JSONWebKey to name its key id.
func signToken(key jose.SigningKey, project, subject, email string, now time.Time, ttl time.Duration) (string, error) {
	return signClaims(key, idTokenClaims(project, subject, email, now, ttl))
}

// idTokenClaims are the claims Identity Platform puts in an ID token.
func idTokenClaims(project, subject, email string, now time.Time, ttl time.Duration) map[string]any {
	return map[string]any{
		"iss": Issuer(project), "aud": project, "sub": subject, "user_id": subject,
		"iat": now.Unix(), "exp": now.Add(ttl).Unix(), "auth_time": now.Unix(),
		"email": email, "email_verified": email != "",
	}
}

// signClaims signs claims with key.
func signClaims(key jose.SigningKey, claims map[string]any) (string, error) {
	signer, err := jose.NewSigner(key, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", fmt.Errorf("auth: signer: %w", err)
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// devKey is the development issuer's fixed key. It is public by design: it
// only ever signs tokens for local development and tests.
var devKey = func() *rsa.PrivateKey {
	block, _ := pem.Decode([]byte(devKeyPEM))
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		panic(err)
	}
	rk, ok := k.(*rsa.PrivateKey)
	if !ok {
		panic(fmt.Sprintf("auth: the development key is a %T, not an RSA key", k))
	}
	return rk
}()

const devKeyPEM = `-----BEGIN PRIVATE KEY-----
MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQDjgvlPfua8xv3h
2VRoeJDcBmx6G5WzIIv/+eMit6ERHGS5iTkB2hIWrAUIwnQ7VwIS+CBDQE+8bSd8
KGH+Ed8ripjYXHzCg1n9rkAr+uB4+EVmN/W3JW8u8diSwkoA5+N2srVxqS25wVZO
mGGKpyTdVftVs9pvGkhTm46mg5wcUd3aPtg7T4yjTZdYPZf23NIIlH57reyUvTcm
l+jCD8IPTh/b66oavVorlN0aklbTHfaa4aY9+D4U2UeM3nepAPYx9yG/XUA6ghk/
Ys1/y2Db2Kyu3YS01G+WpWaFjnZGJlN/1+CG4Krmwqvb9LMIhaulN6ZJwADdKHLz
SF+jWD9hAgMBAAECggEABH2YAUq/YAnjNllPYEPDc7VUgC1B1VwayU/XzO5QEX30
isE3sOa6kUweShHJAKgXLlPLkro+7KigpTOomf7FL3dEDK64J3B3ZvGA2qFgO4EG
gSXQ/bdBYF1FjaGEO4v4LlZJDKwWvwYu93yMXdPOX2hIXoTfFo7vrydIj7a0rs4h
FglRx0rWL4wQbU/YAgGpQKS7UFYAztuDcJhpARokuh4codpjMn8fnHgzvBbVesiA
5sHIFJw2jIX2WH1wLWxkhmKdIh153F5k9qOROHpHrBHUNpex5ObqeFU+U/Usi1ke
BaQOiOTSVh0b28jGSb8OoYxCPcB7hUrNjY2egxFgAQKBgQD2MIY6tgUnc+OVCqu8
OGakQ3u6g0kcmqk2O3Se65Fz9cDQOWoG+DnvpOxP3D8V0ciircwhZpY59DcXlsHI
WJZPZ0ntIGMA7Q51oS6H6+gfKWKKCmRlykyuwBBrnUWPgwWZVVfDxT9FzgmahkXU
CAPENCWfbf9PCx93/uusx1svYQKBgQDsk+ieY5ynLyRaK/i6vHYm+x1zDTji9COn
PzO+f9HXdGi2HlDLcYMcPKelPk/G6bZDiQICFf+KS8yHBf/bVnz+FhAEcrl8/hEa
r+w89cNXAF+LCh1SNA1AeTp4LWPBBSu2N/3h0NXnrQmR/ivVI8ogOBVx+9Sg/mmj
GgdQuWcQAQKBgQCqoKsHmgwsceez7rdkNnr9MkBY3pEXoCHTEpYbZw1in1tJdeGE
fxo4e8fE+dNHXiR+i5JFPAK2nApq8PPR1YQn+GCGVsIHbEVvRY0oa1pv7pD7N4Sp
//Hx0/ANhe0mMBr7UOkJKHZX/Rsu3A0djYh+vd2th+FBeWYQFsBk+a67QQKBgQCw
GFCYRTE/yHlYnU5hQRL5ZQXAs+DaHjvDq+nKLL53j3C5zsr5BB9Bj2yCNWWQfDps
/rh98P3rZQxynOabzz7uqmF1zid/gGYe5UAFCDJEukRj7D1zCMesbBA3kCGmdUDa
O8dApP/zmPt8riLWXfOAE/7yfy8APx9GhoNXdQngAQKBgHpRTnHLrGaygz9S3WYw
x6u4ZiiJt2vHHa23XS/LxonA1kdiSmaLy0nNGsKo0aDtwFHNfVRxhJjojNbwsdYe
by6RNPw49ilP8hv4slW+2133Ja8tvA3vHYToCmg0CPAR78dfA4lWcz2ccf8Z39tg
kAhAZBcXN1mRvFhVjz9gLQvD
-----END PRIVATE KEY-----`
