package decks

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// EntryChange is new text for the live entry ID, based on its Version (as
// last read): the edit is refused when the entry changed since.
type EntryChange struct {
	ID      uuid.UUID
	Version int
	EntryInput
}

// EntryRemoval removes the live entry ID, based on its Version: a removal
// is refused, like a change, when the entry changed since it was read.
type EntryRemoval struct {
	ID      uuid.UUID
	Version int
}

// EntriesEdit is one edit of a deck's entries, applied whole or not at
// all: entries to Add (at the end of the deck, in their order), to Change
// and to Remove. An entry is named at most once among Change and Remove.
type EntriesEdit struct {
	Add    []EntryInput
	Change []EntryChange
	Remove []EntryRemoval
}

// EntriesResult is what an edit did: the entries added and changed as
// stored (Changed leaves out a change that changed no text), the ids of
// those removed, the cards it created for the deck's learners, and the
// deck's number of entries after it.
type EntriesResult struct {
	DeckID       uuid.UUID
	Added        []Entry
	Changed      []Entry
	Removed      []uuid.UUID
	CardsCreated int
	Entries      int
}

// EditEntries applies edit to teacherID's deck deckID, in tx, after
// locking the deck's row (edits of one deck, and the assignments and
// enrolments that give its cards, take turns):
//
//   - an added entry becomes a new card, due at once (the scheduler's new
//     card), for every learner who has the deck (an assignment of it, or a
//     self-study start), written in this transaction: the edit commits with
//     every learner's card or not at all (bound: learners holding the deck ×
//     entries added, at most MaxEntries per learner; 70,000 cards for 35
//     learners and a full deck);
//   - a changed entry keeps its id, so every learner's card of it keeps its
//     FSRS state and review history and shows the new text; its version
//     counts one more;
//   - a removed entry leaves the deck: its learners' cards leave every
//     schedule and progress total (schedule_cards), and keep their review
//     history.
//
// When anything changed it answers deck.entries_changed (ordering key: the
// deck id) with the counts and each assignment's change of its progress
// counts (events.DeckAssignmentChange). An assignment already completed
// stays completed when entries are added, and one that a removal leaves
// with only learned cards is completed by its learner's next review of
// it, as before. Nothing is written unless the whole edit is valid.
// Errors: ErrDeckNotFound (not the teacher's: another's, the library's, or
// none), *InputError (ErrInvalid; ErrDuplicateTerm for a term another live
// entry or the edit has, compared case-folded), *EntryNotFoundError,
// *ConflictError (the entry's version is not the one given),
// ErrTooManyEntries.
func (d Decks) EditEntries(ctx context.Context, tx pgx.Tx, teacherID, deckID uuid.UUID, edit EntriesEdit) (EntriesResult, events.Batch, error) {
	adds, changes, err := checkEdit(edit)
	if err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	q := store.On(tx)
	deck, err := lockOwn(ctx, q, teacherID, deckID)
	if err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	live, err := loadEntries(ctx, q, deckID)
	if err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	current := make(map[uuid.UUID]Entry, len(live))
	for _, e := range live {
		current[e.ID] = e
	}
	touched := map[uuid.UUID]bool{}
	for _, r := range edit.Remove {
		if err := checkVersion(current, r.ID, r.Version); err != nil {
			return EntriesResult{}, events.Batch{}, err
		}
		touched[r.ID] = true
	}
	for i, c := range edit.Change {
		if err := checkVersion(current, c.ID, c.Version); err != nil {
			return EntriesResult{}, events.Batch{}, err
		}
		touched[c.ID], changes[i].id = true, c.ID
	}
	if len(live)-len(edit.Remove)+len(adds) > MaxEntries {
		return EntriesResult{}, events.Batch{}, ErrTooManyEntries
	}
	taken := map[string]bool{}
	for _, e := range live {
		if !touched[e.ID] {
			taken[termKey(e.Term)] = true
		}
	}
	if err := checkTerms("change", entriesOf(changes), taken); err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	if err := checkTerms("add", adds, taken); err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	res, batch, err := d.applyEdit(ctx, q, teacherID, deck, edit.Remove, changedOnly(changes, current), adds, len(live))
	for i, c := range res.Changed {
		res.Changed[i].Position = current[c.ID].Position // a change keeps its place
	}
	return res, batch, err
}

