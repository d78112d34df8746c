package decks

import (
	"context"
	"errors"
	"io"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/deckimport"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/text"
	"github.com/lexora-app/lexora/pkg/store"
)

// ImportRequest is a list a teacher pastes or uploads into one of their
// decks: Input (the text or the file's bytes, read by deckimport.Parse),
// Options (a forced format, separator or column names; Existing is set
// from the deck), the choice for Duplicates, and LeaveOutRefused, set
// when the teacher chose to save the accepted rows though some are
// refused.
type ImportRequest struct {
	Input           []byte
	Options         deckimport.Options
	Duplicates      deckimport.Duplicates
	LeaveOutRefused bool
}

// ImportResult is what an import did: the edit it made (EntriesResult) and
// Left, the lines (from 1) of the rows it did not save (duplicates skipped
// or overridden, refused rows left out), in order.
type ImportResult struct {
	EntriesResult
	Left []int
}

// RefusedError is ErrRefused: the rows of an import that deckimport
// refused, each with its line, field and reason, while the teacher did not
// choose to leave them out.
type RefusedError struct{ Refused []deckimport.Refusal }

// Error counts the lines refused (a row refused in two fields is one line).
func (e *RefusedError) Error() string {
	lines := map[int]bool{}
	for _, r := range e.Refused {
		lines[r.Line] = true
	}
	if len(lines) == 1 {
		return "1 line is refused: fix it, or choose to leave it out"
	}
	return text.Count(len(lines), "line", "lines") + " are refused: fix them, or choose to leave them out"
}

// Is makes a RefusedError ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// PreviewImport reads input as deckimport.Parse does and answers its
// Preview, writing nothing: with deckID (not uuid.Nil) one of teacherID's
// decks, whose live entries' terms are opts.Existing (rows of those terms
// are InDeck). Errors: ErrDeckNotFound (not the teacher's deck: another's,
// the library's, or none); deckimport's *InputError for the whole input
// (too large, empty, binary, UTF-16, not UTF-8, too many rows, no header,
// bad options).
func PreviewImport(ctx context.Context, db store.DBTX, teacherID, deckID uuid.UUID, input []byte, opts deckimport.Options) (*deckimport.Preview, error) {
	opts.Existing = nil
	if deckID != uuid.Nil {
		deck, entries, err := Get(ctx, db, teacherID, deckID)
		if err != nil {
			return nil, err
		}
		if deck.Library {
			return nil, ErrDeckNotFound
		}
		opts.Existing = terms(entries)
	}
	return deckimport.Parse(input, opts)
}

// Import reads req.Input into teacherID's deck deckID, in tx, as
// PreviewImport previews it and the teacher chose: the deck is locked
// first (store.LockOwnDeck), its live entries read, the input parsed
// against their terms and planned (deckimport.Preview.Plan), then saved by
// EditEntries: the new rows are added at the end of the deck (a card, due
// at once, for every learner who has it), and with deckimport.Update a row
// of a term the deck has replaces that entry's meaning, example and part
// of speech (its term, id and cards kept), at the version read under the
// lock, so no edit in between is undone. It answers what EditEntries
// answers (deck.entries_changed when anything changed) and the lines left.
// Errors: ErrDeckNotFound; deckimport's *InputError (the whole input, or
// ErrTooManyEntries for a deck that would hold more than MaxEntries);
// *RefusedError while a row is refused and req.LeaveOutRefused is not set;
// and EditEntries' errors.
func (d Decks) Import(ctx context.Context, tx pgx.Tx, teacherID, deckID uuid.UUID, req ImportRequest) (ImportResult, events.Batch, error) {
	q := store.On(tx)
	if _, err := lockOwn(ctx, q, teacherID, deckID); err != nil {
		return ImportResult{}, events.Batch{}, err
	}
	live, err := loadEntries(ctx, q, deckID)
	if err != nil {
		return ImportResult{}, events.Batch{}, err
	}
	opts := req.Options
	opts.Existing = terms(live)
	preview, err := deckimport.Parse(req.Input, opts)
	if err != nil {
		return ImportResult{}, events.Batch{}, err
	}
	plan, err := preview.Plan(req.Duplicates, req.LeaveOutRefused)
	if errors.Is(err, deckimport.ErrRefused) {
		return ImportResult{}, events.Batch{}, &RefusedError{Refused: preview.Refused}
	}
	if err != nil {
		return ImportResult{}, events.Batch{}, err
	}
	byKey := make(map[string]Entry, len(live))
	for _, e := range live {
		byKey[termKey(e.Term)] = e
	}
	var edit EntriesEdit
	for _, e := range plan.Add {
		edit.Add = append(edit.Add, EntryInput{Term: e.Term, Meaning: e.Meaning, Example: e.Example, PartOfSpeech: string(e.PartOfSpeech)})
	}
	for _, e := range plan.Update {
		cur := byKey[deckimport.Key(e.Term)]
		edit.Change = append(edit.Change, EntryChange{ID: cur.ID, Version: cur.Version,
			EntryInput: EntryInput{Term: cur.Term, Meaning: e.Meaning, Example: e.Example, PartOfSpeech: string(e.PartOfSpeech)}})
	}
	res, batch, err := d.EditEntries(ctx, tx, teacherID, deckID, edit)
	if err != nil {
		return ImportResult{}, events.Batch{}, err
	}
	return ImportResult{EntriesResult: res, Left: plan.Left}, batch, nil
}

// terms are the entries' terms, in their order.
func terms(entries []Entry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.Term
	}
	return out
}

// ExportCSV writes the deck deckID, as teacherID may read it (a library
// deck or one of theirs), as deckimport.Export writes a deck (CSV that
// Import reads back to the same entries), into w, and answers the deck.
// Errors: ErrDeckNotFound, and w's.
func ExportCSV(ctx context.Context, db store.DBTX, teacherID, deckID uuid.UUID, w io.Writer) (Deck, error) {
	deck, entries, err := Get(ctx, db, teacherID, deckID)
	if err != nil {
		return Deck{}, err
	}
	out := make([]deckimport.Entry, len(entries))
	for i, e := range entries {
		out[i] = deckimport.Entry{Term: e.Term, Meaning: e.Meaning, Example: e.Example, PartOfSpeech: deckimport.PartOfSpeech(e.PartOfSpeech)}
	}
	return deck, deckimport.Export(w, out)
}
