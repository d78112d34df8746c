package deckimport

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"

	"github.com/lexora-app/lexora/pkg/platform/text"
)

// fuzzOptions are the options FuzzParse picks from by its second argument.
var fuzzOptions = []Options{
	{},
	{Format: FormatList},
	{Format: FormatTable},
	{Format: FormatAnki},
	{Separator: SeparatorComma},
	{Separator: SeparatorTab},
	{Format: FormatList, Separator: SeparatorDash},
	{Format: FormatTable, Separator: SeparatorSemicolon},
	{Columns: map[string]Field{"a": FieldTerm, "b": FieldMeaning, "c": FieldExample}, Existing: []string{"Cat", "a"}},
}

// FuzzParse: Parse never panics; it answers a Preview or an *InputError;
// every accepted entry passes the text rules and the limits; and Export of
// the accepted entries reads back to the same entries.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"chat\tcat\nchien\tdog\n",
		"cat, a small animal, a pet\ndog; a canine\nfox - renard\n",
		"\ufeffTerm,Definition,Example,Part of speech\r\nephemeral,\"short, fleeting\",\"It was\r\nbrief.\",adj\r\n",
		"term,meaning\nf,\"6\ng,7\n\"cat\"s,x\n'=1,'-2\n",
		"a,b,c\nx,y,z\n",
		"#separator:tab\n#html:true\n#tags column:3\nchat\t<div>cat</div><br>&amp;<script>x</script>\tt\n{{c1::a::b}}\t[sound:x.mp3]y\n",
		"#separator:Pipe\n#columns:Back|Front\nb|a\n",
		"tags:x y\n#deck:D\n#separator:;;\na;b\n",
		"ca\u200bt\tchat\nabc\u202edef\tx\n",
		"Cat\tx\ncat\ty\nCAT\tz\n",
		"term,meaning,pos\ngive up,to stop,phrasal verb\nHaus,house,\"Noun (neuter), pl. Häuser\"\nrun,to move,Vb.\n",
	} {
		for i := range fuzzOptions {
			f.Add([]byte(seed), uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, input []byte, option uint8) {
		opts := fuzzOptions[int(option)%len(fuzzOptions)]
		p, err := Parse(input, opts)
		if err != nil {
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			require.Nil(t, p)
			return
		}
		lines := bytes.Count(input, []byte{'\n'}) + 1
		entries := make([]Entry, 0, len(p.Rows))
		for _, r := range p.Rows {
			requireEntry(t, r.Entry)
			require.Equal(t, Key(r.Term), r.Key)
			require.True(t, r.Line >= 1 && r.Line <= lines, "line %d of %d", r.Line, lines)
			require.Less(t, r.SameAs, r.Line)
			entries = append(entries, r.Entry)
		}
		for _, f := range p.Refused {
			require.True(t, f.Line >= 1 && f.Line <= lines, "refused line %d of %d", f.Line, lines)
			require.NotEmpty(t, f.Reason)
		}
		require.LessOrEqual(t, len(p.Rows)+len(p.Refused), MaxEntries*4)
		if len(entries) > 0 {
			requireRoundTrip(t, entries)
		}
		_, err = p.Plan(Update, true)
		require.NoError(t, err)
	})
}

// requireEntry checks that e is as Entry's doc says: trimmed, NFC, single
// lines passing text.CheckSingleLine, within the limits, term and meaning
// not empty, a part of speech of one line within its limit, normalised.
func requireEntry(t *testing.T, e Entry) {
	t.Helper()
	require.NotEmpty(t, e.Term)
	require.NotEmpty(t, e.Meaning)
	require.NoError(t, text.CheckSingleLine(e.Term), "%q", e.Term)
	require.LessOrEqual(t, utf8.RuneCountInString(e.Term), MaxTermRunes)
	require.LessOrEqual(t, utf8.RuneCountInString(e.Meaning), MaxMeaningRunes)
	require.LessOrEqual(t, utf8.RuneCountInString(e.Example), MaxExampleRunes)
	for _, s := range []string{e.Term, e.Meaning, e.Example} {
		require.True(t, norm.NFC.IsNormalString(s), "%q is not NFC", s)
		for _, l := range strings.Split(s, "\n") {
			if s == "" {
				continue
			}
			require.NoError(t, text.CheckSingleLine(l), "%q", l)
			require.Equal(t, strings.TrimSpace(l), l)
			require.NotEmpty(t, l, "a blank line in %q", s)
		}
	}
	pos := string(e.PartOfSpeech)
	require.NoError(t, text.CheckSingleLine(pos), "%q", pos)
	require.True(t, norm.NFC.IsNormalString(pos), "%q is not NFC", pos)
	require.Equal(t, strings.TrimSpace(pos), pos)
	require.LessOrEqual(t, utf8.RuneCountInString(pos), MaxPartOfSpeechRunes)
	require.Equal(t, e.PartOfSpeech, NormalizePartOfSpeech(pos))
}

// The fuzz seeds' refusals are InputErrors, never bare errors.
func TestParseErrorsAreInputErrors(t *testing.T) {
	t.Parallel()
	for _, in := range [][]byte{nil, {0}, {0xff}, []byte("term,meaning\n")} {
		_, err := Parse(in, Options{})
		var ie *InputError
		require.ErrorAs(t, err, &ie, "%q", in)
	}
}
