package deckimport

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// row is an accepted row as the tests write it: line, term, meaning,
// example, part of speech.
type row struct {
	line                   int
	term, meaning, example string
	pos                    PartOfSpeech
}

// rows is p's accepted rows as the tests write them.
func rows(p *Preview) []row {
	out := []row{}
	for _, r := range p.Rows {
		out = append(out, row{r.Line, r.Term, r.Meaning, r.Example, r.PartOfSpeech})
	}
	return out
}

// refusal is a refusal as the tests write it: line, field and a part of the
// reason.
type refusal struct {
	line   int
	field  Field
	reason string
}

// requireRefused checks that p's refusals are want, in order, each reason
// holding want's text.
func requireRefused(t *testing.T, p *Preview, want ...refusal) {
	t.Helper()
	require.Len(t, p.Refused, len(want), "refused: %+v", p.Refused)
	for i, w := range want {
		got := p.Refused[i]
		require.Equal(t, w.line, got.Line, "refusal %d: %+v", i, got)
		require.Equal(t, w.field, got.Field, "refusal %d: %+v", i, got)
		require.Contains(t, got.Reason, w.reason, "refusal %d", i)
	}
}

// parse is Parse of in with opts, failing the test on an error.
func parse(t *testing.T, in string, opts Options) *Preview {
	t.Helper()
	p, err := Parse([]byte(in), opts)
	require.NoError(t, err)
	return p
}

func TestParseList(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		in        string
		opts      Options
		sep       Separator
		ambiguous bool
		want      []row
		refused   []refusal
	}{
		{
			// Quizlet's "Export" with its defaults (tab between term and
			// definition, a new line between rows); commas and semicolons in
			// the definitions do not count, even in every line.
			name: "quizlet export",
			in: "la pomme\tapple, the fruit\n" +
				"le chat\tcat; a small, domesticated feline\n" +
				"la maison\thouse, home\n" +
				"l'eau (f.)\twater, a liquid\n",
			sep: SeparatorTab,
			want: []row{
				{1, "la pomme", "apple, the fruit", "", ""},
				{2, "le chat", "cat; a small, domesticated feline", "", ""},
				{3, "la maison", "house, home", "", ""},
				{4, "l'eau (f.)", "water, a liquid", "", ""},
			},
		},
		{
			name: "comma list, commas in meanings",
			in:   "cat, a small animal, often a pet\ndog, a domesticated canine\r\n\r\nfox, a wild animal; cunning\n",
			sep:  SeparatorComma,
			want: []row{{1, "cat", "a small animal, often a pet", "", ""}, {2, "dog", "a domesticated canine", "", ""}, {4, "fox", "a wild animal; cunning", "", ""}},
		},
		{
			name: "semicolon list",
			in:   "Hund;dog, hound\nKatze;cat\n",
			sep:  SeparatorSemicolon,
			want: []row{{1, "Hund", "dog, hound", "", ""}, {2, "Katze", "cat", "", ""}},
		},
		{
			name: "dash list",
			in:   "well-being - the state of being comfortable\nephemeral - lasting a very short time\n",
			sep:  SeparatorDash,
			want: []row{{1, "well-being", "the state of being comfortable", "", ""}, {2, "ephemeral", "lasting a very short time", "", ""}},
		},
		{
			// Every line has a dash and a comma: the dash comes first in
			// each, so it separates, and the teacher is asked.
			name:      "ambiguous: dash before comma",
			in:        "big - large, huge\nsmall - little, tiny\n",
			sep:       SeparatorDash,
			ambiguous: true,
			want:      []row{{1, "big", "large, huge", "", ""}, {2, "small", "little, tiny", "", ""}},
		},
		{
			name:      "ambiguous: semicolon before comma",
			in:        "run; to move fast, on foot\nwalk; to move, slowly\n",
			sep:       SeparatorSemicolon,
			ambiguous: true,
			want:      []row{{1, "run", "to move fast, on foot", "", ""}, {2, "walk", "to move, slowly", "", ""}},
		},
		{
			name: "forced separator",
			in:   "big - large, huge\n",
			opts: Options{Separator: SeparatorComma},
			sep:  SeparatorComma,
			want: []row{{1, "big - large", "huge", "", ""}},
		},
		{
			name: "a custom separator",
			in:   "chat => cat\nchien => dog\n",
			opts: Options{Format: FormatList, Separator: " => "},
			sep:  " => ",
			want: []row{{1, "chat", "cat", "", ""}, {2, "chien", "dog", "", ""}},
		},
		{
			name:    "a line without the separator",
			in:      "chat\tcat\nchien\nloup\twolf\n",
			sep:     SeparatorTab,
			want:    []row{{1, "chat", "cat", "", ""}, {3, "loup", "wolf", "", ""}},
			refused: []refusal{{2, FieldLine, "no tab between the term and the meaning"}},
		},
		{
			// Quotes and HTML in a list are text, shown as written.
			name: "quotes and html are text",
			in:   "\"hi\", said she\tgreeting\n<b>bold</b>\t<script>alert(1)</script>\n",
			sep:  SeparatorTab,
			want: []row{{1, "\"hi\", said she", "greeting", "", ""}, {2, "<b>bold</b>", "<script>alert(1)</script>", "", ""}},
		},
		{
			// Excel's CSV of two columns without a header row quotes the
			// cells that hold a comma or a quote.
			name: "a spreadsheet csv without a header",
			in:   "cat,\"a small animal, often a pet\"\r\n\"big, large\",grande\r\nsay,\"to speak; \"\"say it\"\"\"\r\ndog,a canine\r\n",
			sep:  SeparatorComma,
			want: []row{{1, "cat", "a small animal, often a pet", "", ""}, {2, "big, large", "grande", "", ""}, {3, "say", "to speak; \"say it\"", "", ""}, {4, "dog", "a canine", "", ""}},
		},
		{
			name:    "a third column is refused, asking for a header",
			in:      "chat\tcat\tanimal\n",
			sep:     SeparatorTab,
			want:    []row{},
			refused: []refusal{{1, FieldLine, "line 1 has 3 columns separated by tabs"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := parse(t, tc.in, tc.opts)
			require.Equal(t, FormatList, p.Format)
			require.Equal(t, tc.sep, p.Separator)
			require.Equal(t, tc.ambiguous, p.Ambiguous)
			require.Equal(t, tc.want, rows(p))
			requireRefused(t, p, tc.refused...)
		})
	}
}

func TestParseTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		opts    Options
		sep     Separator
		columns []Column
		want    []row
		refused []refusal
	}{
		{
			// Excel's "CSV UTF-8" and Google Sheets' download: a byte-order
			// mark, CRLF, quotes around cells with commas, quotes or line
			// breaks.
			name: "spreadsheet csv with bom and crlf",
			in: "\ufeffTerm,Definition,Example,Part of speech\r\n" +
				"ephemeral,\"lasting a very short time, fleeting\",\"Fame is ephemeral.\",adj.\r\n" +
				"\"quote\",\"to repeat words; \"\"like this\"\"\",,verb\r\n" +
				"serendipity,\"luck in finding\r\nwhat one did not seek\",\"A happy\r\n\r\naccident.\",N\r\n" +
				",,,\r\n" +
				"café,coffee shop,,\r\n",
			sep:     SeparatorComma,
			columns: []Column{{"Term", FieldTerm}, {"Definition", FieldMeaning}, {"Example", FieldExample}, {"Part of speech", FieldPartOfSpeech}},
			want: []row{
				{2, "ephemeral", "lasting a very short time, fleeting", "Fame is ephemeral.", Adjective},
				{3, "quote", "to repeat words; \"like this\"", "", Verb},
				{4, "serendipity", "luck in finding\nwhat one did not seek", "A happy\naccident.", Noun},
				{9, "café", "coffee shop", "", ""},
			},
		},
		{
			name:    "tsv with synonyms of the column names",
			in:      "Word\tTranslation\tPOS\tNotes\nHund\tdog\tnoun\tmasculine\nlaufen\tto run\tv\t\n",
			sep:     SeparatorTab,
			columns: []Column{{"Word", FieldTerm}, {"Translation", FieldMeaning}, {"POS", FieldPartOfSpeech}, {"Notes", FieldNone}},
			want:    []row{{2, "Hund", "dog", "", Noun}, {3, "laufen", "to run", "", Verb}},
		},
		{
			// The deck editor's free text comes back as typed; the names
			// and abbreviations the importer knows are normalised.
			name: "free-text parts of speech",
			in: "term,meaning,part_of_speech\ngive up,to stop trying,phrasal verb\n" +
				"Haus,house,\"Noun (neuter), pl. Häuser\"\nrun,to move fast,  Vb.  \nsein,to be,Verb (irregular)\n",
			sep:     SeparatorComma,
			columns: []Column{{"term", FieldTerm}, {"meaning", FieldMeaning}, {"part_of_speech", FieldPartOfSpeech}},
			want: []row{
				{2, "give up", "to stop trying", "", "phrasal verb"},
				{3, "Haus", "house", "", "Noun (neuter), pl. Häuser"},
				{4, "run", "to move fast", "", Verb},
				{5, "sein", "to be", "", "Verb (irregular)"},
			},
		},
		{
			// Excel in a locale with a decimal comma writes semicolons.
			name:    "semicolon csv",
			in:      "front;back\nla pomme;apple, the fruit\n",
			sep:     SeparatorSemicolon,
			columns: []Column{{"front", FieldTerm}, {"back", FieldMeaning}},
			want:    []row{{2, "la pomme", "apple, the fruit", "", ""}},
		},
		{
			name:    "a caller's column mapping",
			in:      "Español,English,Frase\nperro,dog,El perro ladra.\n",
			opts:    Options{Columns: map[string]Field{"español": FieldTerm, "ENGLISH": FieldMeaning, "frase": FieldExample}},
			sep:     SeparatorComma,
			columns: []Column{{"Español", FieldTerm}, {"English", FieldMeaning}, {"Frase", FieldExample}},
			want:    []row{{2, "perro", "dog", "El perro ladra.", ""}},
		},
		{
			name:    "a mapping overrides a known name",
			in:      "term,definition,meaning\ncat,a feline,chat\n",
			opts:    Options{Format: FormatTable, Columns: map[string]Field{"definition": FieldNone}},
			sep:     SeparatorComma,
			columns: []Column{{"term", FieldTerm}, {"definition", FieldNone}, {"meaning", FieldMeaning}},
			want:    []row{{2, "cat", "chat", "", ""}},
		},
		{
			name:    "more cells than the header",
			in:      "term,meaning\ncat,chat\ndog,chien,extra\nfox,renard,,\n",
			sep:     SeparatorComma,
			columns: []Column{{"term", FieldTerm}, {"meaning", FieldMeaning}},
			want:    []row{{2, "cat", "chat", "", ""}, {4, "fox", "renard", "", ""}},
			refused: []refusal{{3, FieldLine, "3 cells, but the header names 2 columns"}},
		},
		{
			// The case: an unbalanced quote on line 7 is refused
			// there, and the rows after it are still read.
			name: "unbalanced quote on line 7",
			in: "term,meaning\n" + "a,1\n" + "b,2\n" + "c,3\n" + "d,4\n" + "e,5\n" +
				"f,\"6\n" + "g,7\n" + "h,8\n",
			sep:     SeparatorComma,
			columns: []Column{{"term", FieldTerm}, {"meaning", FieldMeaning}},
			want:    []row{{2, "a", "1", "", ""}, {3, "b", "2", "", ""}, {4, "c", "3", "", ""}, {5, "d", "4", "", ""}, {6, "e", "5", "", ""}, {8, "g", "7", "", ""}, {9, "h", "8", "", ""}},
			refused: []refusal{{7, FieldLine, "unbalanced quote"}},
		},
		{
			name:    "a bare quote and text after a closing quote",
			in:      "term,meaning\nsay,he said \"hi\"\n\"cat\"s,chat\ndog,chien\n",
			sep:     SeparatorComma,
			columns: []Column{{"term", FieldTerm}, {"meaning", FieldMeaning}},
			want:    []row{{4, "dog", "chien", "", ""}},
			refused: []refusal{{2, FieldLine, "a quote (\") inside a cell that does not start with one (line 2, column 13)"}, {3, FieldLine, "unbalanced quote (\") at column 5"}},
		},
		{
			// What Export neutralised gets its apostrophe back; other
			// apostrophes stay.
			name:    "csv injection apostrophes",
			in:      "term,meaning\n'-ing,a suffix\n'til,until\n''=x,'@home\n",
			sep:     SeparatorComma,
			columns: []Column{{"term", FieldTerm}, {"meaning", FieldMeaning}},
			want:    []row{{2, "-ing", "a suffix", "", ""}, {3, "'til", "until", "", ""}, {4, "'=x", "@home", "", ""}},
		},
		{
			// A table the teacher says is one, whose header Lexora does not
			// know: its first columns are the term and the meaning, for the
			// preview to show and the teacher to map.
			name:    "a forced table whose header names no known column",
			in:      "Wort,Bedeutung,Beispiel\nHund,dog,Der Hund bellt.\n",
			opts:    Options{Format: FormatTable},
			sep:     SeparatorComma,
			columns: []Column{{"Wort", FieldTerm}, {"Bedeutung", FieldMeaning}, {"Beispiel", FieldNone}},
			want:    []row{{2, "Hund", "dog", "", ""}},
		},
		{
			name:    "a forced table's unknown columns mapped by the teacher",
			in:      "Bedeutung;Wort;Beispiel;Notiz\ndog;Hund;Der Hund bellt.;m\n",
			opts:    Options{Format: FormatTable, Columns: map[string]Field{"wort": FieldTerm, "Bedeutung": FieldMeaning, "Beispiel": FieldExample}},
			sep:     SeparatorSemicolon,
			columns: []Column{{"Bedeutung", FieldMeaning}, {"Wort", FieldTerm}, {"Beispiel", FieldExample}, {"Notiz", FieldNone}},
			want:    []row{{2, "Hund", "dog", "Der Hund bellt.", ""}},
		},
		{
			// A column the teacher leaves out is not taken as the term.
			name:    "a forced table with a column mapped to none",
			in:      "Nr\tWort\tBedeutung\n1\tHund\tdog\n",
			opts:    Options{Format: FormatTable, Columns: map[string]Field{"Nr": FieldNone}},
			sep:     SeparatorTab,
			columns: []Column{{"Nr", FieldNone}, {"Wort", FieldTerm}, {"Bedeutung", FieldMeaning}},
			want:    []row{{2, "Hund", "dog", "", ""}},
		},
		{
			name:    "a header with a quoted line-ending cell refuses nothing else",
			in:      "term|meaning\ncat|chat\n",
			sep:     SeparatorPipe,
			columns: []Column{{"term", FieldTerm}, {"meaning", FieldMeaning}},
			want:    []row{{2, "cat", "chat", "", ""}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := parse(t, tc.in, tc.opts)
			require.Equal(t, FormatTable, p.Format)
			require.Equal(t, tc.sep, p.Separator)
			require.Equal(t, tc.columns, p.Columns)
			require.Equal(t, tc.want, rows(p))
			requireRefused(t, p, tc.refused...)
		})
	}
}

