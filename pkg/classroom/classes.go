package classroom

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
)

// Class is a teacher's class with its members, as its teacher sees it.
type Class struct {
	ID   uuid.UUID
	Name string
	// JoinCode lets a learner join the class (EnrolRequest.JoinCode); null
	// for a class made before join codes existed.
	JoinCode  *string
	CreatedAt time.Time
	Members   []Member
	// Decks are the decks assigned to the class, as ClassProgress.Decks:
	// by due date, then title.
	Decks []ClassDeck
}

// Member is a learner of a class.
type Member struct {
	LearnerID   uuid.UUID
	DisplayName string
	Email       string
	JoinedAt    time.Time
}

// Newcomer is a signed-in identity without a Lexora account (its email
// verified by the identity provider) that makes its own account with its
// first request (self-serve, as classroom products do): a teacher by
// creating their first class, a learner by joining one with its code. ID is
// the id its account will have; Role the account's role; Email is canonical
// (text.CanonicalEmail). DisplayName and Timezone (IANA) are the account's;
// AddAccount takes the email's local part and UTC for those left empty.
type Newcomer struct {
	ID          uuid.UUID
	Role        account.Role
	Subject     string
	Email       string
	DisplayName string
	Timezone    string
}

// AddAccount creates n's account (of n.Role) in tx, linked to n.Subject,
// created at the clock's NowOrNil. Errors: ErrEmailLookalike (see
// refuseLookalike); ErrAccountExists when the email or the subject has an
// account already (a concurrent first request of the same sign-in made it;
// the next request acts as that account).
func (c Classroom) AddAccount(ctx context.Context, tx pgx.Tx, n Newcomer) error {
	if err := refuseLookalike(ctx, store.On(tx), n.Email); err != nil {
		return err
	}
	local, _, _ := strings.Cut(n.Email, "@")
	n.DisplayName, n.Timezone = cmp.Or(n.DisplayName, local), cmp.Or(n.Timezone, "UTC")
	_, err := store.On(tx).AddAccount(ctx, store.AddAccountParams{ID: n.ID, Email: n.Email,
		DisplayName: n.DisplayName, Role: n.Role, Timezone: n.Timezone, Subject: n.Subject, Now: c.clock.NowOrNil()})
	if errors.Is(err, store.ErrNotFound) {
		return ErrAccountExists
	}
	if err != nil {
		return fmt.Errorf("add %s: %w", n.Role, err)
	}
	return nil
}

// joinCodeTries bounds the fresh join codes CreateClass draws when one is
// taken. A draw is taken with a chance of classes / 32^8: about 1 in 10^9
// with a thousand classes.
const joinCodeTries = 3

// CreateClass creates a class named name for teacherID in tx, with a fresh
// join code of 8 characters (A–Z, 2–7: base32, from crypto/rand), created
// at the clock's NowOrNil, and answers it without members.
func (c Classroom) CreateClass(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, name string) (Class, error) {
	classes := store.On(tx)
	for range joinCodeTries {
		code := rand.Text()[:8]
		row, err := classes.CreateClass(ctx, teacherID, name, code, c.clock.NowOrNil())
		if errors.Is(err, store.ErrNotFound) {
			continue // the code is taken: draw another
		}
		if err != nil {
			return Class{}, fmt.Errorf("create class: %w", err)
		}
		return Class{ID: row.ID, Name: name, JoinCode: &code, CreatedAt: row.CreatedAt, Members: []Member{}, Decks: []ClassDeck{}}, nil
	}
	return Class{}, fmt.Errorf("create class: %d join codes in a row were taken", joinCodeTries)
}

// ListClasses answers teacherID's classes, oldest first, each with its
// members by name and its decks (ClassDeck) by due date, then title.
func ListClasses(ctx context.Context, db store.DBTX, teacherID uuid.UUID) ([]Class, error) {
	q := store.On(db)
	rows, err := q.TeachersClasses(ctx, teacherID)
	if err != nil {
		return nil, fmt.Errorf("list classes: %w", err)
	}
	members, err := q.MembersOfTeachersClasses(ctx, teacherID)
	if err != nil {
		return nil, fmt.Errorf("list members: %w", err)
	}
	decks, err := q.ClassDecks(ctx, teacherID, nil)
	if err != nil {
		return nil, fmt.Errorf("list the classes' decks: %w", err)
	}
	out := make([]Class, 0, len(rows))
	byID := map[uuid.UUID]*Class{}
	for _, r := range rows {
		out = append(out, Class{ID: r.ID, Name: r.Name, JoinCode: r.JoinCode, CreatedAt: r.CreatedAt, Members: []Member{}, Decks: []ClassDeck{}})
	}
	for i := range out {
		byID[out[i].ID] = &out[i]
	}
	for _, m := range members { // outside one snapshot a class may be newer than rows
		if c := byID[m.ClassID]; c != nil {
			c.Members = append(c.Members, Member{LearnerID: m.ID, DisplayName: m.DisplayName, Email: m.Email, JoinedAt: m.JoinedAt})
		}
	}
	for _, d := range decks {
		if c := byID[d.ClassID]; c != nil {
			c.Decks = append(c.Decks, classDeck(d))
		}
	}
	return out, nil
}

// classDeck is the answer's form of a class_decks row: its times in UTC.
func classDeck(d store.ClassDecksRow) ClassDeck {
	return ClassDeck{DeckID: d.DeckID, DeckTitle: d.Title, DueAt: d.DueAt.UTC(), AssignedAt: d.AssignedAt.UTC(),
		DesiredRetention: d.DesiredRetention}
}

// refuseLookalike answers ErrEmailLookalike when an account with the
// canonical email (text.CanonicalEmail) would be new and look like another
// (store.EmailHasLookalike: one skeleton, text.Skeleton, another address,
// not both ASCII), and nil when the email has an account or none looks like
// it. It first takes the skeleton's lock (store.LockEmailSkeleton) for the
// rest of the transaction, so the caller's insert of the account follows a
// check no concurrent look-alike insert has got past. An address that looks
// like an account's is refused whoever asks and whatever that account's
// role; the answer reveals only that some account's address looks like
// it, no more than adding that exact address would.
func refuseLookalike(ctx context.Context, users *store.Queries, email string) error {
	skeleton := text.Skeleton(email)
	if err := users.LockEmailSkeleton(ctx, skeleton); err != nil {
		return fmt.Errorf("lock email skeleton: %w", err)
	}
	lookalike, err := users.EmailHasLookalike(ctx, skeleton, email)
	if err != nil {
		return fmt.Errorf("look for look-alike emails: %w", err)
	}
	if lookalike {
		return ErrEmailLookalike
	}
	return nil
}
