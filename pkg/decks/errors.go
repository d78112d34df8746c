package decks

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// The errors of the decks' rules. A deck that does not exist and one the
// caller may not see (another teacher's; the library, for a write) are the
// same error, so that ids cannot be probed.
var (
	// ErrDeckNotFound: no deck with that id that the caller may read, or,
	// for a write, no deck with that id of the caller's own (the library is
	// read-only for everyone).
	ErrDeckNotFound = errors.New("deck not found")
	// ErrEntryNotFound: an entry named by a change, a removal or an order
	// is not a live entry of the deck (*EntryNotFoundError says which).
	ErrEntryNotFound = errors.New("entry not found in this deck")
	// ErrInvalid: a field of the request breaks a rule (*InputError says
	// which and why).
	ErrInvalid = errors.New("invalid deck input")
	// ErrDuplicateTitle: the teacher has another deck with that title.
	ErrDuplicateTitle = errors.New("you have a deck with this title already")
	// ErrDuplicateTerm: an entry's term is another live entry's of the deck,
	// or of the same request, compared case-folded (*InputError names it).
	ErrDuplicateTerm = errors.New("the deck has an entry with this term already")
	// ErrTooManyEntries: the deck would hold more than MaxEntries entries.
	ErrTooManyEntries = fmt.Errorf("a deck holds at most %d entries", MaxEntries)
	// ErrConflict: the entry or the deck changed since the version the
	// request was based on (*ConflictError says which, and its version now).
	ErrConflict = errors.New("changed since the version given")
	// ErrDeckInUse: a deck that a learner has or had (assigned to a class
	// or a learner, or started) cannot be deleted; archive it.
	ErrDeckInUse = errors.New("this deck is or was assigned and cannot be deleted; archive it instead")
	// ErrOrderMismatch: a new order that does not name every live entry of
	// the deck exactly once.
	ErrOrderMismatch = errors.New("the order must name every entry of the deck exactly once")
	// ErrRefused: an import whose input has refused rows, which the
	// teacher did not choose to leave out (*RefusedError lists them).
	ErrRefused = errors.New("some lines of the list are refused: fix them, or choose to leave them out")
)

// InputError is a refused field: List and Index locate an entry of a
// request's list ("entries", "add" or "change", Index from 0), empty List
// (Index -1) a field of the deck itself; Field is its JSON name ("term",
// "title", ...). It is ErrInvalid, or ErrDuplicateTerm for a term the deck
// or the request has already.
type InputError struct {
	List   string
	Index  int
	Field  string
	Reason string
	err    error
}

// Path is the field's place in the request: "title", or "add[3].term".
func (e *InputError) Path() string {
	if e.List == "" {
		return e.Field
	}
	return fmt.Sprintf("%s[%d].%s", e.List, e.Index, e.Field)
}

func (e *InputError) Error() string { return e.Path() + ": " + e.Reason }

// Is makes an InputError ErrInvalid, or ErrDuplicateTerm.
func (e *InputError) Is(target error) bool {
	if e.err != nil {
		return target == e.err
	}
	return target == ErrInvalid
}

// ConflictError is ErrConflict for one entry (EntryID, and Term, its term
// now, by which a teacher knows it), or for the deck itself (EntryID
// uuid.Nil): Version is its version now, which the client reloads before
// trying again.
type ConflictError struct {
	EntryID uuid.UUID
	Term    string
	Version int
}

func (e *ConflictError) Error() string {
	if e.EntryID == uuid.Nil {
		return fmt.Sprintf("the deck %s (now version %d)", ErrConflict, e.Version)
	}
	return fmt.Sprintf("entry %q (%s) %s (now version %d)", e.Term, e.EntryID, ErrConflict, e.Version)
}

// Is makes a ConflictError ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// EntryNotFoundError is ErrEntryNotFound for the entry EntryID.
type EntryNotFoundError struct{ EntryID uuid.UUID }

func (e *EntryNotFoundError) Error() string {
	return fmt.Sprintf("entry %s not found in this deck", e.EntryID)
}

// Is makes an EntryNotFoundError ErrEntryNotFound.
func (e *EntryNotFoundError) Is(target error) bool { return target == ErrEntryNotFound }