func TestParseAnki(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      string
		opts    Options
		sep     Separator
		html    bool
		title   string
		want    []row
		refused []refusal
	}{
		{
			// What Anki 23+ writes for "Notes in Plain Text" with HTML,
			// note type, deck and tags included (export.rs).
			name: "anki notes export with html",
			in: "#separator:tab\n#html:true\n#notetype column:1\n#deck column:2\n#tags column:5\n" +
				"Basic\tFrench::Unit 3\tle chat\t<div>cat</div><div>a small <b>feline</b>&nbsp;&amp; pet</div>\tanimals\n" +
				"Basic\tFrench::Unit 3\tle chien<br>\t\"dog<img src=\"\"dog.jpg\"\"> [sound:chien.mp3]\"\tanimals\n" +
				"Basic\tFrench::Unit 3\t\"le \"\"loup\"\"\"\t\"wolf<script>alert('x')</script><style>p{}</style>\"\t\n" +
				"Cloze\tFrench::Unit 3\t{{c1::la souris::animal}}\tmouse\t\n",
			sep:  SeparatorTab,
			html: true,
			want: []row{
				{6, "le chat", "cat\na small feline & pet", "", ""},
				{7, "le chien", "dog", "", ""},
				{8, "le \"loup\"", "wolf", "", ""},
				{9, "la souris", "mouse", "", ""},
			},
		},
		{
			name:  "comma by name, columns and deck",
			in:    "#separator:Comma\n#columns:Front,Back,Example\n#deck:Spanish\n# a comment\nperro,dog,El perro ladra.\ngato,cat,\"Un gato, dos gatos.\"\n",
			sep:   SeparatorComma,
			title: "Spanish",
			want:  []row{{5, "perro", "dog", "El perro ladra.", ""}, {6, "gato", "cat", "Un gato, dos gatos.", ""}},
		},
		{
			// The separator as a character; Anki trims a header line that
			// was exported as a record ("#separator:;;;").
			name: "semicolon literal and a trailing record",
			in:   "#separator:;;;\n#html:false\nHund;<b>dog</b>\n",
			sep:  SeparatorSemicolon,
			want: []row{{3, "Hund", "<b>dog</b>", "", ""}},
		},
		{
			name: "pipe, html detected",
			in:   "#separator:Pipe\nchat|cat<br>feline\n",
			sep:  SeparatorPipe,
			html: true,
			want: []row{{2, "chat", "cat\nfeline", "", ""}},
		},
		{
			name: "space",
			in:   "#separator:space\n#html:FALSE\nchat cat\n",
			sep:  SeparatorSpace,
			want: []row{{3, "chat", "cat", "", ""}},
		},
		{
			name: "no separator line: detected",
			in:   "#html:false\nchat\tcat, feline\n",
			sep:  SeparatorTab,
			want: []row{{2, "chat", "cat, feline", "", ""}},
		},
		{
			name: "forced separator overrides the file's",
			in:   "#separator:tab\nchat;cat\n",
			opts: Options{Separator: SeparatorSemicolon},
			sep:  SeparatorSemicolon,
			want: []row{{2, "chat", "cat", "", ""}},
		},
		{
			name:    "more cells than #columns",
			in:      "#separator:tab\n#columns:Front\tBack\nchat\tcat\nchien\tdog\textra\n",
			sep:     SeparatorTab,
			want:    []row{{3, "chat", "cat", "", ""}},
			refused: []refusal{{4, FieldLine, "more cells than the #columns line names"}},
		},
		{
			name: "legacy tags line, notetype, columns with a tags column",
			in:   "tags:french unit3\n#notetype:Basic (and reversed card)\n#separator:Semicolon\n#columns:Tags;Front;Back\n#tags column:1\nx;chat;cat\n",
			sep:  SeparatorSemicolon,
			want: []row{{6, "chat", "cat", "", ""}},
		},
		{
			// Anki's own reader lets a stray quote through; Lexora refuses
			// the row and says why.
			name:    "a stray quote",
			in:      "#separator:tab\n#html:true\nchat\t<span class=\"x\">cat</span>\nchien\tdog\n",
			sep:     SeparatorTab,
			html:    true,
			want:    []row{{4, "chien", "dog", "", ""}},
			refused: []refusal{{3, FieldLine, "a quote (\") inside a cell that does not start with one (line 3, column 18)"}},
		},
		{
			name:    "html that reduces to nothing",
			in:      "#separator:tab\n#html:true\n<img src=a.png>\tpicture\n",
			sep:     SeparatorTab,
			html:    true,
			want:    []row{},
			refused: []refusal{{3, FieldTerm, "the term is empty"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := parse(t, tc.in, tc.opts)
			require.Equal(t, FormatAnki, p.Format)
			require.Equal(t, tc.sep, p.Separator)
			require.Equal(t, tc.html, p.HTML)
			require.Equal(t, tc.title, p.Title)
			require.Equal(t, tc.want, rows(p))
			requireRefused(t, p, tc.refused...)
		})
	}
}

