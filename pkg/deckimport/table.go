package deckimport

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/cases"
)

// tableSeparators are the separators a table's header row is tried with,
// in order.
var tableSeparators = []Separator{SeparatorTab, SeparatorSemicolon, SeparatorComma, SeparatorPipe}

// columnNames are the header names Parse knows (as columnKey gives them):
// Lexora's own (what Export writes), what spreadsheets, Quizlet and Anki's
// Basic note type call them, and translators' names.
var columnNames = map[string]Field{
	"term": FieldTerm, "word": FieldTerm, "front": FieldTerm, "headword": FieldTerm, "lemma": FieldTerm,
	"vocabulary": FieldTerm, "vocab": FieldTerm, "expression": FieldTerm, "question": FieldTerm,
	"meaning": FieldMeaning, "meanings": FieldMeaning, "definition": FieldMeaning, "definitions": FieldMeaning,
	"translation": FieldMeaning, "back": FieldMeaning, "gloss": FieldMeaning, "answer": FieldMeaning,
	"example": FieldExample, "examples": FieldExample, "example_sentence": FieldExample, "sentence": FieldExample, "usage": FieldExample,
	"part_of_speech": FieldPartOfSpeech, "pos": FieldPartOfSpeech, "word_class": FieldPartOfSpeech, "word_type": FieldPartOfSpeech,
}

// maxColumnName is the longest header name field looks up, in bytes: no
// column name is longer, and case folding a first row of 1 MiB took 0.2 s.
const maxColumnName = 200

// columnKey is a header name as it is looked up: trimmed, case-folded, runs
// of spaces, hyphens and underscores made one underscore ("Part of
// speech", "part-of-speech" and "PART_OF_SPEECH" are "part_of_speech").
func columnKey(name string) string {
	words := strings.FieldsFunc(cases.Fold().String(name), func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '_'
	})
	return strings.Join(words, "_")
}

// field is the field a header name maps to: opts.Columns first, then
// columnNames; FieldNone for a name neither knows, and without a look for
// one longer than maxColumnName bytes.
func (p *parser) field(name string) Field {
	if len(name) > maxColumnName {
		return FieldNone
	}
	key := columnKey(name)
	for n, f := range p.opts.Columns {
		if columnKey(n) == key {
			return f
		}
	}
	return columnNames[key]
}

// header finds the table's separator and columns: the first separator
// (forced, or of tableSeparators) that splits the first row into cells
// naming a term and a meaning column, each field at most once.
func (p *parser) header() (Separator, bool) {
	candidates := tableSeparators
	if s := p.opts.Separator; s != SeparatorAuto {
		if !cellSeparator(s) {
			return "", false
		}
		candidates = []Separator{s}
	}
	first, _, _ := strings.Cut(p.data, "\n")
	for _, sep := range candidates {
		r := newCSV(first, sep, 0)
		names, err := r.Read()
		if err != nil {
			continue
		}
		columns, ok := p.columns(names)
		if ok {
			p.preview.Columns = columns
			return sep, true
		}
	}
	return "", false
}

// columns maps header names to fields; ok when a term and a meaning column
// are among them. A field named twice is read from its first column.
func (p *parser) columns(names []string) ([]Column, bool) {
	seen := map[Field]bool{}
	columns := make([]Column, len(names))
	for i, n := range names {
		f := p.field(n)
		if seen[f] {
			f = FieldNone
		}
		seen[f] = true
		columns[i] = Column{Name: strings.TrimFunc(n, unicode.IsSpace), Field: f}
	}
	return columns, seen[FieldTerm] && seen[FieldMeaning]
}

// unnamedHeader reads a first row that names no term or no meaning column
// ("Wort,Bedeutung"), for a table the caller said is one: split by the
// forced separator, else the first of tableSeparators that splits it into
// two cells or more, its columns are mapped as header maps them, and the
// first columns neither known nor in opts.Columns are read as the term and
// the meaning, in that order, for the teacher to map otherwise in the
// preview. ok is false when the row has one cell, or the mapping leaves no
// term or no meaning column.
func (p *parser) unnamedHeader() (Separator, bool) {
	candidates := tableSeparators
	if s := p.opts.Separator; s != SeparatorAuto {
		candidates = []Separator{s}
	}
	first, _, _ := strings.Cut(p.data, "\n")
	for _, sep := range candidates {
		names, err := newCSV(first, sep, 0).Read()
		if err != nil || len(names) < 2 {
			continue
		}
		columns, _ := p.columns(names)
		seen := map[Field]bool{}
		for _, c := range columns {
			seen[c.Field] = true
		}
		for i, n := range names {
			for _, f := range []Field{FieldTerm, FieldMeaning} {
				if !seen[f] && columns[i].Field == FieldNone && !p.mapped(n) {
					columns[i].Field, seen[f] = f, true
				}
			}
		}
		if !seen[FieldTerm] || !seen[FieldMeaning] {
			return "", false
		}
		p.preview.Columns = columns
		return sep, true
	}
	return "", false
}

