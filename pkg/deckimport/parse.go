package deckimport

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Format is the shape of an input; doc.go describes each.
type Format string

// The formats Parse reads. FormatAuto lets it choose (see Parse).
const (
	FormatAuto  Format = ""
	FormatList  Format = "list"  // one entry per line: term, separator, meaning
	FormatTable Format = "table" // CSV or TSV whose first row names the columns
	FormatAnki  Format = "anki"  // Anki's plain-text export with its # header lines
)

// Separator is what stands between the cells of a row: one of the
// constants below, or for FormatList any other non-empty text, for
// FormatTable and FormatAnki any other single character but a quote, CR,
// LF or U+FFFD.
type Separator string

// The separators Parse detects. SeparatorAuto lets it choose.
const (
	SeparatorAuto      Separator = ""
	SeparatorTab       Separator = "\t"
	SeparatorComma     Separator = ","
	SeparatorSemicolon Separator = ";"
	SeparatorDash      Separator = " - " // FormatList only: a hyphen with a space either side
	SeparatorPipe      Separator = "|"
	SeparatorSpace     Separator = " " // Anki's "Space"
	SeparatorColon     Separator = ":" // Anki's "Colon"
)

// Options steer Parse; the zero value detects everything.
type Options struct {
	// Format forces a format; FormatAuto detects it.
	Format Format
	// Separator forces the separator (overriding an Anki #separator line);
	// SeparatorAuto detects it.
	Separator Separator
	// Columns maps header names (compared as header names are: case-folded,
	// spaces and hyphens as underscores) to fields, before and above the
	// names Parse knows (columnNames); FieldNone leaves a column out. For
	// FormatTable and an Anki #columns line.
	Columns map[string]Field
	// Existing are the terms already in the deck; a row whose Key is one of
	// theirs is marked InDeck.
	Existing []string
}

// Row is an accepted row of the input: its Entry as it will be saved, the
// line (from 1) where the row starts, its Key, and its duplicates: SameAs
// is the line of an earlier row with the same Key (0 if none), InDeck
// whether the Key is one of Options.Existing.
type Row struct {
	Entry
	Line   int
	Key    string
	SameAs int
	InDeck bool
}

// Refusal is one reason a row is refused: its line (from 1, where the row
// starts), the field at fault (FieldLine for the row as a whole) and a
// reason a teacher can act on. One row may have several refusals.
type Refusal struct {
	Line   int
	Field  Field
	Reason string
}

// Column is one column of a table or Anki input: the name its header
// gives ("" when it has none) and the field it is read into (FieldNone: not
// read).
type Column struct {
	Name  string
	Field Field
}

// Preview is what Parse read: how (Format, Separator; Ambiguous when
// another separator would have split as many lines, so a client should let
// the teacher choose; HTML when fields were reduced from HTML to text;
// Columns for a table or an Anki input), Title (an Anki #deck line's deck
// name, a suggestion), and every row, accepted (Rows) or refused (Refused),
// each in the input's order.
type Preview struct {
	Format    Format
	Separator Separator
	Ambiguous bool
	HTML      bool
	Title     string
	Columns   []Column
	Rows      []Row
	Refused   []Refusal

	existing int // the count of distinct Keys of Options.Existing
}

// Parse reads a deck's entries from input (at most MaxInputBytes of UTF-8,
// with or without a byte-order mark, lines ending in LF or CRLF) and
// returns the Preview of every row. The format, unless opts forces one, is
// FormatAnki when the first line (after a legacy "tags:" line) is an Anki
// header line ("#separator:", "#html:", "#columns:", ... see ankiKeys);
// FormatTable when the first row, split by a tab, a semicolon, a comma or a
// pipe, names a term column and a meaning column (columnNames,
// opts.Columns); FormatList otherwise. The separator, unless forced, is
// detected as doc.go says.
//
// Errors are *InputError wrapping ErrTooLarge, ErrEmpty, ErrUTF16,
// ErrBinary, ErrNotUTF8, ErrTooManyEntries (more than MaxEntries rows,
// with the line of the first row too many), ErrNoHeader or ErrOptions; a
// refused row is not an error but a Refusal in the Preview.
func Parse(input []byte, opts Options) (*Preview, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	data, err := decode(input)
	if err != nil {
		return nil, err
	}
	p := &parser{opts: opts, data: string(data), bom: len(input) - len(data)}
	switch format := p.format(); format {
	case FormatAnki:
		err = p.anki()
	case FormatTable:
		err = p.table()
	default:
		err = p.list()
	}
	if err != nil {
		return nil, err
	}
	if len(p.preview.Rows)+len(p.preview.Refused) == 0 {
		return nil, &InputError{Err: ErrEmpty, Detail: "no row under the header"}
	}
	slices.SortStableFunc(p.preview.Refused, func(a, b Refusal) int { return a.Line - b.Line })
	p.duplicates()
	return &p.preview, nil
}

