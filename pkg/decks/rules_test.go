package decks

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/deckimport"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/study"
)

// TestADeckIsItsTeachersOnly: another teacher gets ErrDeckNotFound for a
// teacher's deck, whatever they do with it; the library is read-only for
// everyone; a copy's edits never reach its source.
func TestADeckIsItsTeachersOnly(t *testing.T) {
	ctx, b := setup(t)
	d, err := b.create(t, b.teacher, "Unit 3", EntryInput{Term: "gato", Meaning: "cat"})
	require.NoError(t, err)
	_, entries, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	gato := entries[0]
	before := b.snapshot(t)
	other := b.otherTeacher
	_, _, err = Get(ctx, b.pool, other, d.ID)
	require.ErrorIs(t, err, ErrDeckNotFound, "read (and export)")
	_, err = b.edit(other, d.ID, EntriesEdit{Add: words(1)})
	require.ErrorIs(t, err, ErrDeckNotFound, "edit")
	_, err = b.edit(other, d.ID, EntriesEdit{Change: []EntryChange{{ID: gato.ID, Version: 1, EntryInput: EntryInput{Term: "gato", Meaning: "dog"}}}})
	require.ErrorIs(t, err, ErrDeckNotFound, "edit an entry")
	_, err = enqueued(b, func(ctx context.Context, tx pgx.Tx) (Deck, events.Batch, error) {
		return b.decks.Copy(ctx, tx, other, CopyRequest{SourceID: d.ID})
	})
	require.ErrorIs(t, err, ErrDeckNotFound, "copy")
	_, err = b.assign(other, b.otherClass, d.ID)
	require.ErrorIs(t, err, classroom.ErrDeckNotFound, "assign")
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := b.decks.UpdateInfo(ctx, tx, other, d.ID, 1, DeckInfo{Title: "Mine", TermLanguage: "es", MeaningLanguage: "en"})
		return err
	})
	require.ErrorIs(t, err, ErrDeckNotFound, "rename")
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := b.decks.Reorder(ctx, tx, other, d.ID, 1, []uuid.UUID{gato.ID})
		return err
	})
	require.ErrorIs(t, err, ErrDeckNotFound, "reorder")
	_, err = b.decks.Archive(ctx, b.pool, other, d.ID, true)
	require.ErrorIs(t, err, ErrDeckNotFound, "archive")
	err = pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.decks.Delete(ctx, tx, other, d.ID) })
	require.ErrorIs(t, err, ErrDeckNotFound, "delete")
	list, err := List(ctx, b.pool, other, true)
	require.NoError(t, err)
	require.Empty(t, list)
	require.Equal(t, before, b.snapshot(t))

	// The library: readable, not writable, by the teacher too.
	lib, libEntries, err := Get(ctx, b.pool, other, b.library)
	require.NoError(t, err)
	require.True(t, lib.Library)
	require.Equal(t, "en", lib.TermLanguage)
	require.Len(t, libEntries, 2)
	_, err = b.edit(b.teacher, b.library, EntriesEdit{Change: []EntryChange{{ID: libEntries[0].ID, Version: 1,
		EntryInput: EntryInput{Term: "bank", Meaning: "where money is kept"}}}})
	require.ErrorIs(t, err, ErrDeckNotFound)
	_, err = b.edit(b.teacher, b.library, EntriesEdit{Add: words(1)})
	require.ErrorIs(t, err, ErrDeckNotFound)
	_, err = b.decks.Archive(ctx, b.pool, b.teacher, b.library, true)
	require.ErrorIs(t, err, ErrDeckNotFound)
	require.Equal(t, before, b.snapshot(t))

	// A copy of the library is the teacher's own: its meaning is theirs.
	cp, err := enqueued(b, func(ctx context.Context, tx pgx.Tx) (Deck, events.Batch, error) {
		return b.decks.Copy(ctx, tx, b.teacher, CopyRequest{SourceID: b.library})
	})
	require.NoError(t, err)
	require.Equal(t, "Core English 01 (copy)", cp.Title)
	require.Equal(t, &b.library, cp.CopiedFrom)
	_, cpEntries, err := Get(ctx, b.pool, b.teacher, cp.ID)
	require.NoError(t, err)
	require.Equal(t, libEntries[0].EntryInput, cpEntries[0].EntryInput, "the library's text, part of speech and example")
	require.NotEqual(t, libEntries[0].ID, cpEntries[0].ID, "in entries of the copy's own")
	_, err = b.edit(b.teacher, cp.ID, EntriesEdit{Change: []EntryChange{{ID: cpEntries[0].ID, Version: 1,
		EntryInput: EntryInput{Term: "bank", Meaning: "where money is kept", PartOfSpeech: "noun"}}}})
	require.NoError(t, err)
	_, libAfter, err := Get(ctx, b.pool, b.teacher, b.library)
	require.NoError(t, err)
	require.Equal(t, libEntries, libAfter, "the library is unchanged")
	created := payload[events.DeckCreatedPayload](t, b, cp.ID, events.DeckCreated)
	require.Equal(t, 2, created.Entries)
	require.Equal(t, &b.library, created.CopiedFrom)
	// A copy of one's own deck, titled: another teacher's deck of that
	// title is no obstacle.
	_, err = b.create(t, other, "Unit 3 again")
	require.NoError(t, err)
	cp2, err := enqueued(b, func(ctx context.Context, tx pgx.Tx) (Deck, events.Batch, error) {
		return b.decks.Copy(ctx, tx, b.teacher, CopyRequest{SourceID: d.ID, Title: "Unit 3 again"})
	})
	require.NoError(t, err)
	require.Equal(t, "es", cp2.TermLanguage)
	require.Equal(t, 1, cp2.Entries)
}