// mapped reports whether opts.Columns maps the header name name.
func (p *parser) mapped(name string) bool {
	key := columnKey(name)
	for n := range p.opts.Columns {
		if columnKey(n) == key {
			return true
		}
	}
	return false
}

// table reads FormatTable: a header row (for a table the caller forced,
// one that names no term or meaning column too: unnamedHeader), then one
// row per record (RFC 4180
// through encoding/csv: quoted cells may hold separators, quotes doubled and
// line breaks). A row with more non-blank cells than the header is refused;
// a row with fewer has the missing cells empty; an all-blank row is left
// out. A cell written by Export with a leading apostrophe (neutralise) gets
// it back off.
func (p *parser) table() error {
	sep, ok := p.header()
	if !ok && p.opts.Format == FormatTable {
		sep, ok = p.unnamedHeader()
	}
	if !ok {
		return &InputError{Err: ErrNoHeader, Line: 1}
	}
	p.preview.Format, p.preview.Separator = FormatTable, sep
	_, rest, _ := strings.Cut(p.data, "\n")
	columns := p.preview.Columns
	return p.records(rest, 2, sep, 0, func(line int, rec []string) error {
		if blank(rec) {
			return nil
		}
		if extra := rec[min(len(rec), len(columns)):]; !blank(extra) {
			return p.refuse(line, fmt.Sprintf("%d cells, but the header names %d columns (is a separator inside a cell that is not quoted?)", len(rec), len(columns)))
		}
		c := cells{}
		for i, cell := range rec[:min(len(rec), len(columns))] {
			if f := columns[i].Field; f != FieldNone {
				c[f] = unneutralise(cell)
			}
		}
		return p.add(line, c)
	})
}

// blank reports whether every cell is white space.
func blank(rec []string) bool {
	for _, c := range rec {
		if strings.TrimFunc(c, unicode.IsSpace) != "" {
			return false
		}
	}
	return true
}

// newCSV is an encoding/csv reader of s with sep and comment (0: none),
// leaving the count of cells to the caller.
func newCSV(s string, sep Separator, comment rune) *csv.Reader {
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = []rune(string(sep))[0]
	r.Comment = comment
	r.FieldsPerRecord = -1
	return r
}

// records reads s, whose first line is line firstLine of the input, as CSV
// and calls row with each record and the line it starts on. A record with a
// quote error (a quote that is never closed, or text after a closing
// quote) is refused at the line where it starts, and reading goes on at the
// line after the error (after the record's first line when the quote runs
// to the end of the input), so one bad quote does not swallow the rest.
func (p *parser) records(s string, firstLine int, sep Separator, comment rune, row func(line int, rec []string) error) error {
	starts := lineStarts(s)
	from := 0 // index in starts of the line the reader starts at
	for from < len(starts) {
		base := firstLine + from - 1 // the input's line before the reader's first
		err := readFrom(newCSV(s[starts[from]:], sep, comment), base, row)
		var pe *csv.ParseError
		if !errors.As(err, &pe) {
			return err
		}
		restart := from + pe.Line
		if restart >= len(starts) { // the quote ran to the end
			restart = from + pe.StartLine
		}
		if err := p.refuse(base+pe.StartLine, quoteReason(pe, base)); err != nil {
			return err
		}
		from = restart
	}
	return nil
}

// readFrom calls row for each record of r and the input's line it starts
// on (base plus r's line), until the end of r (nil), a quote error (the
// *csv.ParseError) or an error of row.
func readFrom(r *csv.Reader, base int, row func(line int, rec []string) error) error {
	for {
		rec, err := r.Read()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
		line, _ := r.FieldPos(0)
		if err := row(base+line, rec); err != nil {
			return err
		}
	}
}

// quoteReason says what is wrong with a record's quotes (base: the input's
// line before the reader's first).
func quoteReason(pe *csv.ParseError, base int) string {
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		return fmt.Sprintf("a quote (\") inside a cell that does not start with one (line %d, column %d): put the whole cell in quotes and double each quote inside it", base+pe.Line, pe.Column)
	case pe.Line > pe.StartLine:
		return fmt.Sprintf("unbalanced quote: the quoted cell opened on this line is not closed right (read up to line %d): end it with a quote before the separator or the line break, and double each quote inside it", base+pe.Line)
	}
	return fmt.Sprintf("unbalanced quote (\") at column %d: end a quoted cell with a quote before the separator or the line break, and double each quote inside it", pe.Column)
}

// lineStarts are the offsets in s at which its lines start.
func lineStarts(s string) []int {
	starts := []int{0}
	for i := range len(s) {
		if s[i] == '\n' && i+1 < len(s) {
			starts = append(starts, i+1)
		}
	}
	if s == "" {
		return nil
	}
	return starts
}
