// Package seed loads Lexora's starting data: the WordNet word list shipped in
// data/words.tsv (see data/README.md for its source and licence) as lexemes,
// split by frequency into library decks of DeckSize words, and two classes:
// the demo class of one teacher and three learners, and a second teacher's
// class sharing one of those learners (who is named otherwise there), all
// with fixed ids (each learner with a daily reminder), an operator, and a
// webhook endpoint of the second teacher whose receiver fails
// (FailingEndpoint). AddTeacher creates a further teacher.
//
// Loading is idempotent: running it again adds nothing and changes nothing.
package seed

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/reminders"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

//go:embed data/words.tsv
var wordsTSV []byte

// DeckSize is the number of words in each library deck.
const DeckSize = 25

// WordsPerLevel is the number of words of the frequency order in each deck
// level: level 1 holds the 200 most frequent words.
const WordsPerLevel = 200

// Fixed ids of the demo users and their class, so that examples and the demo
// can name them.
var (
	TeacherID = uuid.MustParse("00000000-0000-4000-8000-00000000000a")
	ClassID   = uuid.MustParse("00000000-0000-4000-8000-0000000000c1")
	// JoinCode lets a learner join the demo class with EnrollLearner.
	JoinCode = "DEMO2026"
	Learners = []User{
		{ID: uuid.MustParse("00000000-0000-4000-8000-000000000001"), Email: "mia@lexora.test", Name: "Mia Laurent", Timezone: "Europe/Paris"},
		{ID: uuid.MustParse("00000000-0000-4000-8000-000000000002"), Email: "noah@lexora.test", Name: "Noah Brooks", Timezone: "America/New_York"},
		{ID: uuid.MustParse("00000000-0000-4000-8000-000000000003"), Email: "yui@lexora.test", Name: "Yui Tanaka", Timezone: "Asia/Tokyo"},
	}
	Teacher = User{ID: TeacherID, Email: "ada@lexora.test", Name: "Ada Okafor", Timezone: "Europe/London"}
	// DemoNewCardsPerDay is the demo class's daily limit of new cards, below
	// the default and the assigned deck's size, so that a newcomer who joins
	// sees the limit at work (10 of the deck's cards served today).
	DemoNewCardsPerDay = 10
	// SecondTeacher teaches SecondClass, which shares the learner Noah with
	// the demo class: each teacher sees only their own assignments of him.
	SecondTeacher = User{ID: uuid.MustParse("00000000-0000-4000-8000-00000000000b"), Email: "ben@lexora.test", Name: "Ben Adeyemi", Timezone: "Africa/Lagos"}
	SecondClassID = uuid.MustParse("00000000-0000-4000-8000-0000000000c2")
	// Classes are the seeded classes and their learners.
	Classes = []Class{
		{ID: ClassID, TeacherID: TeacherID, Name: "Demo class", JoinCode: JoinCode, Learners: Learners, NewCardsPerDay: &DemoNewCardsPerDay},
		{ID: SecondClassID, TeacherID: SecondTeacher.ID, Name: "Evening class", JoinCode: "EVENING26", Learners: Learners[1:2]},
	}
	// Operator may call the operator functions (outbox health, dead letters).
	Operator = User{ID: uuid.MustParse("00000000-0000-4000-8000-0000000000f0"), Email: "ops@lexora.test", Name: "Ops On-Call", Timezone: "UTC"}
)

// User is a seeded user.
type User struct {
	ID       uuid.UUID
	Email    string
	Name     string
	Timezone string
}

// Class is a seeded class.
type Class struct {
	ID, TeacherID  uuid.UUID
	Name, JoinCode string
	Learners       []User
	// NewCardsPerDay is the class's daily limit of new cards; nil for the
	// default (learning.DefaultNewCardsPerDay).
	NewCardsPerDay *int
}

// Word is one row of data/words.tsv.
type Word struct {
	Lemma, PartOfSpeech, Definition, Example string
}

