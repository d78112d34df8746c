package classroom

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/store"
)

// Profile is a user's own account and classes, as the user sees them.
type Profile struct {
	ID          uuid.UUID
	DisplayName string
	// Email is the canonical form the account is stored under
	// (text.CanonicalEmail).
	Email string
	// Roles are the user's roles; a user has exactly one today.
	Roles []account.Role
	// Timezone is the user's IANA time zone: their study days, streaks and
	// reminders follow it.
	Timezone string
	// Classes are the classes the user is a learner in, by join date.
	Classes []Membership
	// Teaching are the classes the user teaches, oldest first.
	Teaching []TaughtClass
}

// Membership is a class a learner is in.
type Membership struct {
	ID          uuid.UUID
	Name        string
	TeacherName string
	JoinedAt    time.Time
}

// TaughtClass is a class its teacher teaches, with its join code and how
// many learners are in it (ListClasses lists them).
type TaughtClass struct {
	ID       uuid.UUID
	Name     string
	JoinCode *string
	Members  int
}

// ProfileOf reads the account of the user userID and the classes they are
// in and teach (a learner is in classes, a teacher teaches them; either
// list is empty otherwise). The user exists: it is the acting user.
func ProfileOf(ctx context.Context, db store.DBTX, userID uuid.UUID) (Profile, error) {
	q := store.On(db)
	u, err := q.Profile(ctx, userID)
	if err != nil {
		return Profile{}, fmt.Errorf("load profile: %w", err)
	}
	out := Profile{ID: u.ID, DisplayName: u.DisplayName, Email: u.Email, Roles: []account.Role{u.Role},
		Timezone: u.Timezone, Classes: []Membership{}, Teaching: []TaughtClass{}}
	in, err := q.LearnersClasses(ctx, userID)
	if err != nil {
		return Profile{}, fmt.Errorf("load classes: %w", err)
	}
	for _, c := range in {
		out.Classes = append(out.Classes, Membership{ID: c.ID, Name: c.Name, TeacherName: c.TeacherName, JoinedAt: c.JoinedAt})
	}
	taught, err := ListClasses(ctx, db, userID)
	if err != nil {
		return Profile{}, err
	}
	for _, c := range taught {
		out.Teaching = append(out.Teaching, TaughtClass{ID: c.ID, Name: c.Name, JoinCode: c.JoinCode, Members: len(c.Members)})
	}
	return out, nil
}
