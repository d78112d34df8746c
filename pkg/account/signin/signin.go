// Package signin resolves a signed-in identity (the verified claims of an
// ID token) to its Lexora account: by the token's subject, or, at a first
// sign-in, by its verified email, which links the account to the subject.
// An identity without an account is a newcomer; one with a verified email
// may become a teacher (classroom.Classroom.AddTeacher).
package signin

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
)

// ErrNoAccount: the identity has no Lexora account (none has its subject,
// and none could be linked by its email).
var ErrNoAccount = errors.New("this identity has no Lexora account")

// newcomers is the UUID namespace of NewcomerID.
var newcomers = uuid.MustParse("6f2d4c1e-8a57-4b0e-9d3a-2c41f7e5b903")

// NewcomerID is the id of the account a newcomer signed in as subject gets
// with their first request: a name-based UUID (version 5) of the subject,
// the same for every request of theirs. So copies of that first request,
// sent at once with one Idempotency-Key, share the key's scope (the
// function and the acting user's id) and wait for the first one's answer,
// as a retry made once the account exists finds it.
func NewcomerID(subject string) uuid.UUID {
	return uuid.NewSHA1(newcomers, []byte(subject))
}

// Account is the account an identity acts as.
type Account struct {
	ID       uuid.UUID
	Role     account.Role
	Timezone string // IANA
}

// VerifiedEmail is c's email in its canonical form (text.CanonicalEmail)
// when the identity provider verified it; ok is false for an unverified
// email or one that has no canonical form. Only such an email links an
// account or makes a newcomer a teacher.
func VerifiedEmail(c auth.Claims) (email string, ok bool) {
	email, err := text.CanonicalEmail(c.Email)
	return email, err == nil && c.EmailVerified
}

// Resolve answers the account c signs in as: the one linked to c.Subject,
// else the one with c's verified email (VerifiedEmail) not yet linked to
// any subject, which it links to c.Subject. A concurrent first sign-in of
// the same identity that linked it first is found by the subject.
// Errors: ErrNoAccount.
func Resolve(ctx context.Context, db store.DBTX, c auth.Claims) (Account, error) {
	users := store.On(db)
	u, err := users.UserBySubject(ctx, c.Subject)
	if email, ok := VerifiedEmail(c); errors.Is(err, store.ErrNotFound) && ok {
		if err = users.LinkSubject(ctx, c.Subject, email); err == nil {
			// Linked by this call, or by a concurrent one first.
			u, err = users.UserBySubject(ctx, c.Subject)
		}
	}
	if errors.Is(err, store.ErrNotFound) {
		return Account{}, ErrNoAccount
	}
	if err != nil {
		return Account{}, fmt.Errorf("load the signed-in account: %w", err)
	}
	return Account{ID: u.ID, Role: u.Role, Timezone: u.Timezone}, nil
}
