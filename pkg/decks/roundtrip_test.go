package decks

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/deckimport"
)

// The editor's limits are the importer's, so what one stores the other reads.
func TestEditorAndImporterShareLimits(t *testing.T) {
	t.Parallel()
	require.Equal(t, []int{MaxEntries, MaxTerm, MaxMeaning, MaxExample, MaxPartOfSpeech},
		[]int{deckimport.MaxEntries, deckimport.MaxTermRunes, deckimport.MaxMeaningRunes, deckimport.MaxExampleRunes, deckimport.MaxPartOfSpeechRunes})
}

// importedBack is what deckimport.Parse reads back from deckimport.Export
// of the entry the editor stored, as deckimport.Export documents it: a
// part of speech the importer knows by name or abbreviation in its
// canonical name ("Noun", "n." as "noun"), and a blank line inside a
// meaning or an example left out. Everything else is unchanged.
func importedBack(e EntryInput) deckimport.Entry {
	return deckimport.Entry{Term: e.Term, Meaning: withoutBlankLines(e.Meaning), Example: withoutBlankLines(e.Example),
		PartOfSpeech: deckimport.NormalizePartOfSpeech(e.PartOfSpeech)}
}

// withoutBlankLines is s without its empty lines.
func withoutBlankLines(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' }), "\n")
}

// requireImportsBack checks that the entries of ins the editor accepts
// (checkEntry), exported as ExportCSV exports a deck, import back as
// importedBack says, in order, none refused.
func requireImportsBack(t *testing.T, ins []EntryInput, msgAndArgs ...any) {
	t.Helper()
	var stored []deckimport.Entry
	var want []deckimport.Entry
	for i, in := range ins {
		e, err := checkEntry("add", i, in)
		if err != nil {
			continue
		}
		stored = append(stored, deckimport.Entry{Term: e.Term, Meaning: e.Meaning, Example: e.Example,
			PartOfSpeech: deckimport.PartOfSpeech(e.PartOfSpeech)})
		want = append(want, importedBack(e.EntryInput))
	}
	if len(stored) == 0 {
		return
	}
	var b bytes.Buffer
	require.NoError(t, deckimport.Export(&b, stored))
	p, err := deckimport.Parse(b.Bytes(), deckimport.Options{})
	require.NoError(t, err, msgAndArgs...)
	require.Empty(t, p.Refused, msgAndArgs...)
	require.Equal(t, deckimport.FormatTable, p.Format, msgAndArgs...)
	got := make([]deckimport.Entry, len(p.Rows))
	for i, r := range p.Rows {
		got[i] = r.Entry
	}
	require.Equal(t, want, got, msgAndArgs...)
}

// roundTripCases are entries as a teacher types them in the editor: free
// text parts of speech, quotes, separators, line breaks, and cells that
// Export neutralises against CSV injection.
var roundTripCases = []EntryInput{
	{Term: "give up", Meaning: "to stop trying", Example: "Don't give up now.", PartOfSpeech: "phrasal verb"},
	{Term: "Haus", Meaning: "house", PartOfSpeech: "Noun (neuter), pl. Häuser"},
	{Term: "sein", Meaning: "to be", PartOfSpeech: "Verb (irregular)"},
	{Term: "run", Meaning: "to move fast", PartOfSpeech: "noun"},
	{Term: "\"quoted\"", Meaning: "a, b; c\td | e - f", Example: "She said \"hi\",\nthen left."},
	{Term: "=1+1", Meaning: "+44 20 7946 0000", Example: "-3 degrees", PartOfSpeech: "@tag"},
	{Term: "'til", Meaning: "'=already neutral", Example: "''-twice", PartOfSpeech: "-ing form"},
	{Term: "-ing", Meaning: "a line\r\nand another\nand a third", Example: "@home\n=not a formula"},
	{Term: "term", Meaning: "meaning", Example: "example", PartOfSpeech: "part_of_speech"},
	{Term: "#hash", Meaning: "<script>alert(1)</script> &amp;", PartOfSpeech: "interj."},
	{Term: "  café  ", Meaning: "  coffee  \n  shop  ", PartOfSpeech: "  n.  "},
}

// Entries the editor accepts import back from their export as they were
// stored, but for the changes importedBack names.
func TestExportImportsBackWhatTheEditorStores(t *testing.T) {
	t.Parallel()
	requireImportsBack(t, roundTripCases)
	// The free-text parts of speech come back as typed.
	var b bytes.Buffer
	require.NoError(t, deckimport.Export(&b, []deckimport.Entry{{Term: "give up", Meaning: "to stop", PartOfSpeech: "phrasal verb"}}))
	p, err := deckimport.Parse(b.Bytes(), deckimport.Options{})
	require.NoError(t, err)
	require.Empty(t, p.Refused)
	require.Equal(t, deckimport.PartOfSpeech("phrasal verb"), p.Rows[0].PartOfSpeech)
	// A blank line inside a meaning is the one change of the text.
	requireImportsBack(t, []EntryInput{{Term: "a", Meaning: "first\n\nsecond"}})
	require.Equal(t, "first\nsecond", importedBack(EntryInput{Meaning: "first\n\nsecond"}).Meaning)
}

// editorText is a text of up to n runes from an alphabet of what Export and
// Parse treat apart: separators, quotes, apostrophes, the CSV-injection
// triggers, line breaks (lines only), letters that NFC changes, emoji.
func editorText(r *rand.Rand, n int, lines bool) string {
	alphabet := []string{"a", "Z", " ", ",", ";", "\t", "|", "\"", "'", "=", "+", "-", "@", "#", "<b>", "é", "e\u0301", "ß", "日本", "👍", "0", ".", "noun", "n.", "phrasal verb"}
	if lines {
		alphabet = append(alphabet, "\n", "\r\n")
	}
	var b strings.Builder
	for range r.IntN(n + 1) {
		b.WriteString(alphabet[r.IntN(len(alphabet))])
	}
	return b.String()
}

// Random entries the editor accepts import back from their export (a
// property test).
func TestExportImportsBackRandomEditorEntries(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(26, 3))
	for round := range 300 {
		ins := make([]EntryInput, 1+r.IntN(20))
		for i := range ins {
			ins[i] = EntryInput{Term: editorText(r, 8, false), Meaning: editorText(r, 30, true),
				Example: editorText(r, 20, true), PartOfSpeech: editorText(r, 4, false)}
		}
		requireImportsBack(t, ins, "round %d", round)
	}
}

// FuzzExportImportsBack: any entry the editor accepts imports back from
// its export as importedBack says.
func FuzzExportImportsBack(f *testing.F) {
	for _, c := range roundTripCases {
		f.Add(c.Term, c.Meaning, c.Example, c.PartOfSpeech)
	}
	f.Fuzz(func(t *testing.T, term, meaning, example, pos string) {
		requireImportsBack(t, []EntryInput{{Term: term, Meaning: meaning, Example: example, PartOfSpeech: pos}})
	})
}
