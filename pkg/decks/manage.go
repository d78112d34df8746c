package decks

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/store"
)

// UpdateInfo writes info as teacherID's deck deckID's title, description
// and languages, in tx, when the deck's version is still version, and
// answers the deck's new version. It enqueues no event (a deck's info is
// no learner's concern; its entries' changes are). Errors:
// *InputError, ErrDeckNotFound, *ConflictError (EntryID uuid.Nil: the
// deck's version is not version), ErrDuplicateTitle.
func (d Decks) UpdateInfo(ctx context.Context, tx pgx.Tx, teacherID, deckID uuid.UUID, version int, info DeckInfo) (int, error) {
	info, err := info.check()
	if err != nil {
		return 0, err
	}
	q := store.On(tx)
	deck, err := lockOwn(ctx, q, teacherID, deckID)
	if err != nil {
		return 0, err
	}
	if int(deck.Version) != version {
		return 0, &ConflictError{Version: int(deck.Version)}
	}
	v, err := q.UpdateDeckInfo(ctx, store.UpdateDeckInfoParams{DeckID: deckID, OwnerID: teacherID, Version: deck.Version,
		Title: info.Title, Description: info.Description, TermLanguage: info.TermLanguage, MeaningLanguage: info.MeaningLanguage,
		Now: d.clock.NowOrNil()})
	if errors.Is(err, store.ErrDuplicate) {
		return 0, ErrDuplicateTitle
	}
	if err != nil {
		return 0, fmt.Errorf("update deck: %w", err)
	}
	return int(v), nil
}

// Reorder puts teacherID's deck deckID's entries in the order of order
// (every live entry's id, once each; positions become 1 to n), in tx, when
// the deck's version is still version, and answers the deck's new version.
// Learners' cards do not change. Errors: ErrDeckNotFound,
// *ConflictError (the deck's version), ErrOrderMismatch.
func (d Decks) Reorder(ctx context.Context, tx pgx.Tx, teacherID, deckID uuid.UUID, version int, order []uuid.UUID) (int, error) {
	q := store.On(tx)
	deck, err := lockOwn(ctx, q, teacherID, deckID)
	if err != nil {
		return 0, err
	}
	if int(deck.Version) != version {
		return 0, &ConflictError{Version: int(deck.Version)}
	}
	live, err := loadEntries(ctx, q, deckID)
	if err != nil {
		return 0, err
	}
	want := make(map[uuid.UUID]bool, len(live))
	for _, e := range live {
		want[e.ID] = true
	}
	for _, id := range order {
		if !want[id] {
			return 0, ErrOrderMismatch // not an entry, or named twice
		}
		delete(want, id)
	}
	if len(want) > 0 {
		return 0, ErrOrderMismatch
	}
	if err := q.NegatePositions(ctx, deckID); err != nil {
		return 0, fmt.Errorf("reorder: %w", err)
	}
	if _, err := q.SetPositions(ctx, deckID, order); err != nil {
		return 0, fmt.Errorf("reorder: %w", err)
	}
	v, err := q.TouchDeck(ctx, d.clock.NowOrNil(), deckID)
	if err != nil {
		return 0, fmt.Errorf("reorder: %w", err)
	}
	return int(v), nil
}

// Archive archives teacherID's deck deckID (archived true) or takes it out
// of the archive (false), in db, and answers when it was archived (nil when
// it is not). An archived deck is left out of the teacher's deck list
// (List without archived) and of the decks they may assign
// (classroom.ListDecks; classroom.Assign refuses it with
// classroom.ErrDeckArchived); everything else stays: learners keep their
// cards and assignments, a class that has it keeps it until its due date
// (a learner who joins before then still gets it), and the teacher may
// still read, edit and copy it. Errors: ErrDeckNotFound.
func (d Decks) Archive(ctx context.Context, db store.DBTX, teacherID, deckID uuid.UUID, archived bool) (*time.Time, error) {
	at, err := store.On(db).ArchiveDeck(ctx, archived, d.clock.NowOrNil(), deckID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrDeckNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("archive deck: %w", err)
	}
	return at, nil
}

// Delete deletes teacherID's deck deckID with its entries, in tx, when no
// learner has or had it: a deck ever assigned (to a class or a learner) is
// refused, so an assigned deck never vanishes from its learners, whose
// cards and progress refer to it; archive it instead. Errors:
// ErrDeckNotFound, ErrDeckInUse.
func (d Decks) Delete(ctx context.Context, tx pgx.Tx, teacherID, deckID uuid.UUID) error {
	q := store.On(tx)
	// The lock makes an assignment in progress finish first (it holds the
	// deck FOR SHARE), so DeckInUse sees it.
	if _, err := lockOwn(ctx, q, teacherID, deckID); err != nil {
		return err
	}
	inUse, err := q.DeckInUse(ctx, deckID)
	if err != nil {
		return fmt.Errorf("check deck use: %w", err)
	}
	if inUse {
		return ErrDeckInUse
	}
	if _, err := q.DeleteDeck(ctx, deckID, teacherID); err != nil {
		return fmt.Errorf("delete deck: %w", err)
	}
	return nil
}
