package deckimport

import (
	"bytes"
	"fmt"
	"testing"
)

// benchDeck is a deck of MaxEntries entries of a typical length: a word, a
// definition of about 100 characters and an example sentence.
func benchDeck() []Entry {
	entries := make([]Entry, MaxEntries)
	for i := range entries {
		entries[i] = Entry{
			Term:         fmt.Sprintf("word%d", i),
			Meaning:      fmt.Sprintf("the %dth meaning, which a teacher wrote in a sentence of about a hundred characters, more or less", i),
			Example:      fmt.Sprintf("An example of word%d in a sentence.", i),
			PartOfSpeech: Noun,
		}
	}
	return entries
}

// BenchmarkParse reads a CSV export of MaxEntries entries (about 0.3 MB).
func BenchmarkParse(b *testing.B) {
	benchParse(b, benchDeck())
}

// benchParse reads the CSV export of entries (MaxEntries of them) once per
// iteration.
func benchParse(b *testing.B, entries []Entry) {
	var buf bytes.Buffer
	if err := Export(&buf, entries); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	for b.Loop() {
		p, err := Parse(buf.Bytes(), Options{})
		if err != nil || len(p.Rows) != MaxEntries {
			b.Fatalf("%v, %d rows", err, len(p.Rows))
		}
	}
}

// BenchmarkExport writes MaxEntries entries as CSV.
func BenchmarkExport(b *testing.B) {
	entries := benchDeck()
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := Export(&buf, entries); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}

// BenchmarkParseLargest reads the export of the largest deck the deck
// editor saves (largestDeck: about 3.5 MB).
func BenchmarkParseLargest(b *testing.B) {
	benchParse(b, largestDeck())
}