// A first line that only looks like a header is not one.
func TestParseDetectsFormat(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]Format{
		"#hashtag\ta word with a hash\n":     FormatList,
		"#separator:tab\nchat\tcat\n":        FormatAnki,
		"word,a unit of language\n":          FormatList,
		"word,meaning\ncat,chat\n":           FormatTable,
		"Term\tDefinition\ncat\tchat\n":      FormatTable,
		"term - meaning\ncat - chat\n":       FormatList,
		"\ufeff#html:true\nchat\t<b>cat</b>": FormatAnki,
	} {
		p := parse(t, in, Options{})
		require.Equal(t, want, p.Format, "%q", in)
	}
}

func TestParseRefusesRows(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 10_000)
	for _, tc := range []struct {
		name string
		in   string
		want refusal
	}{
		{"empty term", "term,meaning\n  ,chat\n", refusal{2, FieldTerm, "the term is empty"}},
		{"empty meaning", "cat\t \n", refusal{1, FieldMeaning, "the meaning is empty"}},
		{"a term of 10,000 characters", long + "\tx\n", refusal{1, FieldTerm, "the term is 10000 characters long; at most 200 are allowed"}},
		{"a term of 201 characters", strings.Repeat("é", 201) + "\tx\n", refusal{1, FieldTerm, "at most 200"}},
		{"a meaning of 1,001 characters", "x\t" + strings.Repeat("m", 1001) + "\n", refusal{1, FieldMeaning, "the meaning is 1001 characters long; at most 1000"}},
		{"an example of 501 characters", "term,meaning,example\nx,y," + strings.Repeat("e", 501) + "\n", refusal{2, FieldExample, "the example is 501 characters long; at most 500"}},
		{"right-to-left override in a term", "abc\u202edef\tx\n", refusal{1, FieldTerm, "U+202E RIGHT-TO-LEFT OVERRIDE is not allowed"}},
		{"zero-width space in a term", "ca\u200bt\tchat\n", refusal{1, FieldTerm, "U+200B ZERO WIDTH SPACE is not allowed"}},
		{"a byte-order mark inside a meaning", "cat\tch\ufeffat\n", refusal{1, FieldMeaning, "U+FEFF ZERO WIDTH NO-BREAK SPACE is not allowed"}},
		{"a line break in a term", "term,meaning\n\"ca\nt\",chat\n", refusal{2, FieldTerm, "U+000A (a control character) is not allowed"}},
		{"a control character on line 2 of a meaning", "term,meaning\ncat,\"chat\nfé\u0007line\"\n", refusal{2, FieldMeaning, "line 2 of the meaning must be one line of visible text: U+0007 (a control character)"}},
		{"a part of speech of 51 characters", "term,meaning,pos\ncat,chat," + strings.Repeat("p", 51) + "\n", refusal{2, FieldPartOfSpeech, "the part of speech is 51 characters long; at most 50 are allowed"}},
		{"a line break in a part of speech", "term,meaning,pos\ncat,chat,\"noun\nverb\"\n", refusal{2, FieldPartOfSpeech, "U+000A (a control character) is not allowed"}},
		{"zero-width space in a part of speech", "term,meaning,pos\ncat,chat,no\u200bun\n", refusal{2, FieldPartOfSpeech, "U+200B ZERO WIDTH SPACE is not allowed"}},
		{"a lone surrogate's replacement", "cat\tch\ufffdat\n", refusal{1, FieldMeaning, "U+FFFD REPLACEMENT CHARACTER is not allowed"}},
		{"a third column in a tab list", "\n\ncat\tchat\tLe chat dort.\n", refusal{3, FieldLine, "line 3 has 3 columns separated by tabs, and a list has 2 (term, meaning): add a header row naming them (term, meaning, example, part_of_speech) and choose the table format"}},
		{"a fourth column in a tab list", "cat\tchat\t\tnoun\n", refusal{1, FieldLine, "line 1 has 4 columns separated by tabs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := parse(t, tc.in, Options{})
			require.Empty(t, p.Rows)
			requireRefused(t, p, tc.want)
		})
	}
	// A row wrong in two fields is refused for both.
	p := parse(t, "term,meaning\n\u202ex,\n", Options{})
	requireRefused(t, p, refusal{2, FieldTerm, "RIGHT-TO-LEFT OVERRIDE"}, refusal{2, FieldMeaning, "empty"})
}

