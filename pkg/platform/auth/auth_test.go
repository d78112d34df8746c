package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

func verify(t *testing.T, v *Verifier, token string) (Claims, error) {
	t.Helper()
	r := httptest.NewRequest("GET", "/", nil)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	return v.Verify(context.Background(), r)
}

func TestDevTokensVerifyAndEverythingElseIsRefused(t *testing.T) {
	v, err := NewVerifier(context.Background(), Config{Project: "lexora-dev", Dev: true}, clock.System{})
	require.NoError(t, err)

	good, err := DevToken("lexora-dev", "user-1", "ada@lexora.test", time.Hour)
	require.NoError(t, err)
	c, err := verify(t, v, good)
	require.NoError(t, err)
	require.Equal(t, Claims{Subject: "user-1", Email: "ada@lexora.test", EmailVerified: true}, c)
	lower := httptest.NewRequest("GET", "/", nil)
	lower.Header.Set("Authorization", "bearer "+good)
	_, err = v.Verify(context.Background(), lower)
	require.NoError(t, err, "the scheme is case-insensitive")

	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	forged, err := signToken(jose.SigningKey{Algorithm: jose.RS256, Key: other}, "lexora-dev", "user-1", "", time.Now(), time.Hour)
	require.NoError(t, err)
	expired, err := signToken(jose.SigningKey{Algorithm: jose.RS256, Key: devKey}, "lexora-dev", "user-1", "", time.Now().Add(-2*time.Hour), time.Hour)
	require.NoError(t, err)
	otherProject, err := DevToken("someone-else", "user-1", "", time.Hour)
	require.NoError(t, err)
	for name, tok := range map[string]string{
		"no token": "", "garbage": "not.a.jwt", "forged": forged, "expired": expired, "another project": otherProject,
	} {
		_, err := verify(t, v, tok)
		require.ErrorIs(t, err, ErrUnauthenticated, name)
	}

	t.Setenv("K_SERVICE", "functions")
	_, err = NewVerifier(context.Background(), Config{Project: "lexora-dev", Dev: true}, clock.System{})
	require.ErrorContains(t, err, "refused on Cloud Run")
}

// jwksServer stands in for Google's key endpoint: it serves the public
// halves of the keys it is given, and counts the fetches.
type jwksServer struct {
	*httptest.Server
	mu      sync.Mutex
	keys    []jose.JSONWebKey
	fetches int
}

func newJWKSServer(t *testing.T) *jwksServer {
	s := &jwksServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.fetches++
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(jose.JSONWebKeySet{Keys: s.keys})
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) publish(keys ...jose.JSONWebKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys = nil
	for _, k := range keys {
		s.keys = append(s.keys, k.Public())
	}
}

func newKey(t *testing.T, kid string) jose.JSONWebKey {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	return jose.JSONWebKey{Key: k, KeyID: kid, Algorithm: string(jose.RS256), Use: "sig"}
}

// TestProductionVerifierFetchesAndFollowsTheKeySet exercises the production
// path (go-oidc's remote key set) against a local stand-in for Google's
// JWKS: tokens signed by a published key verify, a rotation to a new key id
// is followed, and unpublished keys, the development key, HS256 and the
// wrong project are refused.
func TestProductionVerifierFetchesAndFollowsTheKeySet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	jwks := newJWKSServer(t)
	first, second, unpublished := newKey(t, "k1"), newKey(t, "k2"), newKey(t, "k3")
	jwks.publish(first)
	v, err := newVerifier(ctx, Config{Project: "lexora-prod"}, clock.System{}, jwks.URL)
	require.NoError(t, err)
	sign := func(k jose.JSONWebKey, project string) string {
		tok, err := signToken(jose.SigningKey{Algorithm: jose.RS256, Key: &k}, project, "uid-1", "ada@lexora.test", time.Now(), time.Hour)
		require.NoError(t, err)
		return tok
	}

	c, err := verify(t, v, sign(first, "lexora-prod"))
	require.NoError(t, err)
	require.Equal(t, Claims{Subject: "uid-1", Email: "ada@lexora.test", EmailVerified: true}, c)

	jwks.publish(first, second)
	// go-oidc v3.21 (jwks.go, keysFromRemote) wakes the callers of a key-set
	// fetch before it clears that fetch, so a verification right after one
	// can share its result, the old key set; the next call fetches again.
	// Google's rotations overlap for hours, so production never meets this
	// window; the test asks again until the rotated key has been fetched.
	rotated := sign(second, "lexora-prod")
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		_, err := verify(t, v, rotated)
		assert.NoError(c, err, "a new key id is fetched when Google rotates")
	}, 10*time.Second, 5*time.Millisecond)

	hs, err := signToken(jose.SigningKey{Algorithm: jose.HS256, Key: []byte("a shared secret of at least 32 bytes")},
		"lexora-prod", "uid-1", "", time.Now(), time.Hour)
	require.NoError(t, err)
	dev, err := DevToken("lexora-prod", "uid-1", "", time.Hour)
	require.NoError(t, err)
	for name, tok := range map[string]string{
		"unpublished key": sign(unpublished, "lexora-prod"), "another project": sign(first, "lexora-other"),
		"HS256": hs, "development key": dev,
	} {
		_, err := verify(t, v, tok)
		require.ErrorIs(t, err, ErrUnauthenticated, name)
	}
	jwks.mu.Lock()
	defer jwks.mu.Unlock()
	require.Positive(t, jwks.fetches)
}

