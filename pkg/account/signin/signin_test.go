package signin

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestResolveLinksOnlyAVerifiedEmail: a first sign-in with a verified email
// links the account with that email (in its canonical form) to the subject,
// which finds it from then on; an unverified email, or an email of an
// account linked to another subject, links nothing.
func TestResolveLinksOnlyAVerifiedEmail(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	ana := pgtest.User(t, pool, "ana@example.com", "Ana", account.Learner, "Europe/Rome")
	subjectOf := func() *string {
		var s *string
		require.NoError(t, pool.QueryRow(ctx, `SELECT auth_subject FROM users WHERE id = $1`, ana).Scan(&s))
		return s
	}

	_, err := Resolve(ctx, pool, auth.Claims{Subject: "s1", Email: "ana@example.com"})
	require.ErrorIs(t, err, ErrNoAccount, "unverified")
	require.Nil(t, subjectOf())

	want := Account{ID: ana, Role: account.Learner, Timezone: "Europe/Rome"}
	got, err := Resolve(ctx, pool, auth.Claims{Subject: "s1", Email: " ANA@example.com", EmailVerified: true})
	require.NoError(t, err)
	require.Equal(t, want, got)
	got, err = Resolve(ctx, pool, auth.Claims{Subject: "s1"})
	require.NoError(t, err)
	require.Equal(t, want, got, "found by its subject")

	_, err = Resolve(ctx, pool, auth.Claims{Subject: "s2", Email: "ana@example.com", EmailVerified: true})
	require.ErrorIs(t, err, ErrNoAccount, "linked to another subject already")
	require.Equal(t, "s1", *subjectOf())
}
