package deckimport

import (
	"cmp"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ankiKeys are the keys of Anki's header lines ("#key:value"), as Anki's
// rslib/src/import_export/text/csv/metadata.rs (parse_meta_value) reads
// them: trimmed and in lower case.
var ankiKeys = map[string]bool{
	"separator": true, "html": true, "tags": true, "columns": true, "notetype": true, "deck": true,
	"notetype column": true, "deck column": true, "tags column": true, "guid column": true,
	"match scope": true, "if matches": true,
}

// ankiSeparators are Anki's separator names (its Delimiter enum).
var ankiSeparators = map[string]Separator{
	"comma": SeparatorComma, "semicolon": SeparatorSemicolon, "tab": SeparatorTab,
	"space": SeparatorSpace, "pipe": SeparatorPipe, "colon": SeparatorColon,
}

// isAnkiHeader reports whether line is an Anki header line with a key Anki
// knows, so a list whose first term begins with "#" is not taken for one.
func isAnkiHeader(line string) bool {
	key, _, ok := strings.Cut(strings.TrimPrefix(line, "#"), ":")
	return ok && strings.HasPrefix(line, "#") && ankiKeys[strings.ToLower(strings.TrimSpace(key))]
}

// ankiMeta is what an Anki file's header lines say.
type ankiMeta struct {
	separator Separator
	html      *bool
	columns   string // the raw #columns value, split once the separator is known
	deck      string
	meta      map[int]bool // 1-based columns of notetype, deck, tags and guid: not fields
}

// ankiHead reads the header lines at the top of s (a legacy "tags:" first
// line, then every line that begins with "#"), as Anki does: "#key:value"
// with the key trimmed and case-insensitive, other "#" lines comments. It
// returns what they say and the number of lines they take.
func ankiHead(s string) (ankiMeta, int) {
	m := ankiMeta{meta: map[int]bool{}}
	n := 0
	for rest := s; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		if n == 0 && strings.HasPrefix(line, "tags:") {
			continue
		}
		if !strings.HasPrefix(line, "#") {
			break
		}
		key, value, ok := strings.Cut(line[1:], ":")
		if ok {
			m.set(strings.ToLower(strings.TrimSpace(key)), value)
		}
	}
	return m, n
}

// set records one header line, with Anki's rules for its value: a
// separator is one of Anki's names or its character, html is true or false
// (anything else is ignored, as Anki ignores it), a column is a number from
// 1.
func (m *ankiMeta) set(key, value string) {
	trimmed := ankiTrim(value)
	switch key {
	case "separator":
		if sep, ok := ankiSeparators[strings.ToLower(strings.TrimSpace(trimmed))]; ok {
			m.separator = sep
		}
		for _, sep := range ankiSeparators {
			if trimmed == string(sep) {
				m.separator = sep
			}
		}
	case "html":
		if v := strings.ToLower(trimmed); v == "true" || v == "false" {
			b := v == "true"
			m.html = &b
		}
	case "columns":
		m.columns = value
	case "deck":
		m.deck = strings.TrimSpace(value)
	case "notetype column", "deck column", "tags column", "guid column":
		if i, err := strconv.Atoi(strings.TrimSpace(trimmed)); err == nil && i > 0 {
			m.meta[i] = true
		}
	}
}

// ankiTrim is Anki's trim of a header value that was exported as a record
// by mistake ("#separator:tab\t\t"): after its first character, the value
// ends before the first character that is not an ASCII letter or digit.
func ankiTrim(value string) string {
	_, size := utf8.DecodeRuneInString(value)
	if i := strings.IndexFunc(value[size:], func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}); i >= 0 {
		return value[:size+i]
	}
	return value
}

// ankiSeparatorCandidates are the separators detected when an Anki file
// names none.
var ankiSeparatorCandidates = []Separator{SeparatorTab, SeparatorSemicolon, SeparatorComma, SeparatorPipe}

// anki reads FormatAnki: the header lines (ankiHead), then the records as
// CSV with the separator (forced, #separator, or detected over the
// records' lines as FormatList detects it) and "#" lines as comments. The
// columns are those #columns names (mapped as a table's header names), or
// else the first two that are not notetype, deck, tags or guid columns are
// the term and the meaning. With #html:true, or without #html when a cell
// holds an HTML tag, each cell is reduced to text (ankiCell); cloze
// deletions keep their text and sound tags are dropped either way.
func (p *parser) anki() error {
	m, n := ankiHead(p.data)
	rest := p.data[offsetOfLine(p.data, n+1):]
	sep := cmp.Or(p.opts.Separator, m.separator)
	ambiguous := false
	if sep == SeparatorAuto {
		sep, ambiguous = detectList(strings.Split(rest, "\n"), ankiSeparatorCandidates)
	}
	if sep == "#" {
		return &InputError{Err: ErrOptions, Detail: "\"#\" begins a comment in an Anki file and cannot separate its cells"}
	}
	p.preview.Format, p.preview.Separator, p.preview.Ambiguous, p.preview.Title = FormatAnki, sep, ambiguous, m.deck
	var records []ankiRecord
	err := p.records(rest, n+1, sep, '#', func(line int, rec []string) error {
		if blank(rec) {
			return nil
		}
		records = append(records, ankiRecord{line: line, cells: rec})
		return p.row(line)
	})
	if err != nil {
		return err
	}
	p.preview.HTML = m.html != nil && *m.html || m.html == nil && anyHTML(records)
	columns, named := p.ankiColumns(m, sep, records)
	p.preview.Columns = columns
	for _, r := range records {
		if named && len(r.cells) > len(columns) && !blank(r.cells[len(columns):]) {
			p.reject(r.line, "more cells than the #columns line names")
			continue
		}
		c := cells{}
		for i, cell := range r.cells[:min(len(r.cells), len(columns))] {
			if f := columns[i].Field; f != FieldNone {
				c[f] = ankiCell(cell, f, p.preview.HTML)
			}
		}
		p.accept(r.line, c)
	}
	return nil
}