// TestTheSameWordInTwoDecks: a learner has "bank" in a library deck they
// started, in one teacher's deck and in another's: three entries, three
// cards, each with its own meaning and schedule.
func TestTheSameWordInTwoDecks(t *testing.T) {
	ctx, b := setup(t)
	learner := b.learners[0]
	require.NoError(t, pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
		_, err := b.study.StartDeck(ctx, tx, study.Learner{ID: learner, Timezone: "UTC"}, b.library)
		return err
	}))
	mine, err := b.create(t, b.teacher, "Banks", EntryInput{Term: "bank", Meaning: "banco (dinero)"})
	require.NoError(t, err)
	theirs, err := b.create(t, b.otherTeacher, "Rivers", EntryInput{Term: "Bank", Meaning: "orilla"})
	require.NoError(t, err)
	_, err = b.assign(b.teacher, b.class, mine.ID)
	require.NoError(t, err)
	_, err = enqueued(b, func(ctx context.Context, tx pgx.Tx) (classroom.Outcome, events.Batch, error) {
		return b.classroom.Enroll(ctx, tx, classroom.Actor{ID: learner, Role: account.Learner}, classroom.EnrolRequest{JoinCode: "JOIN2"})
	})
	require.NoError(t, err)
	_, err = b.assign(b.otherTeacher, b.otherClass, theirs.ID)
	require.NoError(t, err)
	rows, err := b.pool.Query(ctx, `SELECT l.definition FROM cards c JOIN lexemes l ON l.id = c.lexeme_id
		WHERE c.learner_id = $1 AND lower(l.lemma) = 'bank' ORDER BY 1`, learner)
	require.NoError(t, err)
	meanings, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"banco (dinero)", "orilla", "sloping land beside a river"}, meanings)
	// One teacher's edit changes their card only.
	_, entries, err := Get(ctx, b.pool, b.teacher, mine.ID)
	require.NoError(t, err)
	_, err = b.edit(b.teacher, mine.ID, EntriesEdit{Change: []EntryChange{{ID: entries[0].ID, Version: 1, EntryInput: EntryInput{Term: "bank", Meaning: "banco"}}}})
	require.NoError(t, err)
	rows, err = b.pool.Query(ctx, `SELECT l.definition FROM cards c JOIN lexemes l ON l.id = c.lexeme_id
		WHERE c.learner_id = $1 AND lower(l.lemma) = 'bank' ORDER BY 1`, learner)
	require.NoError(t, err)
	meanings, err = pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"banco", "orilla", "sloping land beside a river"}, meanings)
}