// Words parses the embedded word list, most frequent first. It returns an
// error for a row without five tab-separated fields.
func Words() ([]Word, error) {
	var out []Word
	sc := bufio.NewScanner(bytes.NewReader(wordsTSV))
	for line := 0; sc.Scan(); line++ {
		if line == 0 {
			continue // header
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 5 {
			return nil, fmt.Errorf("words.tsv line %d: want 5 fields, got %d", line+1, len(f))
		}
		out = append(out, Word{Lemma: f[0], PartOfSpeech: f[1], Definition: f[2], Example: f[3]})
	}
	return out, sc.Err()
}

// Report counts what Load inserted.
type Report struct {
	Lexemes, Decks, Users int64
}

// Load inserts the word list, the library decks and the demo class into the
// database behind pool, in one transaction, and starts each demo learner's
// daily reminder chain after c's current instant. It returns what it
// inserted, or an error, having changed nothing.
func Load(ctx context.Context, pool *pgxpool.Pool, c clock.Clock) (Report, error) {
	words, err := Words()
	if err != nil {
		return Report{}, err
	}
	cols := make([][]string, 4)
	for _, w := range words {
		cols[0] = append(cols[0], w.Lemma)
		cols[1] = append(cols[1], w.PartOfSpeech)
		cols[2] = append(cols[2], w.Definition)
		cols[3] = append(cols[3], w.Example)
	}
	var rep Report
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		q := store.On(tx)
		if rep.Lexemes, err = q.InsertLexemes(ctx, cols[0], cols[1], cols[2], cols[3]); err != nil {
			return fmt.Errorf("insert lexemes: %w", err)
		}
		before, err := q.CountDecks(ctx)
		if err != nil {
			return err
		}
		if err := q.InsertLibraryDecks(ctx, DeckSize, cols[0], cols[1], WordsPerLevel); err != nil {
			return fmt.Errorf("insert decks: %w", err)
		}
		after, err := q.CountDecks(ctx)
		if err != nil {
			return err
		}
		rep.Decks = after - before
		rep.Users, err = insertDemo(ctx, q, tx, c)
		return err
	})
	if err != nil {
		return Report{}, err
	}
	return rep, nil
}

// NewTeacher is what AddTeacher created.
type NewTeacher struct {
	TeacherID, ClassID uuid.UUID
	Email, JoinCode    string
}

// insertDemo inserts the demo users and classes and starts each demo
// learner's reminder chain after c's current instant; it returns how many
// users it inserted.
func insertDemo(ctx context.Context, q *store.Queries, tx pgx.Tx, c clock.Clock) (users int64, err error) {
	for _, u := range append([]User{Teacher, SecondTeacher, Operator}, Learners...) {
		role := account.Learner
		switch u.ID {
		case TeacherID, SecondTeacher.ID:
			role = account.Teacher
		case Operator.ID:
			role = account.Operator
		}
		// The development issuer's tokens name seeded users by id.
		n, err := q.InsertSeedUser(ctx, store.InsertSeedUserParams{
			ID: u.ID, Email: u.Email, DisplayName: u.Name, Role: role, Timezone: u.Timezone})
		if err != nil {
			return 0, fmt.Errorf("insert user %s: %w", u.Email, err)
		}
		users += n
	}
	for _, cl := range Classes {
		var perDay *int32
		if cl.NewCardsPerDay != nil {
			perDay = new(int32(*cl.NewCardsPerDay))
		}
		if err := q.InsertSeedClass(ctx, store.InsertSeedClassParams{ClassID: cl.ID, TeacherID: cl.TeacherID, Name: cl.Name,
			JoinCode: cl.JoinCode, NewCardsPerDay: perDay}); err != nil {
			return 0, fmt.Errorf("insert class: %w", err)
		}
		for _, l := range cl.Learners {
			if err := q.InsertSeedClassMember(ctx, cl.ID, l.ID); err != nil {
				return 0, fmt.Errorf("insert class member: %w", err)
			}
		}
	}
	for _, l := range Learners {
		if err := reminders.Start(ctx, tx, events.NewOutbox(), l.ID, l.Timezone, c.Now()); err != nil {
			return 0, err
		}
	}
	if err := q.SeedMemberName(ctx, EveningName, SecondClassID, Learners[1].ID); err != nil {
		return 0, fmt.Errorf("name %s in the evening class: %w", Learners[1].Name, err)
	}
	if err := insertFailingEndpoint(ctx, q, c.Now()); err != nil {
		return 0, err
	}
	return users, nil
}