// TestEveryClaimRuleRefusesItsBreach breaks each row of claimRules in an
// otherwise valid token, signed by the right key, and expects a refusal.
func TestEveryClaimRuleRefusesItsBreach(t *testing.T) {
	t.Parallel()
	v, err := NewVerifier(context.Background(), Config{Project: "lexora-dev", Dev: true}, clock.System{})
	require.NoError(t, err)
	now := time.Now()
	day, skew := 24*time.Hour, ClockSkew
	breaches := map[string][]map[string]any{
		"iss":       {{"iss": Issuer("someone-else")}, {"iss": nil}},
		"aud":       {{"aud": "someone-else"}, {"aud": nil}},
		"exp":       {{"exp": now.Add(-time.Minute).Unix()}, {"exp": nil}},
		"iat":       {{"iat": now.Add(day).Unix()}, {"iat": now.Add(skew + time.Minute).Unix()}, {"iat": nil}},
		"auth_time": {{"auth_time": now.Add(day).Unix()}, {"auth_time": now.Add(skew + time.Minute).Unix()}, {"auth_time": nil}},
		"sub":       {{"sub": ""}, {"sub": nil}, {"sub": strings.Repeat("u", 129)}, {"sub": 42}},
		// The development verifier's bound (DevTokenLifetime); the
		// production bound is checked by TestTokenLifetimeIsTheIssuers.
		"exp (lifetime)":       {{"exp": now.Add(DevTokenLifetime + time.Minute).Unix()}, {"exp": now.AddDate(10, 0, 0).Unix()}},
		"iat (positive)":       {{"iat": -1}, {"iat": 0}},
		"auth_time (positive)": {{"auth_time": -1}, {"auth_time": 0}},
		"sub (blank)":          {{"sub": " "}, {"sub": "\t\n"}, {"sub": "\u3000"}},
	}
	for _, rule := range claimRules {
		require.NotEmpty(t, breaches[rule.claim], "rule %s has no test", rule.claim)
	}
	require.Len(t, breaches, len(claimRules))
	for claim, cases := range breaches {
		t.Run(claim, func(t *testing.T) {
			for _, change := range cases {
				claims := idTokenClaims("lexora-dev", "uid-1", "ada@lexora.test", now, time.Hour)
				for k, val := range change {
					if val == nil {
						delete(claims, k)
					} else {
						claims[k] = val
					}
				}
				tok, err := signClaims(jose.SigningKey{Algorithm: jose.RS256, Key: devKey}, claims)
				require.NoError(t, err)
				_, err = verify(t, v, tok)
				require.ErrorIs(t, err, ErrUnauthenticated, "%s: %v", claim, change)
			}
		})
	}
	// The limits themselves are accepted: within the clock skew, and a
	// subject of 128 characters.
	for _, change := range []map[string]any{
		{"iat": now.Add(skew - time.Minute).Unix(), "auth_time": now.Add(skew - time.Minute).Unix()},
		{"sub": strings.Repeat("ü", 128)},
		{"auth_time": now.Add(-30 * day).Unix()},
		{"exp": now.Add(DevTokenLifetime).Unix()},
		{"sub": " uid-1 "},
	} {
		claims := idTokenClaims("lexora-dev", "uid-1", "ada@lexora.test", now, time.Hour)
		maps.Copy(claims, change)
		tok, err := signClaims(jose.SigningKey{Algorithm: jose.RS256, Key: devKey}, claims)
		require.NoError(t, err)
		_, err = verify(t, v, tok)
		require.NoError(t, err, "%v", change)
	}
}

// TestTokenLifetimeIsTheIssuers checks the "exp (lifetime)" row against the
// production bound: a token valid for one hour is accepted, one valid for
// an hour and a second is not.
func TestTokenLifetimeIsTheIssuers(t *testing.T) {
	t.Parallel()
	v := &Verifier{project: "lexora-dev", lifetime: TokenLifetime}
	iat := float64(time.Now().Unix())
	var lifetime func(tokenClaims, *Verifier, time.Time) bool
	for _, rule := range claimRules {
		if rule.claim == "exp (lifetime)" {
			lifetime = rule.ok
		}
	}
	require.NotNil(t, lifetime)
	for _, tc := range []struct {
		exp  float64
		want bool
	}{{iat + 3600, true}, {iat + 3601, false}, {iat + 10*365*86400, false}} {
		t.Run(fmt.Sprintf("exp = iat + %v s", tc.exp-iat), func(t *testing.T) {
			exp := tc.exp
			require.Equal(t, tc.want, lifetime(tokenClaims{IssuedAt: &iat, Expiry: &exp}, v, time.Now()), "exp = iat + %v s", tc.exp-iat)
		})
	}
}

// A verifier reads the time from its clock: a token issued at the clock's
// instant is accepted while the clock is within its lifetime, whatever the
// process's time, and refused once the clock passes its expiry or stands
// before its issue (beyond ClockSkew).
func TestVerifierReadsItsClock(t *testing.T) {
	t.Parallel()
	issued := time.Date(2021, 6, 1, 9, 0, 0, 0, time.UTC)
	clk := clocktest.New(issued.Add(time.Minute))
	v, err := NewVerifier(context.Background(), Config{Project: "lexora-dev", Dev: true}, clk)
	require.NoError(t, err)
	tok, err := signToken(jose.SigningKey{Algorithm: jose.RS256, Key: devKey}, "lexora-dev", "uid-1", "", issued, time.Hour)
	require.NoError(t, err)

	_, err = verify(t, v, tok)
	require.NoError(t, err, "within its hour on the verifier's clock")
	clk.Set(issued.Add(time.Hour + time.Minute))
	_, err = verify(t, v, tok)
	require.ErrorIs(t, err, ErrUnauthenticated, "expired on the verifier's clock")
	clk.Set(issued.Add(-ClockSkew - time.Minute))
	_, err = verify(t, v, tok)
	require.ErrorIs(t, err, ErrUnauthenticated, "issued in the future of the verifier's clock")
}
