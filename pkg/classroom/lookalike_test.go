package classroom

import (
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestLookalikeEmailsAreRefused: a teacher's add of a new address that
// looks like another account's (sam@ beside saṃ@, a Cyrillic а, an accent)
// and a newcomer's own such address are ErrEmailLookalike and change
// nothing, whatever the other account's role; an accented address with no
// look-alike, an address that has an account already and two ASCII
// addresses that share a skeleton (rn and m) go on as before.
func TestLookalikeEmailsAreRefused(t *testing.T) {
	ctx, b := setup(t)
	teacher := Actor{ID: b.teacher, Role: account.Teacher}
	b.newLearner(t, "sam@example.com")
	pgtest.User(t, b.pool, "jose@example.com", "José", account.Teacher, "UTC")
	pgtest.User(t, b.pool, "ops@example.com", "Ops", account.Operator, "UTC")
	before := b.rows(t)
	for _, email := range []string{"sa\u1e43@example.com", "s\u0430m@example.com", "jos\u00e9@example.com", "\u00f6ps@example.com"} {
		_, err := b.enroll(t, teacher, EnrolRequest{ClassID: b.class, Email: email})
		require.ErrorIs(t, err, ErrEmailLookalike, email)
		n := Newcomer{ID: uuid.New(), Role: account.Teacher, Subject: "uid-" + email, Email: email}
		require.ErrorIs(t, b.inTx(t, func(tx pgx.Tx) error { return b.classroom.AddAccount(ctx, tx, n) }), ErrEmailLookalike, email)
		_, err = b.enroll(t, Actor{}, EnrolRequest{JoinCode: "JOIN1", Newcomer: &Newcomer{ID: uuid.New(), Subject: "j-" + email, Email: email}})
		require.ErrorIs(t, err, ErrEmailLookalike, email)
		require.Equal(t, before, b.rows(t), "%s changes nothing", email)
	}

	for _, email := range []string{"zo\u00eb@example.com", "rnodern@example.com", "modern@example.com", "sam@example.com"} {
		_, err := b.enroll(t, teacher, EnrolRequest{ClassID: b.class, Email: email})
		require.NoError(t, err, email)
	}
	// saṃ@ stored before this rule (the trigger writes its skeleton): its
	// address is that account, not a new look-alike, invited as any
	// learner outside the teacher's classes.
	b.newLearner(t, "sa\u1e43@example.com")
	out, err := b.enroll(t, teacher, EnrolRequest{ClassID: b.class, Email: "sa\u1e43@example.com"})
	require.NoError(t, err)
	require.Equal(t, "invited", out.Invitation.Status)
}

// TestLookalikeEmailsAtOnce: of look-alike addresses added at once, one
// account is made; the others wait on the skeleton's lock and are refused.
func TestLookalikeEmailsAtOnce(t *testing.T) {
	_, b := setup(t)
	emails := []string{"sam@example.com", "sa\u1e43@example.com", "s\u0430m@example.com", "\u015bam@example.com"}
	var wg sync.WaitGroup
	errs := make([]error, len(emails))
	for i, email := range emails {
		wg.Go(func() {
			_, errs[i] = b.enroll(t, Actor{ID: b.teacher, Role: account.Teacher}, EnrolRequest{ClassID: b.class, Email: email})
		})
	}
	wg.Wait()
	made := 0
	for i, err := range errs {
		if err == nil {
			made++
			continue
		}
		require.ErrorIs(t, err, ErrEmailLookalike, emails[i])
	}
	require.Equal(t, 1, made, "%v", errs)
	require.Equal(t, 1, count(t, b, `SELECT count(*) FROM users WHERE email = ANY($1)`, emails))
}