// Text is saved trimmed and in NFC; HTML and script in a meaning are text.
func TestParseNormalises(t *testing.T) {
	t.Parallel()
	p := parse(t, "term,meaning\n  cafe\u0301  ,\" <script>alert(1)</script> \"\n", Options{})
	require.Equal(t, []row{{2, "caf\u00e9", "<script>alert(1)</script>", "", ""}}, rows(p))
}

func TestParseRefusesInput(t *testing.T) {
	t.Parallel()
	entries := func(n int) string {
		var b strings.Builder
		b.WriteString("term,meaning\n")
		for i := range n {
			b.WriteString("w" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ",m\n")
		}
		return b.String()
	}
	anki := func(n int) string {
		return "#separator:comma\n#html:false\n" + strings.TrimPrefix(entries(n), "term,meaning\n")
	}
	list := func(n int) string { return strings.TrimPrefix(entries(n), "term,meaning\n") }
	utf16le := []byte{0xFF, 0xFE, 'c', 0, 'a', 0, 't', 0, '\t', 0, 'x', 0}
	utf16noBOM := []byte{}
	for _, c := range []byte("cat\tchat\ndog\tchien\n") {
		utf16noBOM = append(utf16noBOM, c, 0)
	}
	for _, tc := range []struct {
		name   string
		in     []byte
		opts   Options
		want   error
		line   int
		offset int
		text   string
	}{
		{name: "nothing", in: nil, want: ErrEmpty},
		{name: "white space", in: []byte(" \r\n\t\n"), want: ErrEmpty},
		{name: "a byte-order mark only", in: []byte("\ufeff"), want: ErrEmpty},
		{name: "a header only", in: []byte("term,meaning\r\n"), want: ErrEmpty},
		{name: "an Anki header only", in: []byte("#separator:tab\n#html:true\n"), want: ErrEmpty},
		{name: "10 MiB", in: []byte(strings.Repeat("cat\tchat\n", 10<<20/9+1)), want: ErrTooLarge},
		{name: "MaxInputBytes and a byte", in: []byte(strings.Repeat("a", MaxInputBytes-5) + "\tchat\n"), want: ErrTooLarge},
		{name: "a PNG", in: []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), want: ErrBinary, line: 3, offset: 8},
		{name: "an Anki package (zip)", in: []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00"), want: ErrBinary, line: 1, offset: 5},
		{name: "UTF-16 LE with a byte-order mark", in: utf16le, want: ErrUTF16},
		{name: "UTF-16 BE with a byte-order mark", in: []byte{0xFE, 0xFF, 0, 'c', 0, 'a'}, want: ErrUTF16},
		{name: "UTF-16 LE without a byte-order mark", in: utf16noBOM, want: ErrUTF16},
		{name: "Latin-1", in: []byte("term,meaning\ncat,chat\ncaf\xe9,coffee\n"), want: ErrNotUTF8, line: 3, offset: 25, text: "byte 0xE9"},
		{name: "2,001 entries", in: []byte(entries(2001)), want: ErrTooManyEntries, line: 2002, offset: len(entries(2000))},
		{name: "2,001 Anki rows", in: []byte(anki(2001)), want: ErrTooManyEntries, line: 2003, offset: len(anki(2000))},
		{name: "2,001 list lines", in: []byte("\ufeff" + list(2001)), want: ErrTooManyEntries, line: 2001, offset: 3 + len(list(2000))},
		{name: "an unknown format", in: []byte("a\tb"), opts: Options{Format: "xlsx"}, want: ErrOptions},
		{name: "a dash for a table", in: []byte("a\tb"), opts: Options{Format: FormatTable, Separator: SeparatorDash}, want: ErrOptions},
		{name: "a mapping to an unknown field", in: []byte("a\tb"), opts: Options{Columns: map[string]Field{"x": "notes"}}, want: ErrOptions},
		{name: "a hash separating an Anki file", in: []byte("#html:false\na#b\n"), opts: Options{Separator: "#"}, want: ErrOptions},
		{name: "a line break as a separator", in: []byte("a\tb"), opts: Options{Separator: "\n"}, want: ErrOptions},
		{name: "a table whose first row is one cell", in: []byte("cat\n"), opts: Options{Format: FormatTable}, want: ErrNoHeader, line: 1},
		{name: "a table whose columns are all left out", in: []byte("a,b\nc,d\n"), opts: Options{Format: FormatTable, Columns: map[string]Field{"a": FieldNone, "b": FieldNone}}, want: ErrNoHeader, line: 1},
		{name: "a table of a header only", in: []byte("cat,chat\n"), opts: Options{Format: FormatTable}, want: ErrEmpty},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(tc.in, tc.opts)
			require.ErrorIs(t, err, tc.want)
			require.Nil(t, p)
			var ie *InputError
			require.ErrorAs(t, err, &ie)
			require.Equal(t, tc.line, ie.Line, "line")
			require.Equal(t, tc.offset, ie.Offset, "offset")
			require.Contains(t, err.Error(), tc.text)
		})
	}
	p, err := Parse([]byte(entries(2000)), Options{})
	require.NoError(t, err)
	require.Len(t, p.Rows, 2000)
}
