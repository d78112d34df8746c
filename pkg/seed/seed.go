// Package seed loads Lexora's starting data: the WordNet word list shipped in
// data/words.tsv (see data/README.md for its source and licence) as lexemes,
// split by frequency into library decks of DeckSize words, and two classes:
// the demo class of one teacher and three learners, and a second teacher's
// class sharing one of those learners, all with fixed ids (each learner with
// a daily reminder), and an operator. AddTeacher creates a further teacher.
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

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/reminders"
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
	// SecondTeacher teaches SecondClass, which shares the learner Noah with
	// the demo class: each teacher sees only their own assignments of him.
	SecondTeacher = User{ID: uuid.MustParse("00000000-0000-4000-8000-00000000000b"), Email: "ben@lexora.test", Name: "Ben Adeyemi", Timezone: "Africa/Lagos"}
	SecondClassID = uuid.MustParse("00000000-0000-4000-8000-0000000000c2")
	// Classes are the seeded classes and their learners.
	Classes = []Class{
		{ID: ClassID, TeacherID: TeacherID, Name: "Demo class", JoinCode: JoinCode, Learners: Learners},
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

const insertLexemesSQL = `
INSERT INTO lexemes (lemma, part_of_speech, definition, example, source)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS w, (VALUES ('wordnet-3.0')) AS s
ON CONFLICT (lemma, part_of_speech) DO NOTHING`

// Each deck takes DeckSize consecutive words of the frequency order; its
// level is the band of WordsPerLevel words its last word falls in (1 to 5,
// see schema/00018_deck_level.sql).
const insertDecksSQL = `
WITH words AS (
    SELECT w.ord, l.id AS lexeme_id, ((w.ord - 1) / $3) + 1 AS deck_no
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS w (lemma, pos, ord)
    JOIN lexemes l ON l.lemma = w.lemma AND l.part_of_speech = w.pos),
decks_in AS (
    INSERT INTO decks (title, description, level)
    SELECT format('Core English %s', lpad(deck_no::text, 2, '0')),
           format('Words %s to %s of the WordNet 3.0 frequency list', min(ord), max(ord)),
           least(5, (max(ord) - 1) / $4 + 1)
    FROM words GROUP BY deck_no
    ON CONFLICT (title) DO NOTHING
    RETURNING id, title)
INSERT INTO deck_items (deck_id, lexeme_id, position)
SELECT d.id, w.lexeme_id, w.ord - (w.deck_no - 1) * $3
FROM words w JOIN decks_in d ON d.title = format('Core English %s', lpad(w.deck_no::text, 2, '0'))`

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
		tag, err := tx.Exec(ctx, insertLexemesSQL, cols[0], cols[1], cols[2], cols[3])
		if err != nil {
			return fmt.Errorf("insert lexemes: %w", err)
		}
		rep.Lexemes = tag.RowsAffected()
		before := 0
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM decks").Scan(&before); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, insertDecksSQL, cols[0], cols[1], DeckSize, WordsPerLevel); err != nil {
			return fmt.Errorf("insert decks: %w", err)
		}
		if err := tx.QueryRow(ctx, "SELECT count(*) - $1 FROM decks", before).Scan(&rep.Decks); err != nil {
			return err
		}
		rep.Users, err = insertDemo(ctx, tx, c)
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
func insertDemo(ctx context.Context, tx pgx.Tx, c clock.Clock) (users int64, err error) {
	for _, u := range append([]User{Teacher, SecondTeacher, Operator}, Learners...) {
		role := "learner"
		switch u.ID {
		case TeacherID, SecondTeacher.ID:
			role = "teacher"
		case Operator.ID:
			role = "operator"
		}
		// The development issuer's tokens name seeded users by id.
		tag, err := tx.Exec(ctx, `INSERT INTO users (id, email, display_name, role, timezone, auth_subject)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, u.ID, u.Email, u.Name, role, u.Timezone, u.ID.String())
		if err != nil {
			return 0, fmt.Errorf("insert user %s: %w", u.Email, err)
		}
		users += tag.RowsAffected()
	}
	for _, cl := range Classes {
		if _, err := tx.Exec(ctx, `INSERT INTO classes (id, teacher_id, name, join_code) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, cl.ID, cl.TeacherID, cl.Name, cl.JoinCode); err != nil {
			return 0, fmt.Errorf("insert class: %w", err)
		}
		for _, l := range cl.Learners {
			if _, err := tx.Exec(ctx, `INSERT INTO class_members (class_id, learner_id) VALUES ($1, $2)
				ON CONFLICT DO NOTHING`, cl.ID, l.ID); err != nil {
				return 0, fmt.Errorf("insert class member: %w", err)
			}
		}
	}
	for _, l := range Learners {
		if err := reminders.Start(ctx, tx, events.NewOutbox(), l.ID, l.Timezone, c.Now()); err != nil {
			return 0, err
		}
	}
	return users, nil
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
		err := tx.QueryRow(ctx, `INSERT INTO users (email, display_name, role, timezone) VALUES ($1, $2, 'teacher', $3)
			ON CONFLICT (email) DO NOTHING RETURNING id`, canonical, name, timezone).Scan(&t.TeacherID)
		if errors.Is(err, pgx.ErrNoRows) {
			return ErrTeacherExists
		}
		if err != nil {
			return fmt.Errorf("insert teacher: %w", err)
		}
		return tx.QueryRow(ctx, `INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, $2, $3) RETURNING id`,
			t.TeacherID, className, t.JoinCode).Scan(&t.ClassID)
	})
	if err != nil {
		return NewTeacher{}, err
	}
	return t, nil
}