// TestAnAssignedDeckDoesNotVanish: a deck never assigned can be deleted
// (with its entries); an assigned one cannot, and is archived instead: out
// of the teacher's lists and not assignable, while its learners keep their
// cards and a newcomer to the class still gets it.
func TestAnAssignedDeckDoesNotVanish(t *testing.T) {
	ctx, b := setup(t)
	del := func(deck uuid.UUID) error {
		return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error { return b.decks.Delete(ctx, tx, b.teacher, deck) })
	}
	draft, err := b.create(t, b.teacher, "Draft", words(3)...)
	require.NoError(t, err)
	require.NoError(t, del(draft.ID))
	require.Zero(t, count(t, b, `SELECT count(*) FROM decks WHERE id = $1`, draft.ID))
	require.Zero(t, count(t, b, `SELECT count(*) FROM lexemes WHERE deck_id = $1`, draft.ID))

	d, err := b.create(t, b.teacher, "Unit 3", words(3)...)
	require.NoError(t, err)
	_, err = b.assign(b.teacher, b.class, d.ID)
	require.NoError(t, err)
	before := b.snapshot(t)
	require.ErrorIs(t, del(d.ID), ErrDeckInUse)
	require.Equal(t, before, b.snapshot(t))

	at, err := b.decks.Archive(ctx, b.pool, b.teacher, d.ID, true)
	require.NoError(t, err)
	require.Equal(t, b.clock.Now(), at.UTC())
	list, err := List(ctx, b.pool, b.teacher, false)
	require.NoError(t, err)
	require.Empty(t, list, "out of the teacher's list")
	list, err = List(ctx, b.pool, b.teacher, true)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.True(t, list[0].Assigned)
	require.NotNil(t, list[0].ArchivedAt)
	assignable, err := classroom.ListDecks(ctx, b.pool, b.teacher, account.Teacher)
	require.NoError(t, err)
	for _, a := range assignable {
		require.NotEqual(t, d.ID, a.ID, "out of the assign list")
	}
	_, err = b.assign(b.teacher, b.otherClassOf(t), d.ID)
	require.ErrorIs(t, err, classroom.ErrDeckArchived)
	for _, l := range b.learners {
		require.Len(t, b.due(t, l), 3, "learners keep their cards")
	}
	newcomer := b.otherLearner
	_, err = enqueued(b, func(ctx context.Context, tx pgx.Tx) (classroom.Outcome, events.Batch, error) {
		return b.classroom.Enroll(ctx, tx, classroom.Actor{ID: newcomer, Role: account.Learner}, classroom.EnrolRequest{JoinCode: "JOIN1"})
	})
	require.NoError(t, err)
	require.Len(t, b.due(t, newcomer), 3, "the class keeps the deck until its due date")
	// Out of the archive, it can be assigned again.
	at, err = b.decks.Archive(ctx, b.pool, b.teacher, d.ID, false)
	require.NoError(t, err)
	require.Nil(t, at)
	_, err = b.assign(b.teacher, b.otherClassOf(t), d.ID)
	require.NoError(t, err)
}

// otherClassOf is a new class of the teacher with no learner.
func (b bundle) otherClassOf(t *testing.T) uuid.UUID {
	t.Helper()
	return b.newClass(t, b.teacher, strings.ToUpper(strings.ReplaceAll(uuid.NewString()[:8], "-", "")))
}

