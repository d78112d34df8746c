package classroom

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/reminders"
	"github.com/lexora-app/lexora/pkg/store"
)

// InvitationInterval is how long after an invitation to a class the same
// learner is not emailed about it again.
const InvitationInterval = 24 * time.Hour

// EnrolRequest asks for a learner to join a class: a teacher names their
// ClassID and the learner's Email (canonical, text.CanonicalEmail;
// DisplayName and Timezone are used when the learner has no account yet),
// or a learner gives a JoinCode (case does not matter). Newcomer, with a
// JoinCode only, is an identity without an account that joins as a new
// learner (see Enroll).
type EnrolRequest struct {
	ClassID     uuid.UUID
	Email       string
	DisplayName string
	Timezone    string
	JoinCode    string
	Newcomer    *Newcomer
}

// Enrollment is a learner added to a class.
type Enrollment struct {
	ClassID   uuid.UUID
	ClassName string
	LearnerID uuid.UUID
	// Assignments were created, with the learner's cards, for the class's
	// active decks (assigned through this class and not yet due), so the
	// learner's schedule is right at once.
	Assignments []Assignment
}

// Invitation is the outcome of a teacher's enrolment of an email that
// belongs to an account outside the teacher's classes: nothing is shared
// with the teacher until that learner joins with the class's code, which
// learner.invited emails them. An operator's email gets the same outcome
// and nothing is sent, so operators' addresses cannot be probed (a
// teacher's is refused, ErrEmailOfTeacher).
type Invitation struct {
	ClassID uuid.UUID
	Email   string
	Status  string // "invited"
}

// Outcome is what Enroll did: exactly one of Enrollment and Invitation is set.
type Outcome struct {
	Enrollment *Enrollment
	Invitation *Invitation
}

// Enroll adds a learner to a class in tx: a teacher's learner by email
// (creating the learner's account when there is none), or the acting
// learner by join code. A req.Newcomer joining by code gets their learner
// account first (AddAccount, Role set to learner; actor is then ignored),
// once the code is known to be a class's: an unknown code creates nothing.
// It records the membership, assigns the class's
// active decks (those assigned through this class, not the teacher's
// others, and not yet due, each with its latest due date) with their cards, starts the
// learner's daily reminder chain (if not yet), and answers the events
// learner.enrolled and each assignment's (see Assign). When the email
// belongs to an account the teacher may not simply add, the outcome is an
// Invitation instead (see Invitation), with learner.invited at most once per
// InvitationInterval. An assignment to the class in progress is waited for
// (the class's row), so a learner joining meanwhile gets its deck from one
// or the other; so is an edit of a teacher's own deck the class has (the
// deck's row, store.LockDeckForCards), so the learner gets each of its
// entries' cards once, from the edit or from the enrolment. Errors: ErrClassNotFound (also for an actor of
// another role), ErrTeacherCannotJoin (a join code given by a teacher),
// ErrClassArchived (a teacher's enrolment into an archived class; its join
// code finds no class: ErrClassNotFound), ErrEmailOfTeacher (a teacher's
// email), ErrEmailLookalike (a new
// account's email that looks like another's, see refuseLookalike),
// ErrAlreadyEnrolled,
// ErrAccountExists (a newcomer's, see AddAccount).
//
// Two enrolments of the same new email at once: the second waits on the
// first's user row (store.FindOrCreateUser), then finds the account and
// either invites (another teacher) or answers ErrAlreadyEnrolled.
func (c Classroom) Enroll(ctx context.Context, tx pgx.Tx, actor Actor, req EnrolRequest) (Outcome, events.Batch, error) {
	if n := req.Newcomer; n != nil {
		actor = Actor{ID: n.ID, Role: account.Learner}
	}
	class, err := findClass(ctx, store.On(tx), actor, req)
	if err != nil {
		return Outcome{}, events.Batch{}, err
	}
	// Before any learner's row: Assign locks the class, then its learners.
	if err := store.On(tx).LockClassForEnrolment(ctx, class.id); err != nil {
		return Outcome{}, events.Batch{}, fmt.Errorf("lock class: %w", err)
	}
	if req.Newcomer != nil { // findClass found the class by its code
		learner := *req.Newcomer
		learner.Role = account.Learner
		if err := c.AddAccount(ctx, tx, learner); err != nil {
			return Outcome{}, events.Batch{}, err
		}
	}
	learnerID, by := actor.ID, "join_code"
	if req.JoinCode == "" {
		by = "teacher"
		var invite bool
		if learnerID, invite, err = learnerByEmail(ctx, store.On(tx), class.teacherID, req); err != nil {
			return Outcome{}, events.Batch{}, err
		}
		if invite {
			inv, batch, err := c.invite(ctx, tx, class.teacherID, class.id, learnerID, req.Email)
			return Outcome{Invitation: &inv}, batch, err
		}
	}
	e, batch, err := c.addMember(ctx, tx, Enrollment{ClassID: class.id, ClassName: class.name, LearnerID: learnerID}, class.teacherID, by)
	return Outcome{Enrollment: &e}, batch, err
}