// change is a checked EntryChange.
type change struct {
	entry
	id      uuid.UUID
	version int
}

func entriesOf(cs []change) []entry {
	out := make([]entry, len(cs))
	for i, c := range cs {
		out[i] = c.entry
	}
	return out
}

// changedOnly leaves out of cs those that would store the text the entry
// has.
func changedOnly(cs []change, current map[uuid.UUID]Entry) []change {
	out := make([]change, 0, len(cs))
	for _, c := range cs {
		if current[c.id].EntryInput != c.EntryInput {
			out = append(out, c)
		}
	}
	return out
}

// checkEdit validates the edit's text and that it names each entry at most
// once, before anything is read.
func checkEdit(edit EntriesEdit) ([]entry, []change, error) {
	if len(edit.Add) > MaxEntries || len(edit.Change) > MaxEntries || len(edit.Remove) > MaxEntries {
		return nil, nil, ErrTooManyEntries
	}
	adds := make([]entry, len(edit.Add))
	for i, in := range edit.Add {
		e, err := checkEntry("add", i, in)
		if err != nil {
			return nil, nil, err
		}
		adds[i] = e
	}
	named := map[uuid.UUID]bool{}
	once := func(list string, i int, id uuid.UUID) error {
		if named[id] {
			return &InputError{List: list, Index: i, Field: "id", Reason: "names an entry the edit names already"}
		}
		named[id] = true
		return nil
	}
	changes := make([]change, len(edit.Change))
	for i, c := range edit.Change {
		if err := once("change", i, c.ID); err != nil {
			return nil, nil, err
		}
		e, err := checkEntry("change", i, c.EntryInput)
		if err != nil {
			return nil, nil, err
		}
		changes[i] = change{entry: e, version: c.Version}
	}
	for i, r := range edit.Remove {
		if err := once("remove", i, r.ID); err != nil {
			return nil, nil, err
		}
	}
	return adds, changes, nil
}

// checkVersion refuses an id that is no live entry of current, or whose
// version is not version.
func checkVersion(current map[uuid.UUID]Entry, id uuid.UUID, version int) error {
	e, ok := current[id]
	switch {
	case !ok:
		return &EntryNotFoundError{EntryID: id}
	case e.Version != version:
		return &ConflictError{EntryID: id, Term: e.Term, Version: e.Version}
	}
	return nil
}

// applyEdit writes a checked edit of the locked deck holding live entries:
// removals first (their terms are free for the changes and additions),
// then changes, then additions and their cards.
func (d Decks) applyEdit(ctx context.Context, q *store.Queries, teacherID uuid.UUID, deck store.LockOwnDeckRow,
	removals []EntryRemoval, changes []change, adds []entry, live int) (EntriesResult, events.Batch, error) {
	out := EntriesResult{DeckID: deck.ID, Added: []Entry{}, Changed: []Entry{}, Removed: make([]uuid.UUID, 0, len(removals))}
	for _, r := range removals {
		out.Removed = append(out.Removed, r.ID)
	}
	// What the progress projection counted of the removed entries, before they go.
	holders, err := q.DeckHolders(ctx, learning.Review, out.Removed, deck.ID)
	if err != nil {
		return EntriesResult{}, events.Batch{}, fmt.Errorf("load the deck's assignments: %w", err)
	}
	if len(out.Removed) > 0 {
		if _, err := q.RemoveEntries(ctx, deck.ID, d.clock.NowOrNil(), out.Removed); err != nil {
			return EntriesResult{}, events.Batch{}, fmt.Errorf("remove entries: %w", err)
		}
	}
	if out.Changed, err = d.updateEntries(ctx, q, deck.ID, changes); err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	next, err := q.NextPosition(ctx, deck.ID)
	if err != nil {
		return EntriesResult{}, events.Batch{}, fmt.Errorf("find the deck's end: %w", err)
	}
	if out.Added, err = d.insertEntries(ctx, q, deck.ID, int(next), adds); err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	if out.CardsCreated, err = d.createCards(ctx, q, deck.ID, out.Added); err != nil {
		return EntriesResult{}, events.Batch{}, err
	}
	out.Entries = live - len(out.Removed) + len(out.Added)
	if len(out.Added)+len(out.Changed)+len(out.Removed) == 0 {
		return out, events.Batch{}, nil
	}
	payload := events.DeckEntriesChangedPayload{DeckID: deck.ID, TeacherID: teacherID, Title: deck.Title,
		Added: len(out.Added), Changed: len(out.Changed), Removed: len(out.Removed), Entries: out.Entries,
		CardsCreated: out.CardsCreated, Assignments: []events.DeckAssignmentChange{}}
	if len(out.Added) > 0 || len(out.Removed) > 0 {
		for _, h := range holders {
			payload.Assignments = append(payload.Assignments, events.DeckAssignmentChange{AssignmentID: h.ID, LearnerID: h.LearnerID,
				Total: len(out.Added) - len(out.Removed), Seen: -int(h.Seen), Learned: -int(h.Learned)})
		}
	}
	batch := events.NewBatch(deck.ID.String())
	batch.Add(payload)
	return out, batch, nil
}

