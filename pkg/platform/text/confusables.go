package text

import (
	_ "embed" // confusables.txt
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

//go:generate go run ./internal/gensql ../../../schema/00026_email_skeleton.sql

// ConfusablesVersion is the Unicode version of confusables.txt, the UTS #39
// data file shipped beside this package unmodified (from
// https://www.unicode.org/Public/17.0.0/security/confusables.txt, SHA-256
// ConfusablesSHA256). A newer file is a new migration too: the database
// holds a copy of Prototypes (schema 00026) and the skeletons of every
// stored address, which must be recomputed with it.
const ConfusablesVersion = "17.0.0"

// ConfusablesSHA256 is the SHA-256 of Unicode's confusables.txt of
// ConfusablesVersion, as published; the package's tests check the shipped
// file against it.
const ConfusablesSHA256 = "091c7f82fc39ef208faf8f94d29c244de99254675e09de163160c810d13ef22a"

// ConfusablesFile is the shipped confusables.txt, as published.
//
//go:embed confusables.txt
var ConfusablesFile string

// prototypes is the table Skeleton maps by (see Prototypes).
var prototypes = sync.OnceValue(func() map[rune]string {
	p, err := parseConfusables(ConfusablesFile)
	if err != nil {
		panic(err) // the shipped file is checked by the package's tests
	}
	for _, r16 := range unicode.Inherited.R16 {
		for r := rune(r16.Lo); r <= rune(r16.Hi); r += rune(r16.Stride) {
			if mark(r) {
				p[r] = ""
			}
		}
	}
	for _, r32 := range unicode.Inherited.R32 {
		for r := rune(r32.Lo); r <= rune(r32.Hi); r += rune(r32.Stride) {
			if mark(r) {
				p[r] = ""
			}
		}
	}
	for r, proto := range p {
		p[r] = strings.Map(func(r rune) rune {
			if mark(r) {
				return -1
			}
			return r
		}, norm.NFD.String(proto))
	}
	// Once marks are removed, a prototype can hold a character that has a
	// prototype of its own (U+0623 ARABIC LETTER ALEF WITH HAMZA ABOVE is
	// alef and a mark, and alef's prototype is "l"): map until none does,
	// so that one pass of the table is the whole mapping.
	for changed := true; changed; {
		changed = false
		for r, proto := range p {
			if mapped := mapPrototypes(p, proto); mapped != proto {
				p[r], changed = mapped, true
			}
		}
	}
	return p
})

// mapPrototypes is s with each character replaced by its prototype in p.
func mapPrototypes(p map[rune]string, s string) string {
	var b strings.Builder
	for _, r := range s {
		if proto, ok := p[r]; ok {
			b.WriteString(proto)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mark reports whether r is a nonspacing mark of the Inherited script: the
// combining diacritics (U+0300–U+036F and their supplements, Arabic
// harakat, the kana voicing marks U+3099 and U+309A) that sit on a letter of
// any script, so that a letter with one (é, ṃ, й) looks like the letter.
func mark(r rune) bool { return unicode.Is(unicode.Inherited, r) && unicode.Is(unicode.Mn, r) }

// parseConfusables reads the data lines of confusables.txt ("0430 ;\t0061
// ;\tMA\t# ..."): source code point, its prototype's code points, type.
func parseConfusables(file string) (map[rune]string, error) {
	p := make(map[rune]string, 8192)
	for n, line := range strings.Split(strings.TrimPrefix(file, "\ufeff"), "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Split(line, ";")
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(fields) != 3 {
			return nil, fmt.Errorf("confusables.txt line %d: %d fields, want 3", n+1, len(fields))
		}
		source, err := codePoints(fields[0])
		if err != nil || len(source) != 1 {
			return nil, fmt.Errorf("confusables.txt line %d: source %q is not one code point", n+1, fields[0])
		}
		proto, err := codePoints(fields[1])
		if err != nil {
			return nil, fmt.Errorf("confusables.txt line %d: %w", n+1, err)
		}
		p[source[0]] = string(proto)
	}
	return p, nil
}

// codePoints parses hexadecimal code points separated by spaces.
func codePoints(s string) ([]rune, error) {
	var runes []rune
	for hex := range strings.FieldsSeq(s) {
		r, err := strconv.ParseUint(hex, 16, 32)
		if err != nil {
			return nil, fmt.Errorf("code point %q: %w", hex, err)
		}
		runes = append(runes, rune(r))
	}
	return runes, nil
}

// Prototypes is the table Skeleton maps each character of an NFD string by:
// each source of confusables.txt to its prototype, and each nonspacing mark
// of the Inherited script (mark) to "", prototypes themselves in NFD with
// those marks removed, and mapped again until no prototype holds a
// character of the table (so Skeleton is idempotent). A character not in
// it is its own prototype. It is a
// copy; the migration that stores skeletons (schema 00026,
// email_confusables) is made from it.
func Prototypes() map[rune]string { return maps.Clone(prototypes()) }

// Skeleton is the UTS #39 (section 4) skeleton of s, Lexora's variant: s in
// NFD, each character replaced by its prototype from confusables.txt
// (ConfusablesVersion), the result in NFD, and, before and after the
// mapping, every nonspacing mark of the Inherited script removed (mark). Two
// strings with one skeleton are confusable: "pay" and Cyrillic "рау";
// "sam", "saṃ" (U+1E43) and "sаm"; also "josé" and "jose", and "rn" and "m"
// (m's prototype is "rn"). UTS #39's own skeleton keeps the marks, so that
// "saṃ" and "sam" would differ by an invisible-at-a-glance dot below; Lexora
// drops them, as Chromium's IDN spoof checker does before comparing with
// known domains. Skeletons are for comparing only, never shown or stored as
// the address.
func Skeleton(s string) string {
	return norm.NFD.String(mapPrototypes(prototypes(), norm.NFD.String(s)))
}
