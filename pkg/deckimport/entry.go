package deckimport

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/lexora-app/lexora/pkg/platform/text"
)

// The limits of one import. A deck's text goes to learners' screens and to
// the database; these keep a card readable and a request small.
const (
	// MaxInputBytes is the largest input Parse reads: 4 MiB (4,194,304
	// bytes), so that every deck the deck editor (pkg/decks) can save reads
	// back from its Export: MaxEntries entries of the longest term, meaning,
	// example and part of speech in Latin script export to about 3.5 MB
	// (TestLargestDeckReadsBack). A deck of MaxEntries entries of typical
	// length (a word, a definition of about 100 characters and an example)
	// is about 0.3 MB.
	MaxInputBytes = 4 << 20
	// MaxEntries is the most entries a deck may hold and the most rows (not
	// blank or comments, accepted or refused) one input may hold: 2,000.
	MaxEntries = 2000
	// MaxTermRunes is the longest term, in Unicode code points after NFC:
	// 200 (the longest English headwords are under 50; a short phrase fits).
	MaxTermRunes = 200
	// MaxMeaningRunes is the longest meaning (a definition or a
	// translation), in code points after NFC, line breaks included: 1,000.
	MaxMeaningRunes = 1000
	// MaxExampleRunes is the longest example sentence, in code points after
	// NFC, line breaks included: 500.
	MaxExampleRunes = 500
	// MaxPartOfSpeechRunes is the longest part of speech, in code points
	// after NFC: 50, as the deck editor allows (decks.MaxPartOfSpeech).
	MaxPartOfSpeechRunes = 50
)

// Field names a part of an entry, as a refusal and a column mapping name it.
type Field string

// The fields of an entry, and FieldLine for a refusal of the row as a whole
// (a quote, the count of columns) and FieldNone for a column that is read
// but not kept.
const (
	FieldTerm         Field = "term"
	FieldMeaning      Field = "meaning"
	FieldExample      Field = "example"
	FieldPartOfSpeech Field = "part_of_speech"
	FieldLine         Field = "line"
	FieldNone         Field = ""
)

// PartOfSpeech is an entry's word class: one of the constants below when
// the input names one (NormalizePartOfSpeech), else the text as typed (one
// line of at most MaxPartOfSpeechRunes, such as "phrasal verb", as the deck
// editor accepts it), or "" when the input gives none.
type PartOfSpeech string

// The parts of speech the importer knows by name and abbreviation: the
// eight traditional word classes of English grammar, determiner and
// numeral, and phrase for an idiom or a multi-word expression. The
// library's WordNet entries use the first four.
const (
	Noun         PartOfSpeech = "noun"
	Verb         PartOfSpeech = "verb"
	Adjective    PartOfSpeech = "adjective"
	Adverb       PartOfSpeech = "adverb"
	Pronoun      PartOfSpeech = "pronoun"
	Preposition  PartOfSpeech = "preposition"
	Conjunction  PartOfSpeech = "conjunction"
	Interjection PartOfSpeech = "interjection"
	Determiner   PartOfSpeech = "determiner"
	Numeral      PartOfSpeech = "numeral"
	Phrase       PartOfSpeech = "phrase"
)

// partsOfSpeech maps what teachers and dictionaries write (in lower case,
// without a final period) to a PartOfSpeech: the names themselves, the
// usual dictionary abbreviations, and WordNet's letters (n, v, a, s for a
// satellite adjective, r for an adverb).
var partsOfSpeech = map[string]PartOfSpeech{
	"noun": Noun, "n": Noun,
	"verb": Verb, "v": Verb, "vb": Verb,
	"adjective": Adjective, "adj": Adjective, "a": Adjective, "s": Adjective,
	"adverb": Adverb, "adv": Adverb, "r": Adverb,
	"pronoun": Pronoun, "pron": Pronoun,
	"preposition": Preposition, "prep": Preposition,
	"conjunction": Conjunction, "conj": Conjunction,
	"interjection": Interjection, "interj": Interjection, "int": Interjection,
	"determiner": Determiner, "det": Determiner,
	"numeral": Numeral, "num": Numeral,
	"phrase": Phrase, "phr": Phrase, "idiom": Phrase, "expression": Phrase,
}

// NormalizePartOfSpeech returns the constant s names, case-insensitively
// and with or without a final period ("Noun", "n.", "adj" are Noun), or s
// itself, trimmed, when it names none ("phrasal verb", "Verb (irregular)"
// are kept as typed); "" for blank s. It does not check the text rules:
// Parse applies them first.
func NormalizePartOfSpeech(s string) PartOfSpeech {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if p, ok := partsOfSpeech[strings.TrimSuffix(strings.ToLower(s), ".")]; ok {
		return p
	}
	return PartOfSpeech(s)
}

