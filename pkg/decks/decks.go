package decks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
)

// Decks applies the rules of teachers' own decks. It holds no state of its
// own: build one with New wherever its dependencies are at hand.
type Decks struct {
	clock     clock.Clock
	scheduler *learning.Scheduler
}

// New returns a Decks that takes instants from clk and creates learners'
// cards in the state of sched's new card.
func New(clk clock.Clock, sched *learning.Scheduler) Decks {
	return Decks{clock: clk, scheduler: sched}
}

// Deck is a deck of the shared library (OwnerID nil, Library true) or of a
// teacher, without its entries.
type Deck struct {
	ID      uuid.UUID
	OwnerID *uuid.UUID
	Library bool
	DeckInfo
	// Version counts the changes of the deck's info and order (not of its
	// entries, which have their own): UpdateInfo and Reorder take the
	// version they were based on.
	Version int
	// Entries is the number of its live entries.
	Entries int
	// Level is a library deck's frequency band (1 to 5), nil for an own deck.
	Level *int
	// Assigned tells whether a learner has or had an own deck (List and
	// Get, alike; such a deck cannot be deleted); false for the library's.
	Assigned   bool
	ArchivedAt *time.Time
	CopiedFrom *uuid.UUID
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Entry is an entry of a deck as stored: its id (the lexeme's, which the
// learners' cards are keyed on), its text, its version (one more for each
// edit of its text) and its position in the deck's order (from 1; gaps
// are left by removals).
type Entry struct {
	ID uuid.UUID
	EntryInput
	Version  int
	Position int
}

// NewDeck is a deck a teacher creates: its info and its first entries (at
// most MaxEntries, in their order; none is allowed).
type NewDeck struct {
	DeckInfo
	Entries []EntryInput
}

// Get answers the deck deckID and its live entries in their order, as
// teacherID may read it: a library deck, or one of theirs (archived
// included). Errors: ErrDeckNotFound for another teacher's deck or none.
func Get(ctx context.Context, db store.DBTX, teacherID, deckID uuid.UUID) (Deck, []Entry, error) {
	q := store.On(db)
	row, err := q.VisibleDeck(ctx, deckID, &teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return Deck{}, nil, ErrDeckNotFound
	}
	if err != nil {
		return Deck{}, nil, fmt.Errorf("load deck: %w", err)
	}
	d := Deck{ID: row.ID, OwnerID: row.OwnerID, Library: row.OwnerID == nil, Version: int(row.Version), Entries: int(row.Entries), Assigned: row.Assigned,
		DeckInfo:   DeckInfo{Title: row.Title, Description: row.Description, TermLanguage: row.TermLanguage, MeaningLanguage: row.MeaningLanguage},
		ArchivedAt: row.ArchivedAt, CopiedFrom: row.CopiedFrom, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt}
	if row.Level != nil {
		level := int(*row.Level)
		d.Level = &level
	}
	entries, err := loadEntries(ctx, q, deckID)
	return d, entries, err
}

// List answers teacherID's own decks by title (archived ones too when
// archived is set), each with its number of entries and whether it is
// Assigned. The library is classroom.ListDecks'.
func List(ctx context.Context, db store.DBTX, teacherID uuid.UUID, archived bool) ([]Deck, error) {
	rows, err := store.On(db).OwnDecks(ctx, teacherID, archived)
	if err != nil {
		return nil, fmt.Errorf("list decks: %w", err)
	}
	out := make([]Deck, 0, len(rows))
	for _, r := range rows {
		out = append(out, Deck{ID: r.ID, OwnerID: &teacherID, Version: int(r.Version), Entries: int(r.Entries), Assigned: r.Assigned,
			DeckInfo:   DeckInfo{Title: r.Title, Description: r.Description, TermLanguage: r.TermLanguage, MeaningLanguage: r.MeaningLanguage},
			ArchivedAt: r.ArchivedAt, CopiedFrom: r.CopiedFrom, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt})
	}
	return out, nil
}

func loadEntries(ctx context.Context, q *store.Queries, deckID uuid.UUID) ([]Entry, error) {
	rows, err := q.DeckEntries(ctx, deckID)
	if err != nil {
		return nil, fmt.Errorf("load entries: %w", err)
	}
	out := make([]Entry, 0, len(rows))
	for _, r := range rows {
		out = append(out, Entry{ID: r.ID, Version: int(r.Version), Position: int(r.Position),
			EntryInput: EntryInput{Term: r.Lemma, Meaning: r.Definition, Example: r.Example, PartOfSpeech: r.PartOfSpeech}})
	}
	return out, nil
}

// Create stores a deck of teacherID's with its entries, in tx, and answers
// it with the event deck.created (ordering key: the deck id). Nothing is
// written unless every field and entry is valid. Errors: *InputError
// (ErrInvalid, or ErrDuplicateTerm for a term twice), ErrTooManyEntries,
// ErrDuplicateTitle.
func (d Decks) Create(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, in NewDeck) (Deck, events.Batch, error) {
	info, err := in.check()
	if err != nil {
		return Deck{}, events.Batch{}, err
	}
	entries, err := checkEntries("entries", in.Entries, map[string]bool{})
	if err != nil {
		return Deck{}, events.Batch{}, err
	}
	return d.create(ctx, tx, teacherID, info, entries, nil)
}

// CopyRequest asks for a copy of the deck SourceID (a library deck, or one
// of the teacher's own) titled Title, or "<source's title> (copy)" when
// Title is empty.
type CopyRequest struct {
	SourceID uuid.UUID
	Title    string
}

// Copy stores a new deck of teacherID's with the info (but the title) and
// the live entries of req.SourceID, in their order, in tx, and answers it
// with deck.created (CopiedFrom set). The copy's entries are its own: an
// edit of them never changes the source, and learners who studied the
// source get new cards for the copy's entries. A library deck's languages
// are English. Errors: ErrDeckNotFound (another teacher's deck, or none),
// *InputError for the title, ErrDuplicateTitle, and those of the source's
// entries under the copy's rules (an entry of the source that they refuse
// is named by its index, under "entries").
func (d Decks) Copy(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, req CopyRequest) (Deck, events.Batch, error) {
	src, srcEntries, err := Get(ctx, tx, teacherID, req.SourceID)
	if err != nil {
		return Deck{}, events.Batch{}, err
	}
	info := src.DeckInfo
	info.Title = req.Title
	if info.Title == "" {
		info.Title = src.Title + " (copy)"
	}
	if info, err = info.check(); err != nil {
		return Deck{}, events.Batch{}, err
	}
	ins := make([]EntryInput, len(srcEntries))
	for i, e := range srcEntries {
		ins[i] = e.EntryInput
	}
	entries, err := checkEntries("entries", ins, map[string]bool{})
	if err != nil {
		return Deck{}, events.Batch{}, err
	}
	return d.create(ctx, tx, teacherID, info, entries, &src.ID)
}

// checkEntries validates ins, the list named list, and their terms against
// taken (see checkTerms), and refuses more than MaxEntries.
func checkEntries(list string, ins []EntryInput, taken map[string]bool) ([]entry, error) {
	if len(ins) > MaxEntries {
		return nil, ErrTooManyEntries
	}
	out := make([]entry, len(ins))
	for i, in := range ins {
		e, err := checkEntry(list, i, in)
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, checkTerms(list, out, taken)
}

// create stores the deck and its entries (checked) and answers deck.created.
func (d Decks) create(ctx context.Context, tx pgx.Tx, teacherID uuid.UUID, info DeckInfo, entries []entry, copiedFrom *uuid.UUID) (Deck, events.Batch, error) {
	q := store.On(tx)
	row, err := q.InsertDeck(ctx, store.InsertDeckParams{OwnerID: teacherID, Title: info.Title, Description: info.Description,
		TermLanguage: info.TermLanguage, MeaningLanguage: info.MeaningLanguage, CopiedFrom: copiedFrom, Now: d.clock.NowOrNil()})
	if errors.Is(err, store.ErrNotFound) {
		return Deck{}, events.Batch{}, ErrDuplicateTitle
	}
	if err != nil {
		return Deck{}, events.Batch{}, fmt.Errorf("insert deck: %w", err)
	}
	if _, err := d.insertEntries(ctx, q, row.ID, 1, entries); err != nil {
		return Deck{}, events.Batch{}, err
	}
	out := Deck{ID: row.ID, OwnerID: &teacherID, DeckInfo: info, Version: int(row.Version), Entries: len(entries),
		CopiedFrom: copiedFrom, CreatedAt: row.CreatedAt, UpdatedAt: row.CreatedAt}
	batch := events.NewBatch(row.ID.String())
	payload := events.DeckCreatedPayload{DeckID: row.ID, TeacherID: teacherID, Title: info.Title, Entries: len(entries), CopiedFrom: copiedFrom}
	batch.Add(payload)
	return out, batch, nil
}

// insertEntries stores entries (checked) in the deck at positions from
// first on, and answers them as stored.
func (d Decks) insertEntries(ctx context.Context, q *store.Queries, deckID uuid.UUID, first int, entries []entry) ([]Entry, error) {
	if len(entries) == 0 {
		return []Entry{}, nil
	}
	p := store.InsertEntriesParams{DeckID: deckID, Now: d.clock.NowOrNil()}
	out := make([]Entry, len(entries))
	for i, e := range entries {
		id, pos := uuid.New(), first+i
		p.Ids, p.Terms, p.TermKeys = append(p.Ids, id), append(p.Terms, e.Term), append(p.TermKeys, e.key)
		p.Meanings, p.Examples = append(p.Meanings, e.Meaning), append(p.Examples, e.Example)
		p.PartsOfSpeech, p.Positions = append(p.PartsOfSpeech, e.PartOfSpeech), append(p.Positions, int32(pos)) //nolint:gosec // at most MaxEntries past the last position
		out[i] = Entry{ID: id, EntryInput: e.EntryInput, Version: 1, Position: pos}
	}
	if _, err := q.InsertEntries(ctx, p); err != nil {
		return nil, fmt.Errorf("insert entries: %w", err)
	}
	return out, nil
}

// FromLibrary answers what the WordNet library knows of term (compared
// ignoring case after trimming): at most 10 entries, one per part of
// speech, to fill in a new entry with one click. An empty term, or one the
// library lacks, answers none.
func FromLibrary(ctx context.Context, db store.DBTX, term string) ([]EntryInput, error) {
	term = text.Name(term)
	out := []EntryInput{}
	if term == "" {
		return out, nil
	}
	rows, err := store.On(db).LibraryEntriesOf(ctx, term)
	if err != nil {
		return nil, fmt.Errorf("look the term up in the library: %w", err)
	}
	for _, r := range rows {
		out = append(out, EntryInput{Term: r.Lemma, Meaning: r.Definition, Example: r.Example, PartOfSpeech: r.PartOfSpeech})
	}
	return out, nil
}