// updateEntries writes changes (checked, versions checked under the deck's
// lock) and answers the entries as stored.
func (d Decks) updateEntries(ctx context.Context, q *store.Queries, deckID uuid.UUID, changes []change) ([]Entry, error) {
	if len(changes) == 0 {
		return []Entry{}, nil
	}
	p := store.UpdateEntriesParams{DeckID: deckID, Now: d.clock.NowOrNil()}
	for _, c := range changes {
		p.Ids, p.Versions, p.Terms, p.TermKeys = append(p.Ids, c.id), append(p.Versions, int32(c.version)), append(p.Terms, c.Term), append(p.TermKeys, c.key) //nolint:gosec // a version read from an integer column
		p.Meanings, p.Examples, p.PartsOfSpeech = append(p.Meanings, c.Meaning), append(p.Examples, c.Example), append(p.PartsOfSpeech, c.PartOfSpeech)
	}
	rows, err := q.UpdateEntries(ctx, p)
	if errors.Is(err, store.ErrDuplicate) { // two changes swapping terms: the index is checked row by row
		return nil, &InputError{List: "change", Index: 0, Field: "term", err: ErrDuplicateTerm, Reason: "terms cannot be swapped in one edit"}
	}
	if err != nil {
		return nil, fmt.Errorf("update entries: %w", err)
	}
	if len(rows) != len(changes) {
		return nil, fmt.Errorf("update entries: %d of %d written under the deck's lock", len(rows), len(changes))
	}
	version := make(map[uuid.UUID]int, len(rows))
	for _, r := range rows {
		version[r.ID] = int(r.Version)
	}
	out := make([]Entry, len(changes))
	for i, c := range changes {
		out[i] = Entry{ID: c.id, EntryInput: c.EntryInput, Version: version[c.id]}
	}
	return out, nil
}

// createCards gives every learner who has the deck a new card, due now, for
// each of added, and counts them.
func (d Decks) createCards(ctx context.Context, q *store.Queries, deckID uuid.UUID, added []Entry) (int, error) {
	if len(added) == 0 {
		return 0, nil
	}
	ids := make([]uuid.UUID, len(added))
	for i, e := range added {
		ids[i] = e.ID
	}
	fresh := d.scheduler.NewCard()
	n, err := q.CreateEntryCards(ctx, store.CreateEntryCardsParams{DeckID: deckID, Ids: ids, State: int16(fresh.State), Due: fresh.Due,
		Stability: fresh.Stability, Difficulty: fresh.Difficulty, Step: int32(fresh.Step)}) //nolint:gosec // FSRS learning steps are a handful
	if err != nil {
		return 0, fmt.Errorf("create the learners' cards: %w", err)
	}
	return int(n), nil
}

// lockOwn locks teacherID's deck deckID (store.LockOwnDeck); ErrDeckNotFound
// for another's, the library's, or none.
func lockOwn(ctx context.Context, q *store.Queries, teacherID, deckID uuid.UUID) (store.LockOwnDeckRow, error) {
	deck, err := q.LockOwnDeck(ctx, deckID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return store.LockOwnDeckRow{}, ErrDeckNotFound
	}
	if err != nil {
		return store.LockOwnDeckRow{}, fmt.Errorf("lock deck: %w", err)
	}
	return deck, nil
}