func TestReorderAndRename(t *testing.T) {
	ctx, b := setup(t)
	d, err := b.create(t, b.teacher, "Unit 3", words(3)...)
	require.NoError(t, err)
	_, entries, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	ids := []uuid.UUID{entries[2].ID, entries[0].ID, entries[1].ID}
	reorder := func(version int, order []uuid.UUID) (int, error) {
		var v int
		err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
			var err error
			v, err = b.decks.Reorder(ctx, tx, b.teacher, d.ID, version, order)
			return err
		})
		return v, err
	}
	v, err := reorder(1, ids)
	require.NoError(t, err)
	require.Equal(t, 2, v)
	_, after, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"word2", "word0", "word1"}, []string{after[0].Term, after[1].Term, after[2].Term})
	require.Equal(t, []int{1, 2, 3}, []int{after[0].Position, after[1].Position, after[2].Position})
	_, err = reorder(1, ids)
	require.ErrorIs(t, err, ErrConflict)
	_, err = reorder(2, ids[:2])
	require.ErrorIs(t, err, ErrOrderMismatch)
	_, err = reorder(2, []uuid.UUID{ids[0], ids[0], ids[1]})
	require.ErrorIs(t, err, ErrOrderMismatch)

	rename := func(version int, info DeckInfo) (int, error) {
		var v int
		err := pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
			var err error
			v, err = b.decks.UpdateInfo(ctx, tx, b.teacher, d.ID, version, info)
			return err
		})
		return v, err
	}
	_, err = b.create(t, b.teacher, "Unit 4")
	require.NoError(t, err)
	_, err = rename(2, DeckInfo{Title: "Unit 4", TermLanguage: "es", MeaningLanguage: "en"})
	require.ErrorIs(t, err, ErrDuplicateTitle)
	v, err = rename(2, DeckInfo{Title: "Unidad 3", Description: "Comida", TermLanguage: "es-419", MeaningLanguage: "en-GB"})
	require.NoError(t, err)
	require.Equal(t, 3, v)
	got, _, err := Get(ctx, b.pool, b.teacher, d.ID)
	require.NoError(t, err)
	require.Equal(t, DeckInfo{Title: "Unidad 3", Description: "Comida", TermLanguage: "es-419", MeaningLanguage: "en-GB"}, got.DeckInfo)
	_, err = rename(2, DeckInfo{Title: "Unit 3", TermLanguage: "es", MeaningLanguage: "en"})
	var conflict *ConflictError
	require.ErrorAs(t, err, &conflict)
	require.Equal(t, ConflictError{Version: 3}, *conflict)
}

func TestFromLibrary(t *testing.T) {
	ctx, b := setup(t)
	_, err := b.create(t, b.teacher, "Mine", EntryInput{Term: "Run", Meaning: "correr"})
	require.NoError(t, err)
	got, err := FromLibrary(ctx, b.pool, " RUN ")
	require.NoError(t, err)
	require.Equal(t, []EntryInput{{Term: "run", Meaning: "move fast by using one's feet", Example: "he ran home", PartOfSpeech: "verb"}}, got,
		"the library's entry, not a teacher's")
	got, err = FromLibrary(ctx, b.pool, "zzz")
	require.NoError(t, err)
	require.Empty(t, got)
}

// A RefusedError counts lines, not refusals, in the right number.
func TestRefusedErrorCountsLines(t *testing.T) {
	t.Parallel()
	one := &RefusedError{Refused: []deckimport.Refusal{{Line: 2, Field: deckimport.FieldTerm}, {Line: 2, Field: deckimport.FieldMeaning}}}
	require.Equal(t, "1 line is refused: fix it, or choose to leave it out", one.Error())
	two := &RefusedError{Refused: append(one.Refused, deckimport.Refusal{Line: 5, Field: deckimport.FieldLine})}
	require.Equal(t, "2 lines are refused: fix them, or choose to leave them out", two.Error())
}
