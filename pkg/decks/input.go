package decks

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/language"

	"github.com/lexora-app/lexora/pkg/deckimport"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// Limits of a deck and of its entries, in runes (Unicode code points) after
// trimming and NFC normalisation. A deck of 2,000 entries assigned to a
// class of 35 learners is 70,000 cards written by one edit.
const (
	MaxEntries        = 2000
	MaxTitle          = 200
	MaxDescription    = 2000
	MaxTerm           = 200
	MaxMeaning        = 1000
	MaxExample        = 500
	MaxPartOfSpeech   = 50
	maxLanguageLength = 35 // the longest BCP 47 tag stored (schema 00027)
)

// EntryInput is an entry as a teacher writes it: Term and Meaning (a
// definition or a translation) required, Example and PartOfSpeech (free
// text, such as "noun" or "phrasal verb") optional, empty for none.
type EntryInput struct {
	Term         string
	Meaning      string
	Example      string
	PartOfSpeech string
}

// entry is an EntryInput that passed checkEntry: its text as stored and its
// term's key (termKey).
type entry struct {
	EntryInput
	key string
}

// termKey is the form in which two terms of a deck are the same word
// (deckimport.Key: NFC, Unicode full case folding, white space runs as one
// space), so the import's preview finds the duplicates the deck refuses.
func termKey(term string) string { return deckimport.Key(term) }

// checkEntry validates and normalises in, the Index-th of list: Term one
// line of visible text (text.CheckSingleLine) of 1 to MaxTerm runes;
// Meaning of 1 to MaxMeaning runes and Example of at most MaxExample, each
// line of them one line of visible text (line breaks, CR LF or LF, are kept
// as LF); PartOfSpeech one line of at most MaxPartOfSpeech. Text is stored
// as text: markup such as <script> is not interpreted, only shown.
func checkEntry(list string, index int, in EntryInput) (entry, error) {
	refuse := func(field, reason string) error {
		return &InputError{List: list, Index: index, Field: field, Reason: reason}
	}
	var err error
	if in.Term, err = line(in.Term, 1, MaxTerm); err != nil {
		return entry{}, refuse("term", err.Error())
	}
	if in.Meaning, err = lines(in.Meaning, 1, MaxMeaning); err != nil {
		return entry{}, refuse("meaning", err.Error())
	}
	if in.Example, err = lines(in.Example, 0, MaxExample); err != nil {
		return entry{}, refuse("example", err.Error())
	}
	if in.PartOfSpeech, err = line(in.PartOfSpeech, 0, MaxPartOfSpeech); err != nil {
		return entry{}, refuse("part_of_speech", err.Error())
	}
	return entry{EntryInput: in, key: termKey(in.Term)}, nil
}

// line is s trimmed and in NFC (text.Name) when it is one line of visible
// text of min to max runes.
func line(s string, minRunes, maxRunes int) (string, error) {
	if err := text.CheckSingleLine(s); err != nil {
		return "", err
	}
	s = text.Name(s)
	return s, length(s, minRunes, maxRunes)
}

// lines is s with its line breaks as LF, each line trimmed and in NFC
// (text.Name), and the whole trimmed, when each of its lines is one line
// of visible text, or empty, and it has min to max runes (as
// deckimport.Entry's Meaning and Example).
func lines(s string, minRunes, maxRunes int) (string, error) {
	ls := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range ls {
		if err := text.CheckSingleLine(l); err != nil {
			return "", fmt.Errorf("line %d %w", i+1, err)
		}
		ls[i] = text.Name(l)
	}
	s = strings.TrimSpace(strings.Join(ls, "\n"))
	return s, length(s, minRunes, maxRunes)
}

func length(s string, minRunes, maxRunes int) error {
	switch n := utf8.RuneCountInString(s); {
	case n < minRunes && minRunes == 1:
		return fmt.Errorf("must not be empty")
	case n > maxRunes:
		return fmt.Errorf("must be at most %d characters (has %d)", maxRunes, n)
	}
	return nil
}

// DeckInfo is what a teacher writes of a deck besides its entries: Title
// (required, one line of at most MaxTitle runes, unique among the teacher's
// decks), Description (optional, at most MaxDescription runes, line breaks
// kept), and the BCP 47 tags of the language of its terms and of its
// meanings (required; stored in canonical form, "en-us" as "en-US").
type DeckInfo struct {
	Title           string
	Description     string
	TermLanguage    string
	MeaningLanguage string
}

// check validates and normalises info.
func (info DeckInfo) check() (DeckInfo, error) {
	refuse := func(field, reason string) error {
		return &InputError{Index: -1, Field: field, Reason: reason}
	}
	var err error
	if info.Title, err = line(info.Title, 1, MaxTitle); err != nil {
		return DeckInfo{}, refuse("title", err.Error())
	}
	if info.Description, err = lines(info.Description, 0, MaxDescription); err != nil {
		return DeckInfo{}, refuse("description", err.Error())
	}
	if info.TermLanguage, err = languageTag(info.TermLanguage); err != nil {
		return DeckInfo{}, refuse("term_language", err.Error())
	}
	if info.MeaningLanguage, err = languageTag(info.MeaningLanguage); err != nil {
		return DeckInfo{}, refuse("meaning_language", err.Error())
	}
	return info, nil
}

// languageTag is s, a well-formed BCP 47 tag of a known language
// (golang.org/x/text/language.Parse; "und", the undetermined language, is
// refused), in canonical form.
func languageTag(s string) (string, error) {
	tag, err := language.Parse(strings.TrimSpace(s))
	if err != nil || tag == language.Und {
		return "", fmt.Errorf("must be a BCP 47 language tag such as en, es or fr-CA")
	}
	if out := tag.String(); len(out) <= maxLanguageLength {
		return out, nil
	}
	return "", fmt.Errorf("must be a BCP 47 language tag of at most %d characters", maxLanguageLength)
}

// checkTerms refuses, as ErrDuplicateTerm, an entry of es whose term key is
// in taken (the deck's other live entries, key to entry id) or that an
// earlier entry of es has.
func checkTerms(list string, es []entry, taken map[string]bool) error {
	for i, e := range es {
		if taken[e.key] {
			return &InputError{List: list, Index: i, Field: "term", err: ErrDuplicateTerm,
				Reason: fmt.Sprintf("%q: %s (terms are compared ignoring case)", e.Term, ErrDuplicateTerm)}
		}
		taken[e.key] = true
	}
	return nil
}
