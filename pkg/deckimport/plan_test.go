package deckimport

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestKey(t *testing.T) {
	t.Parallel()
	for _, same := range [][]string{
		{"Cat", "cat", "CAT", " cat "},
		{"caf\u00e9", "cafe\u0301", "CAF\u00c9"}, // NFC and NFD, upper case
		{"Straße", "STRASSE", "strasse"},         // full case folding
		{"ice  cream", "ice cream", "Ice\tCream"},
		{"ΣΊΣΥΦΟΣ", "σίσυφος", "σίσυφοσ"}, // final sigma folds to sigma
	} {
		for _, s := range same[1:] {
			require.Equal(t, Key(same[0]), Key(s), "%q and %q", same[0], s)
		}
	}
	require.NotEqual(t, Key("cat"), Key("cats"))
	require.NotEqual(t, Key("resume"), Key("résumé"))
}

func TestDuplicates(t *testing.T) {
	t.Parallel()
	in := "term,meaning\n" +
		"Cat,a feline\n" + // 2
		"dog,a canine\n" + // 3
		"cat,chat\n" + // 4: same as 2 in another case
		"caf\u00e9,coffee shop\n" + // 5: in the deck (NFD there)
		"CAT,le chat\n" + // 6: same as 2
		"fox,\n" // 7: refused
	p := parse(t, in, Options{Existing: []string{"cafe\u0301", "owl"}})
	require.Equal(t, []Row{
		{Entry: Entry{Term: "Cat", Meaning: "a feline"}, Line: 2, Key: "cat"},
		{Entry: Entry{Term: "dog", Meaning: "a canine"}, Line: 3, Key: "dog"},
		{Entry: Entry{Term: "cat", Meaning: "chat"}, Line: 4, Key: "cat", SameAs: 2},
		{Entry: Entry{Term: "caf\u00e9", Meaning: "coffee shop"}, Line: 5, Key: "caf\u00e9", InDeck: true},
		{Entry: Entry{Term: "CAT", Meaning: "le chat"}, Line: 6, Key: "cat", SameAs: 2},
	}, p.Rows)
	requireRefused(t, p, refusal{7, FieldMeaning, "empty"})

	_, err := p.Plan(Skip, false)
	require.ErrorIs(t, err, ErrRefused)
	_, err = p.Plan(Duplicates(7), true)
	require.ErrorIs(t, err, ErrOptions)

	skip, err := p.Plan(Skip, true)
	require.NoError(t, err)
	require.Equal(t, Plan{
		Add:  []Entry{{Term: "Cat", Meaning: "a feline"}, {Term: "dog", Meaning: "a canine"}},
		Left: []int{4, 5, 6, 7},
	}, skip)

	update, err := p.Plan(Update, true)
	require.NoError(t, err)
	require.Equal(t, Plan{
		Add:    []Entry{{Term: "CAT", Meaning: "le chat"}, {Term: "dog", Meaning: "a canine"}},
		Update: []Entry{{Term: "caf\u00e9", Meaning: "coffee shop"}},
		Left:   []int{2, 4, 7},
	}, update)
}

// Without refusals or duplicates the plan adds every row.
func TestPlanWithoutDuplicates(t *testing.T) {
	t.Parallel()
	p := parse(t, "chat\tcat\nchien\tdog\n", Options{})
	plan, err := p.Plan(Skip, false)
	require.NoError(t, err)
	require.Equal(t, Plan{Add: []Entry{{Term: "chat", Meaning: "cat"}, {Term: "chien", Meaning: "dog"}}}, plan)
}

// A deck holds at most MaxEntries entries, its own and the new ones.
func TestPlanRefusesAFullDeck(t *testing.T) {
	t.Parallel()
	existing := make([]string, MaxEntries-1)
	for i := range existing {
		existing[i] = fmt.Sprintf("word %d", i)
	}
	p := parse(t, "chat\tcat\nword 7\tseven\n", Options{Existing: existing})
	plan, err := p.Plan(Skip, false)
	require.NoError(t, err, "one new entry fills the deck")
	require.Len(t, plan.Add, 1)
	p = parse(t, "chat\tcat\nchien\tdog\n", Options{Existing: existing})
	_, err = p.Plan(Skip, false)
	require.ErrorIs(t, err, ErrTooManyEntries)
	require.ErrorContains(t, err, "the deck has 1999 entries and 2 would be added")

	var rows strings.Builder
	for i := range MaxEntries {
		fmt.Fprintf(&rows, "new %d\tm\n", i)
	}
	p = parse(t, rows.String(), Options{Existing: []string{"chat"}})
	_, err = p.Plan(Skip, false)
	require.ErrorContains(t, err, "the deck has 1 entry and 2000 would be added", "a count of one is singular")
}
