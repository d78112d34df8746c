package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
	v, err := NewVerifier(context.Background(), Config{Project: "lexora-dev", Dev: true})
	require.NoError(t, err)

	good, err := DevToken("lexora-dev", "user-1", "ada@lexora.test", time.Hour)
	require.NoError(t, err)
	c, err := verify(t, v, good)
	require.NoError(t, err)
	require.Equal(t, Claims{Subject: "user-1", Email: "ada@lexora.test", EmailVerified: true}, c)

	other, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	forged, err := signToken(other, "lexora-dev", "user-1", "", time.Now(), time.Hour)
	require.NoError(t, err)
	expired, err := signToken(devKey, "lexora-dev", "user-1", "", time.Now().Add(-2*time.Hour), time.Hour)
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
	_, err = NewVerifier(context.Background(), Config{Project: "lexora-dev", Dev: true})
	require.ErrorContains(t, err, "refused on Cloud Run")
}