// enrolClass is the class an enrolment names: its id, name and teacher.
type enrolClass struct {
	id, teacherID uuid.UUID
	name          string
}

// findClass is the class req names: by join code for a learner (an
// archived class's code finds none), by id among the actor's classes for a
// teacher (ErrClassArchived for an archived one).
func findClass(ctx context.Context, classes *store.Queries, actor Actor, req EnrolRequest) (c enrolClass, err error) {
	switch {
	case req.JoinCode != "" && actor.Role == account.Learner:
		var row store.ClassByJoinCodeRow
		row, err = classes.ClassByJoinCode(ctx, strings.ToUpper(req.JoinCode))
		c = enrolClass{id: row.ID, teacherID: row.TeacherID, name: row.Name}
	case req.JoinCode != "" && actor.Role == account.Teacher:
		return enrolClass{}, ErrTeacherCannotJoin // before the code is looked up: no probing
	case req.JoinCode == "" && actor.Role == account.Teacher:
		c = enrolClass{id: req.ClassID, teacherID: actor.ID}
		var row store.TeachersClassNameRow
		row, err = classes.TeachersClassName(ctx, req.ClassID, actor.ID)
		c.name = row.Name
		if err == nil && row.ArchivedAt != nil {
			return enrolClass{}, ErrClassArchived
		}
	default:
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		return enrolClass{}, ErrClassNotFound
	}
	if err != nil {
		return enrolClass{}, fmt.Errorf("load class: %w", err)
	}
	return c, nil
}

// addMember adds out.LearnerID to out.ClassID, assigns them the class's
// active decks (store.ActiveDecks) with their cards, starts their
// daily reminder, and answers learner.enrolled, then the assignments'
// events; ErrAlreadyEnrolled when the learner is already in the class.
func (c Classroom) addMember(ctx context.Context, tx pgx.Tx, out Enrollment, teacherID uuid.UUID, by string) (Enrollment, events.Batch, error) {
	users := store.On(tx)
	// Serialise with the learner's other writes (see Assign).
	if err := users.LockUser(ctx, out.LearnerID); err != nil {
		return Enrollment{}, events.Batch{}, fmt.Errorf("lock learner: %w", err)
	}
	err := store.Classify(store.On(tx).AddClassMember(ctx, out.ClassID, out.LearnerID))
	if errors.Is(err, store.ErrDuplicate) {
		return Enrollment{}, events.Batch{}, ErrAlreadyEnrolled
	}
	if err != nil {
		return Enrollment{}, events.Batch{}, fmt.Errorf("enrol: %w", err)
	}
	decks, err := store.On(tx).ActiveDecks(ctx, out.ClassID, c.clock.Now(), out.LearnerID)
	if err != nil {
		return Enrollment{}, events.Batch{}, fmt.Errorf("find active decks: %w", err)
	}
	out.Assignments = []Assignment{}
	assigned := events.NewBatch(out.LearnerID.String())
	enrolled := events.LearnerEnrolledPayload{ClassLearner: events.ClassLearner{ClassID: out.ClassID,
		LearnerID: out.LearnerID, TeacherID: teacherID}, Assignments: []uuid.UUID{}, By: by}
	for _, d := range decks {
		// As Assign does: an edit of the deck in progress finishes first.
		if err := store.On(tx).LockDeckForCards(ctx, d.DeckID); err != nil {
			return Enrollment{}, events.Batch{}, fmt.Errorf("lock deck: %w", err)
		}
		a, err := c.assign(ctx, tx, teacherID, AssignRequest{ClassID: out.ClassID, LearnerID: out.LearnerID, DeckID: d.DeckID, DueAt: d.DueAt}, &assigned)
		if err != nil {
			return Enrollment{}, events.Batch{}, err
		}
		out.Assignments = append(out.Assignments, a)
		enrolled.Assignments = append(enrolled.Assignments, a.ID)
	}
	tz, err := users.Timezone(ctx, out.LearnerID)
	if err != nil {
		return Enrollment{}, events.Batch{}, fmt.Errorf("load learner: %w", err)
	}
	if err := reminders.Start(ctx, tx, c.outbox, out.LearnerID, tz, c.clock.Now()); err != nil {
		return Enrollment{}, events.Batch{}, err
	}
	batch := events.NewBatch(out.LearnerID.String())
	batch.Add(enrolled)
	batch.Join(assigned)
	return out, batch, nil
}