// ankiRecord is one record of an Anki file and its first line.
type ankiRecord struct {
	line  int
	cells []string
}

// ankiColumns maps an Anki file's columns: by the #columns names when they
// name a term and a meaning (named), else the first two columns that are
// not meta columns are the term and the meaning and the others are left
// out.
func (p *parser) ankiColumns(m ankiMeta, sep Separator, records []ankiRecord) ([]Column, bool) {
	if m.columns != "" {
		if names, err := newCSV(m.columns, sep, 0).Read(); err == nil {
			if columns, ok := p.columns(names); ok {
				for i := range columns {
					if m.meta[i+1] {
						columns[i].Field = FieldNone
					}
				}
				return columns, true
			}
		}
	}
	width := 0
	for _, r := range records {
		width = max(width, len(r.cells))
	}
	columns := make([]Column, width)
	next := []Field{FieldTerm, FieldMeaning}
	for i := range columns {
		if !m.meta[i+1] && len(next) > 0 {
			columns[i].Field, next = next[0], next[1:]
		}
	}
	return columns, false
}

// anyHTML reports whether a cell holds an HTML tag or comment, Anki's test
// (is_html) for a file without an #html line.
func anyHTML(records []ankiRecord) bool {
	for _, r := range records {
		for _, c := range r.cells {
			if htmlTag.MatchString(c) {
				return true
			}
		}
	}
	return false
}

var (
	htmlTag = regexp.MustCompile(`<[a-zA-Z/!][^>]*>`)
	// cloze is an Anki cloze deletion, {{c1::text}} or {{c1::text::hint}}
	// (rslib/src/cloze.rs); it is replaced by its text, what its card's
	// answer shows.
	cloze = regexp.MustCompile(`(?s)\{\{c\d+::(.*?)(::.*?)?\}\}`)
	// sound is an Anki sound tag, [sound:file.mp3] (rslib/src/text.rs,
	// SOUND_TAG); Lexora has no media, so it is dropped.
	sound = regexp.MustCompile(`\[sound:[^\]]+\]`)
)

// ankiCell is an Anki cell's text: cloze deletions replaced by their text,
// sound tags dropped, and in HTML mode reduced to text (htmlText; a line
// break in a term is a space, since a term is one line).
func ankiCell(cell string, f Field, isHTML bool) string {
	s := sound.ReplaceAllString(cloze.ReplaceAllString(cell, "$1"), "")
	if !isHTML {
		return s
	}
	if f == FieldTerm || f == FieldPartOfSpeech {
		return strings.Join(strings.Split(htmlText(s), "\n"), " ")
	}
	return htmlText(s)
}

// blocks are the elements that begin and end a line of text, as Anki's
// HTML_LINEBREAK_TAGS has them.
var blocks = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Dd: true,
	atom.Div: true, atom.Dl: true, atom.Dt: true, atom.Fieldset: true, atom.Figcaption: true,
	atom.Figure: true, atom.Footer: true, atom.Form: true, atom.H1: true, atom.H2: true, atom.H3: true,
	atom.H4: true, atom.H5: true, atom.H6: true, atom.Header: true, atom.Hr: true, atom.Li: true,
	atom.Main: true, atom.Nav: true, atom.Ol: true, atom.P: true, atom.Pre: true, atom.Section: true,
	atom.Table: true, atom.Tr: true, atom.Ul: true,
}

// hidden are the elements whose content is not text a reader sees.
var hidden = map[atom.Atom]bool{atom.Script: true, atom.Style: true, atom.Template: true, atom.Noscript: true, atom.Head: true, atom.Title: true}

// htmlText reduces an HTML fragment to its text with the HTML tokenizer of
// golang.org/x/net/html: tags are dropped (images and media with them),
// character references decoded, the content of script, style and template
// elements dropped, white space collapsed as a browser collapses it, a
// no-break space made a space (as Anki does), and br and block elements
// (blocks) made line breaks.
func htmlText(s string) string {
	z := html.NewTokenizer(strings.NewReader(s))
	var b strings.Builder
	depth := 0 // inside how many hidden elements
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return tidy(b.String())
		case html.TextToken:
			if depth == 0 {
				b.WriteString(htmlSpace.ReplaceAllString(string(z.Text()), " "))
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch {
			case hidden[a] && tt == html.StartTagToken:
				depth++
			case hidden[a] && tt == html.EndTagToken:
				depth = max(0, depth-1)
			case a == atom.Br || blocks[a]:
				b.WriteByte('\n')
			}
		default:
		}
	}
}

// htmlSpace is a run of HTML's ASCII white space.
var htmlSpace = regexp.MustCompile(`[ \t\n\f\r]+`)

// tidy is htmlText's text with no-break spaces made spaces and each line's
// runs of spaces made one.
func tidy(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\u00a0", " "), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(htmlSpace.ReplaceAllString(l, " "))
	}
	return strings.Join(lines, "\n")
}