// check refuses options Parse cannot follow.
func (o Options) check() error {
	bad := func(format string, args ...any) error {
		return &InputError{Err: ErrOptions, Detail: fmt.Sprintf(format, args...)}
	}
	if !slices.Contains([]Format{FormatAuto, FormatList, FormatTable, FormatAnki}, o.Format) {
		return bad("unknown format %q", o.Format)
	}
	if s := o.Separator; s != SeparatorAuto {
		switch {
		case o.Format != FormatList && o.Format != FormatAuto && !cellSeparator(s):
			return bad("a %s separates cells by one character other than a quote or a line break, not %q", o.Format, s)
		case strings.ContainsAny(string(s), "\r\n"):
			return bad("a separator cannot hold a line break")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Columns)) {
		if f := o.Columns[name]; !slices.Contains([]Field{FieldTerm, FieldMeaning, FieldExample, FieldPartOfSpeech, FieldNone}, f) {
			return bad("column %q is mapped to %q, which is not term, meaning, example, part_of_speech or \"\"", name, f)
		}
	}
	return nil
}

// cellSeparator reports whether s can separate CSV cells (encoding/csv's
// Reader.Comma rule).
func cellSeparator(s Separator) bool {
	r, n := utf8.DecodeRuneInString(string(s))
	return n == len(s) && n > 0 && r != '"' && r != '\r' && r != '\n' && r != utf8.RuneError
}

// parser is the state of one Parse.
type parser struct {
	opts    Options
	data    string
	preview Preview
	rows    int // rows counted against MaxEntries
	bom     int // the length of the byte-order mark before data
}

// format chooses the input's format (see Parse) and, for a table, its
// separator and columns.
func (p *parser) format() Format {
	if p.opts.Format != FormatAuto {
		return p.opts.Format
	}
	first, rest, _ := strings.Cut(p.data, "\n")
	if strings.HasPrefix(first, "tags:") { // Anki's legacy first line
		first, _, _ = strings.Cut(rest, "\n")
	}
	if isAnkiHeader(strings.TrimSuffix(first, "\r")) {
		return FormatAnki
	}
	if _, ok := p.header(); ok {
		return FormatTable
	}
	return FormatList
}

// row counts one row (at line) against MaxEntries.
func (p *parser) row(line int) error {
	p.rows++
	if p.rows > MaxEntries {
		return &InputError{Err: ErrTooManyEntries, Line: line, Offset: p.bom + offsetOfLine(p.data, line)}
	}
	return nil
}

// add counts a row (row) and accepts or refuses it (accept).
func (p *parser) add(line int, c cells) error {
	if err := p.row(line); err != nil {
		return err
	}
	p.accept(line, c)
	return nil
}

// accept turns one counted row's cells into a Row or its refusals.
func (p *parser) accept(line int, c cells) {
	e, refused := entry(line, c)
	if e == nil {
		p.preview.Refused = append(p.preview.Refused, refused...)
		return
	}
	p.preview.Rows = append(p.preview.Rows, Row{Entry: *e, Line: line, Key: Key(e.Term)})
}

// refuse counts a row (row) and refuses it as a whole (reject).
func (p *parser) refuse(line int, reason string) error {
	if err := p.row(line); err != nil {
		return err
	}
	p.reject(line, reason)
	return nil
}

// reject refuses a counted row as a whole.
func (p *parser) reject(line int, reason string) {
	p.preview.Refused = append(p.preview.Refused, Refusal{Line: line, Field: FieldLine, Reason: reason})
}

// duplicates marks each row whose Key an earlier row or the deck has.
func (p *parser) duplicates() {
	first := make(map[string]int, len(p.preview.Rows))
	existing := make(map[string]bool, len(p.opts.Existing))
	for _, t := range p.opts.Existing {
		existing[Key(t)] = true
	}
	p.preview.existing = len(existing)
	for i := range p.preview.Rows {
		r := &p.preview.Rows[i]
		r.InDeck = existing[r.Key]
		if line, ok := first[r.Key]; ok {
			r.SameAs = line
		} else {
			first[r.Key] = r.Line
		}
	}
}

// offsetOfLine is the byte offset at which line (from 1) of s starts.
func offsetOfLine(s string, line int) int {
	off := 0
	for range line - 1 {
		i := strings.IndexByte(s[off:], '\n')
		if i < 0 {
			return len(s)
		}
		off += i + 1
	}
	return off
}