// Entry is one word of a deck as it will be saved: Term and PartOfSpeech on
// one line, Meaning and Example one or more lines joined by "\n"; every line
// trimmed of surrounding white space, in Unicode Normalization Form C and
// passing text.CheckSingleLine (no control, format or invisible character).
// Term and Meaning are never empty; PartOfSpeech is as
// NormalizePartOfSpeech gives it.
type Entry struct {
	Term         string
	Meaning      string
	Example      string
	PartOfSpeech PartOfSpeech
}

// Key is the canonical form in which two terms are the same word: the term
// in Normalization Form C, case-folded (Unicode full case folding, so
// "Straße", "STRASSE" and "strasse" are one key), runs of white space made
// one U+0020 and surrounding white space removed, and NFC again (folding can
// undo it). Duplicates in a file and against a deck's terms are found by it;
// a store may keep it in a unique index.
func Key(term string) string {
	folded := cases.Fold().String(norm.NFC.String(term))
	return norm.NFC.String(strings.Join(strings.Fields(folded), " "))
}

// refusals collects the refusals of one row.
type refusals struct {
	line int
	list []Refusal
}

// add refuses field f for the reason format and args give.
func (r *refusals) add(f Field, format string, args ...any) {
	r.list = append(r.list, Refusal{Line: r.line, Field: f, Reason: fmt.Sprintf(format, args...)})
}

// cells is one row's raw text by field, before the text rules.
type cells map[Field]string

// entry applies the text rules to a row's cells: it returns the Entry, or
// nil and the row's refusals (one per field at fault).
func entry(line int, c cells) (*Entry, []Refusal) {
	r := &refusals{line: line}
	e := &Entry{
		Term:    singleLine(r, FieldTerm, c[FieldTerm], MaxTermRunes),
		Meaning: lines(r, FieldMeaning, c[FieldMeaning], MaxMeaningRunes),
		Example: lines(r, FieldExample, c[FieldExample], MaxExampleRunes),
	}
	if e.Term == "" && !r.has(FieldTerm) {
		r.add(FieldTerm, "the term is empty")
	}
	if e.Meaning == "" && !r.has(FieldMeaning) {
		r.add(FieldMeaning, "the meaning is empty")
	}
	e.PartOfSpeech = NormalizePartOfSpeech(singleLine(r, FieldPartOfSpeech, c[FieldPartOfSpeech], MaxPartOfSpeechRunes))
	if len(r.list) > 0 {
		return nil, r.list
	}
	return e, nil
}

// has reports whether r already refuses field f.
func (r *refusals) has(f Field) bool {
	for _, x := range r.list {
		if x.Field == f {
			return true
		}
	}
	return false
}

// singleLine is s trimmed and in NFC when it passes text.CheckSingleLine
// and has at most limit code points, else "" and a refusal.
func singleLine(r *refusals, f Field, s string, limit int) string {
	s = strings.TrimFunc(s, unicode.IsSpace)
	if tooLong(r, f, s, limit) {
		return ""
	}
	if err := text.CheckSingleLine(s); err != nil {
		r.add(f, "the %s %s", name(f), err)
		return ""
	}
	s = norm.NFC.String(s)
	if n := utf8.RuneCountInString(s); n > limit {
		r.add(f, "the %s is %d characters long; at most %d are allowed", name(f), n, limit)
		return ""
	}
	return s
}

// lines is s with each line (split at LF, CRLF or CR) trimmed, blank lines
// left out, checked by text.CheckSingleLine and joined by "\n" in NFC, when
// that has at most limit code points; else "" and a refusal.
func lines(r *refusals, f Field, s string, limit int) string {
	if tooLong(r, f, s, limit) {
		return ""
	}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	var kept []string
	for i, l := range strings.Split(s, "\n") {
		l = strings.TrimFunc(l, unicode.IsSpace)
		if l == "" {
			continue
		}
		if err := text.CheckSingleLine(l); err != nil {
			if strings.Contains(s, "\n") {
				r.add(f, "line %d of the %s %s", i+1, name(f), err)
			} else {
				r.add(f, "the %s %s", name(f), err)
			}
			return ""
		}
		kept = append(kept, l)
	}
	out := norm.NFC.String(strings.Join(kept, "\n"))
	if n := utf8.RuneCountInString(out); n > limit {
		r.add(f, "the %s is %d characters long; at most %d are allowed", name(f), n, limit)
		return ""
	}
	return out
}

// name is f as a reason names it.
func name(f Field) string { return strings.ReplaceAll(string(f), "_", " ") }

// tooLong refuses s early, before the text rules, when it has more than
// four times limit code points: NFC composes at most a few code points into
// one, so it cannot bring s within limit, and the rules' cost grows with
// the length (a 1 MiB term took 0.27 s without this).
func tooLong(r *refusals, f Field, s string, limit int) bool {
	if n := utf8.RuneCountInString(s); n > 4*limit {
		r.add(f, "the %s is %d characters long; at most %d are allowed", name(f), n, limit)
		return true
	}
	return false
}
