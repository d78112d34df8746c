package deckimport

import (
	"fmt"
	"strings"
	"unicode"
)

// listSeparators are the separators FormatList detects, in the order that
// breaks a tie (see detectList).
var listSeparators = []Separator{SeparatorTab, SeparatorDash, SeparatorSemicolon, SeparatorComma}

// list reads FormatList: each line that is not blank is one row, split by
// splitList. HTML is text. A tab-separated line with a third column
// (term, meaning, example) is refused as a whole, the reason asking for a
// header row (tabColumns), and not for the tab in its meaning.
func (p *parser) list() error {
	lines := strings.Split(p.data, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	sep := p.opts.Separator
	p.preview.Format = FormatList
	if sep == SeparatorAuto {
		sep, p.preview.Ambiguous = detectList(lines, listSeparators)
	}
	p.preview.Separator = sep
	for i, l := range lines {
		if strings.TrimFunc(l, unicode.IsSpace) == "" {
			continue
		}
		term, meaning, ok := splitList(l, sep)
		if !ok {
			if err := p.refuse(i+1, fmt.Sprintf("no %s between the term and the meaning", separatorName(sep))); err != nil {
				return err
			}
			continue
		}
		if sep == SeparatorTab && strings.Contains(meaning, "\t") {
			// A tab is never text (text.CheckSingleLine), so a second one
			// is a third column, not a meaning's character.
			if err := p.refuse(i+1, tabColumns(i+1, strings.Count(l, "\t")+1)); err != nil {
				return err
			}
			continue
		}
		if err := p.add(i+1, cells{FieldTerm: term, FieldMeaning: meaning}); err != nil {
			return err
		}
	}
	return nil
}

// splitList splits a line of FormatList into its term and meaning: a line
// that is exactly two RFC 4180 cells with a quote (a spreadsheet's CSV
// without a header row: `cat,"a small animal, a pet"`) into those cells;
// any other at its first sep (so a comma list may have commas in its
// meanings, and quotes are text). ok is false when sep is not in line.
func splitList(line string, sep Separator) (term, meaning string, ok bool) {
	if strings.Contains(line, `"`) && cellSeparator(sep) {
		if rec, err := newCSV(line, sep, 0).Read(); err == nil && len(rec) == 2 {
			return rec[0], rec[1], true
		}
	}
	return strings.Cut(line, string(sep))
}

// detectList chooses the separator of lines among candidates: the one found
// in the most lines that are not blank; of those found in as many, the one
// that comes first in a line (the term comes first and rarely holds a
// separator, a meaning often holds commas) most often; then the earlier in
// candidates (tab, " - ", semicolon, comma). ambiguous reports that another
// candidate is found in as many lines, unless the choice is a tab, which a
// typed or pasted text holds only as a separator. With none found it is the first
// candidate, and each line is refused for lacking it.
//
// So "cat, a small animal; a pet" lines are comma-separated, "big - large,
// huge" lines dash-separated, and a Quizlet export (a tab in every line)
// tab-separated whatever its meanings hold.
func detectList(lines []string, candidates []Separator) (sep Separator, ambiguous bool) {
	type score struct{ lines, first int }
	scores := make([]score, len(candidates))
	for _, l := range lines {
		best, bestAt := -1, len(l)
		for i, c := range candidates {
			at := strings.Index(l, string(c))
			if at < 0 {
				continue
			}
			scores[i].lines++
			if at < bestAt {
				best, bestAt = i, at
			}
		}
		if best >= 0 {
			scores[best].first++
		}
	}
	win := 0
	for i, s := range scores {
		if w := scores[win]; s.lines > w.lines || s.lines == w.lines && s.first > w.first {
			win = i
		}
	}
	for i, s := range scores {
		if i != win && s.lines > 0 && s.lines == scores[win].lines && candidates[win] != SeparatorTab {
			ambiguous = true
		}
	}
	return candidates[win], ambiguous
}

// tabColumns is the reason a tab list's line (from 1) of n columns is
// refused: a list has two, a term and a meaning, and only a table's
// header row says what more columns hold.
func tabColumns(line, n int) string {
	return fmt.Sprintf("line %d has %d columns separated by tabs, and a list has 2 (term, meaning): "+
		"add a header row naming them (term, meaning, example, part_of_speech) and choose the table format", line, n)
}

// separatorName is sep as a reason names it.
func separatorName(sep Separator) string {
	switch sep {
	case SeparatorTab:
		return "tab"
	case SeparatorComma:
		return "comma"
	case SeparatorSemicolon:
		return "semicolon"
	case SeparatorDash:
		return `" - " (a hyphen with a space either side)`
	case SeparatorPipe:
		return "pipe (|)"
	case SeparatorSpace:
		return "space"
	}
	return fmt.Sprintf("%q", string(sep))
}