// EveningName is the name Ben's evening class gives Noah (SetLearnerName):
// his account stays "Noah Brooks", as Ada's class shows him.
const EveningName = "Noah B. (Tuesdays)"

// FailingEndpoint is Ben's webhook endpoint whose receiver answered 404 to
// its last three deliveries after accepting one: its health (the Webhooks
// screen, ListWebhookEndpoints) is failing, with the action to take. It
// subscribes only to learner.removed, which no demo path enqueues for Ben's
// class, so the drain never posts to its host, which does not exist.
var FailingEndpoint = struct {
	ID  uuid.UUID
	URL string
}{uuid.MustParse("00000000-0000-4000-8000-0000000000e1"), "https://hooks.evening-school.example/lexora"}

// insertFailingEndpoint registers FailingEndpoint with its answers: a 200
// two days before now, then three 404s in the last three hours.
func insertFailingEndpoint(ctx context.Context, q *store.Queries, now time.Time) error {
	if err := q.InsertSeedEndpoint(ctx, store.InsertSeedEndpointParams{ID: FailingEndpoint.ID, TeacherID: SecondTeacher.ID,
		Url: FailingEndpoint.URL, Secret: webhooks.NewSecret(), Topics: []string{events.LearnerRemoved}}); err != nil {
		return fmt.Errorf("insert webhook endpoint: %w", err)
	}
	err := q.InsertSeedAttempts(ctx, store.InsertSeedAttemptsParams{EndpointID: FailingEndpoint.ID,
		EventIds: []uuid.UUID{uuid.MustParse("00000000-0000-4000-8000-0000000e1001"), uuid.MustParse("00000000-0000-4000-8000-0000000e1002"),
			uuid.MustParse("00000000-0000-4000-8000-0000000e1003"), uuid.MustParse("00000000-0000-4000-8000-0000000e1004")},
		Statuses: []int32{200, 404, 404, 404},
		Accepted: []bool{true, false, false, false},
		Ats:      []time.Time{now.Add(-48 * time.Hour), now.Add(-3 * time.Hour), now.Add(-2 * time.Hour), now.Add(-time.Hour)}})
	if err != nil {
		return fmt.Errorf("insert webhook attempts: %w", err)
	}
	return nil
}

// ErrTeacherExists is returned by AddTeacher for an email that has an
// account already.
var ErrTeacherExists = errors.New("seed: this email has an account already")

// AddTeacher creates a teacher account for email (stored in its canonical
// form, text.CanonicalEmail) with name and timezone (IANA), and a class
// named className with a random join code, in one transaction. The teacher
// has no token subject yet: their first sign-in with a verified token for
// the email links it. It returns ErrTeacherExists for a known email and an

// error for an invalid email, name or timezone, having changed nothing.
func AddTeacher(ctx context.Context, pool *pgxpool.Pool, email, name, timezone, className string) (NewTeacher, error) {
	canonical, err := text.CanonicalEmail(email)
	if err != nil {
		return NewTeacher{}, fmt.Errorf("seed: email %q: %w", email, err)
	}
	if !text.SingleLine(name) || !text.SingleLine(className) {
		return NewTeacher{}, errors.New("seed: the name and the class name must be one line")
	}
	name, className = text.Name(name), text.Name(className)
	if name == "" || className == "" {
		return NewTeacher{}, errors.New("seed: the name and the class name must not be empty")
	}
	if _, err := time.LoadLocation(timezone); err != nil || timezone == "" {
		return NewTeacher{}, fmt.Errorf("seed: timezone %q is not an IANA time zone", timezone)
	}
	t := NewTeacher{Email: canonical, JoinCode: strings.ToUpper(rand.Text()[:8])}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		q := store.On(tx)
		u, err := q.FindOrCreateUser(ctx, canonical, name, account.Teacher, timezone)
		if err != nil {
			return fmt.Errorf("insert teacher: %w", err)
		}
		if !u.Created {
			return ErrTeacherExists
		}
		t.TeacherID = u.ID
		cl, err := q.CreateClass(ctx, t.TeacherID, className, t.JoinCode, nil)
		if err != nil {
			return fmt.Errorf("insert class: %w", err)
		}
		t.ClassID = cl.ID
		return nil
	})
	if err != nil {
		return NewTeacher{}, err
	}
	return t, nil
}
