package deckimport

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestExport(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, Export(&b, []Entry{
		{Term: "chat", Meaning: "cat, a feline\nsmall", Example: "Le \"chat\" dort.", PartOfSpeech: Noun},
		{Term: "=HYPERLINK(\"http://evil\")", Meaning: "+1", Example: "@SUM(A1)", PartOfSpeech: ""},
		{Term: "-ing", Meaning: "-3", Example: "'=already", PartOfSpeech: ""},
	}))
	require.Equal(t, "\ufeffterm,meaning,example,part_of_speech\r\n"+
		"chat,\"cat, a feline\r\nsmall\",\"Le \"\"chat\"\" dort.\",noun\r\n"+
		"\"'=HYPERLINK(\"\"http://evil\"\")\",'+1,'@SUM(A1),\r\n"+
		"'-ing,'-3,''=already,\r\n", b.String())
}

func TestWriteCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	require.NoError(t, WriteCSV(&b, [][]string{
		{"learner", "Unit 3: reviewed", "Unit 3: retention"},
		{"=cmd|' /C calc'!A0", "12", "-0.5"},
		{"@Ada", "+7", "90%"},
		{"\tTab", "\rCR", "-1+1"},
	}))
	require.Equal(t, "\ufefflearner,Unit 3: reviewed,Unit 3: retention\r\n"+
		"'=cmd|' /C calc'!A0,12,'-0.5\r\n"+
		"'@Ada,'+7,90%\r\n"+
		"'\tTab,\"'CR\",'-1+1\r\n", b.String())
}

// failingWriter fails every write.
type failingWriter struct{}

var errWrite = errors.New("disk full")

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestExportReportsWriteErrors(t *testing.T) {
	t.Parallel()
	require.ErrorIs(t, Export(failingWriter{}, []Entry{{Term: "a", Meaning: "b"}}), errWrite)
	require.ErrorIs(t, WriteCSV(failingWriter{}, nil), errWrite)
}

// randomText is a text of up to n runes from an alphabet that holds every
// character Export and Parse treat apart: separators, quotes, apostrophes
// and the CSV-injection triggers, a line break (lines only), letters that
// NFC and case folding change, emoji and scripts other than Latin.
func randomText(r *rand.Rand, n int, lines bool) string {
	alphabet := []string{"a", "Z", " ", ",", ";", "\t", "|", "\"", "'", "=", "+", "-", "@", "#", "<b>", "&amp;", "é", "ß", "Σ", "日本", "👍", "0", "9", "."}
	if lines {
		alphabet = append(alphabet, "\n", "\r\n")
	}
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// Any entries that pass the text rules come back from Parse(Export(...))
// unchanged and in order (a property test over random entries).
func TestExportRoundTrip(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(26, 2026))
	posList := []PartOfSpeech{"", Noun, Verb, Adjective, Phrase, "phrasal verb", "Noun (neuter)", "-ing form"}
	for round := range 300 {
		var entries []Entry
		for range 1 + r.IntN(20) {
			c := cells{
				FieldTerm:         randomText(r, 12, false),
				FieldMeaning:      randomText(r, 40, true),
				FieldExample:      randomText(r, 30, true),
				FieldPartOfSpeech: string(posList[r.IntN(len(posList))]),
			}
			if e, _ := entry(1, c); e != nil {
				entries = append(entries, *e)
			}
		}
		if len(entries) == 0 {
			continue
		}
		requireRoundTrip(t, entries, "round %d", round)
	}
}

// requireRoundTrip checks that Parse reads Export(entries) back to entries.
func requireRoundTrip(t *testing.T, entries []Entry, msgAndArgs ...any) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, Export(&b, entries))
	p, err := Parse(b.Bytes(), Options{})
	require.NoError(t, err, msgAndArgs...)
	require.Empty(t, p.Refused, msgAndArgs...)
	require.Equal(t, FormatTable, p.Format, msgAndArgs...)
	got := make([]Entry, len(p.Rows))
	for i, r := range p.Rows {
		got[i] = r.Entry
	}
	require.Equal(t, entries, got, msgAndArgs...)
}

// Terms that look like the header or a formula, or begin with apostrophes,
// survive the round trip.
func TestExportRoundTripEdges(t *testing.T) {
	t.Parallel()
	requireRoundTrip(t, []Entry{
		{Term: "term", Meaning: "meaning", Example: "example", PartOfSpeech: Noun},
		{Term: "=1+1", Meaning: "'=1+1", Example: "''-x"},
		{Term: "'til", Meaning: "-5", Example: "+44 20 7946 0000"},
		{Term: "#tag", Meaning: "a line\nand another", PartOfSpeech: "phrasal verb"},
		{Term: "\"quoted\"", Meaning: "a, b; c\td"[:7]},
	})
}

// largestDeck is a deck of MaxEntries entries of the longest term,
// meaning, example and part of speech, in Latin letters (one byte each).
func largestDeck() []Entry {
	long := func(prefix string, n int) string { return prefix + strings.Repeat("a", n-len(prefix)) }
	entries := make([]Entry, MaxEntries)
	for i := range entries {
		entries[i] = Entry{Term: long(fmt.Sprintf("w%d ", i), MaxTermRunes), Meaning: long("m ", MaxMeaningRunes),
			Example: long("e ", MaxExampleRunes), PartOfSpeech: PartOfSpeech(long("p ", MaxPartOfSpeechRunes))}
	}
	return entries
}

// Every deck the deck editor can save reads back from its export in one
// Parse: the largest, in Latin script, is about 3.5 MB.
func TestLargestDeckReadsBack(t *testing.T) {
	t.Parallel()
	entries := largestDeck()
	var b bytes.Buffer
	require.NoError(t, Export(&b, entries))
	// A BOM and the header, then per entry its four texts, three commas and CRLF.
	require.Equal(t, 3+len("term,meaning,example,part_of_speech\r\n")+
		MaxEntries*(MaxTermRunes+MaxMeaningRunes+MaxExampleRunes+MaxPartOfSpeechRunes+3+2), b.Len())
	require.InDelta(t, 3.5e6, b.Len(), 0.02e6)
	require.LessOrEqual(t, b.Len(), MaxInputBytes)
	p, err := Parse(b.Bytes(), Options{})
	require.NoError(t, err)
	require.Empty(t, p.Refused)
	require.Len(t, p.Rows, MaxEntries)
	for i, r := range p.Rows {
		require.Equal(t, entries[i], r.Entry)
	}
}
