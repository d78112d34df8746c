package deckimport

import (
	"fmt"
	"slices"

	"github.com/lexora-app/lexora/pkg/platform/text"
)

// Duplicates is the teacher's choice for a term that is in the file twice or
// already in the deck.
type Duplicates int

// The choices for duplicates.
const (
	// Skip keeps the first row of a term and the deck's own entry: later
	// rows of the term, and rows of a term the deck has, are not saved.
	Skip Duplicates = iota
	// Update saves the last row of a term: at the first row's place among
	// the new entries, or as an update of the deck's entry of that term.
	Update
)

// Plan is what to save for a Preview: Add the new entries in the input's
// order, Update the entries whose terms the deck has (Options.Existing), to
// replace that entry's meaning, example and part of speech (matched by
// Key), and Left the lines of the accepted rows not saved (duplicates
// skipped or overridden) and of the refused rows, in order.
type Plan struct {
	Add    []Entry
	Update []Entry
	Left   []int
}

// Plan resolves the Preview's duplicates by choice and returns what to
// save. While a row is refused it returns ErrRefused, unless leaveOut says
// that the teacher chose to leave the refused rows out; when the deck's
// entries (Options.Existing) and the new ones are more than MaxEntries, an
// *InputError wrapping ErrTooManyEntries.
func (p *Preview) Plan(choice Duplicates, leaveOut bool) (Plan, error) {
	if choice != Skip && choice != Update {
		return Plan{}, fmt.Errorf("%w: unknown choice %d for duplicates", ErrOptions, choice)
	}
	if len(p.Refused) > 0 && !leaveOut {
		return Plan{}, fmt.Errorf("%w: %d refused", ErrRefused, len(p.Refused))
	}
	// The row of each key to save: the first, or with Update the last.
	chosen := map[string]int{}
	for i, r := range p.Rows {
		if _, ok := chosen[r.Key]; !ok || choice == Update {
			chosen[r.Key] = i
		}
	}
	var plan Plan
	var left []int
	for i, r := range p.Rows {
		c := chosen[r.Key]
		switch {
		case r.SameAs != 0: // the key's first row places it
		case r.InDeck && choice == Update:
			plan.Update = append(plan.Update, p.Rows[c].Entry)
		case !r.InDeck:
			plan.Add = append(plan.Add, p.Rows[c].Entry)
		}
		if c != i || r.InDeck && choice == Skip {
			left = append(left, r.Line)
		}
	}
	for _, f := range p.Refused {
		left = append(left, f.Line)
	}
	slices.Sort(left)
	plan.Left = slices.Compact(left)
	if total := p.existing + len(plan.Add); total > MaxEntries {
		return Plan{}, &InputError{Err: ErrTooManyEntries, Detail: fmt.Sprintf("the deck has %s and %d would be added: a deck holds at most %d",
			text.Count(p.existing, "entry", "entries"), len(plan.Add), MaxEntries)}
	}
	return plan, nil
}