// learnerByEmail finds the learner with req.Email, creating the account when
// there is none (then with req.DisplayName, or the email's local part, and
// req.Timezone, or UTC). invite is true when the email belongs to an
// account the teacher may not simply add: a learner outside all of the
// teacher's classes (then id is theirs), or an operator (id is uuid.Nil:
// answered as a learner's invitation, so operators' addresses cannot be
// probed). A teacher's email is ErrEmailOfTeacher: teachers sign up
// themselves, so telling a teacher that an address is a teacher's reveals
// little, and a silent "invited" would mislead them. A new address that
// looks like another account's is ErrEmailLookalike (refuseLookalike).
func learnerByEmail(ctx context.Context, users *store.Queries, teacherID uuid.UUID, req EnrolRequest) (id uuid.UUID, invite bool, err error) {
	name := text.Name(req.DisplayName)
	if name == "" {
		name, _, _ = strings.Cut(req.Email, "@")
	}
	if err := refuseLookalike(ctx, users, req.Email); err != nil {
		return uuid.Nil, false, err
	}
	u, err := users.FindOrCreateUser(ctx, req.Email, name, account.Learner, cmp.Or(req.Timezone, "UTC"))
	switch {
	case err != nil:
		return uuid.Nil, false, fmt.Errorf("find or create learner: %w", err)
	case u.Role == account.Teacher:
		return uuid.Nil, false, ErrEmailOfTeacher
	case u.Role != account.Learner:
		return uuid.Nil, true, nil
	case u.Created:
		return u.ID, false, nil
	}
	// A statement of its own, so that it sees what a concurrent enrolment of
	// the same email, which this one waited for on the user's row, committed.
	known, err := users.IsTaughtBy(ctx, u.ID, teacherID)
	if err != nil {
		return uuid.Nil, false, fmt.Errorf("find learner's classes: %w", err)
	}
	return u.ID, !known, nil
}

// invite is the Invitation of email to the class, with learner.invited when
// learnerID is a learner's (see learnerByEmail) who was not invited to it
// within InvitationInterval (recorded at the clock's NowOrNil).
func (c Classroom) invite(ctx context.Context, tx pgx.Tx, teacherID, classID, learnerID uuid.UUID, email string) (Invitation, events.Batch, error) {
	inv := Invitation{ClassID: classID, Email: email, Status: "invited"}
	if learnerID == uuid.Nil {
		return inv, events.Batch{}, nil
	}
	_, err := store.On(tx).InviteToClass(ctx, classID, learnerID, c.clock.NowOrNil(), InvitationInterval.Seconds())
	if errors.Is(err, store.ErrNotFound) {
		return inv, events.Batch{}, nil // invited lately: no second email
	}
	if err != nil {
		return Invitation{}, events.Batch{}, fmt.Errorf("record invitation: %w", err)
	}
	batch := events.NewBatch(learnerID.String())
	batch.Add(events.LearnerInvitedPayload{ClassLearner: events.ClassLearner{ClassID: classID, LearnerID: learnerID, TeacherID: teacherID}})
	return inv, batch, nil
}
