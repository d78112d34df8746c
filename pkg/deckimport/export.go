package deckimport

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
)

// exportHeader is the header row Export writes: the names FormatTable
// knows first.
var exportHeader = []string{string(FieldTerm), string(FieldMeaning), string(FieldExample), string(FieldPartOfSpeech)}

// Export writes entries to w as CSV that Parse reads back to the same
// entries, in order, when they keep Entry's rules (as Parse's do). An entry
// the deck editor (pkg/decks) stored keeps them but for two things, which
// Parse changes: a part of speech that NormalizePartOfSpeech knows comes
// back as its constant ("Noun", "n." as "noun"; free text such as "phrasal
// verb" as typed), and a blank line inside a meaning or an example is left
// out. The CSV: a UTF-8 byte-order mark (without it Excel reads UTF-8 as
// the system's code page), the header row term,meaning,example,
// part_of_speech, one row per entry, RFC 4180 quoting, CRLF line ends (a
// line break inside a meaning too), each cell neutralised against CSV
// injection (neutralise). Its errors are w's. Every deck pkg/decks can
// save fits in MaxInputBytes in Latin script; one whose CSV is larger (2,000
// entries of more than about 2,090 bytes each: the longest texts in a
// script of two or three bytes a character) does not read back in one
// Parse.
func Export(w io.Writer, entries []Entry) error {
	rows := make([][]string, 0, len(entries)+1)
	rows = append(rows, exportHeader)
	for _, e := range entries {
		rows = append(rows, []string{e.Term, e.Meaning, e.Example, string(e.PartOfSpeech)})
	}
	return WriteCSV(w, rows)
}

// WriteCSV writes rows to w as Export writes a deck (a UTF-8 byte-order
// mark, RFC 4180, CRLF, every cell neutralised against CSV injection): for
// a class's progress grid as a gradebook, or any table a teacher opens in a
// spreadsheet. Rows may differ in length. A line break in a cell is written
// CRLF and a carriage return not before a line feed is dropped
// (encoding/csv's UseCRLF). Its errors are w's.
func WriteCSV(w io.Writer, rows [][]string) error {
	if _, err := io.WriteString(w, "\ufeff"); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	for _, row := range rows {
		out := make([]string, len(row))
		for i, cell := range row {
			out[i] = neutralise(cell)
		}
		if err := cw.Write(out); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

// triggers are the first characters that make a spreadsheet read a cell as
// a formula (OWASP, "CSV Injection": =, +, -, @, tab, carriage return).
const triggers = "=+-@\t\r"

// risky reports whether s, after any leading apostrophes, begins with a
// trigger: the cells neutralise changes. A number such as "-3" is one too,
// as issue 26 asks for every cell so beginning (a spreadsheet then shows it
// as text; Lexora's gradebook of counts and percentages has no negative
// number to lose).
func risky(s string) bool {
	t := strings.TrimLeft(s, "'")
	return t != "" && strings.ContainsRune(triggers, rune(t[0]))
}

// neutralise is cell with a leading apostrophe when it is risky, as OWASP
// recommends, so a spreadsheet shows "=1+1" and does not compute it. A cell
// that already begins with apostrophes before a trigger gets one more, so
// that unneutralise, which removes exactly one, gives it back unchanged.
func neutralise(cell string) string {
	if risky(cell) {
		return "'" + cell
	}
	return cell
}

// unneutralise undoes neutralise: it removes one leading apostrophe from a
// cell that neutralise would have changed. The asymmetry: a cell of another
// program's file that begins with an apostrophe before a trigger ("'=A1",
// "'-ing") loses that apostrophe; one before any other character ("'til")
// keeps it.
func unneutralise(cell string) string {
	if strings.HasPrefix(cell, "'") && risky(cell) {
		return cell[1:]
	}
	return cell
}
