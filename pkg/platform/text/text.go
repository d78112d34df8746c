// Package text holds the rules for text that users give and other people
// see: one-line names and titles, email addresses in their canonical form,
// and RFC 3339 times. The Unicode work is done by golang.org/x/text
// (secure/precis for an address's local part, idna for its domain, norm for
// names) and by the standard library's Unicode categories.
package text

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/idna"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
	"golang.org/x/text/width"
)

// invisible reports whether r is a control (Cc), format (Cf, such as U+200B
// ZERO WIDTH SPACE, U+202E RIGHT-TO-LEFT OVERRIDE and U+FEFF), line
// separator (Zl) or paragraph separator (Zp) character: characters that
// break a line, reorder or hide text in an email or on a screen.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// freeform is the PRECIS FreeformClass (RFC 8264 §4.3): it refuses, among
// others, Default_Ignorable_Code_Point characters (U+034F COMBINING GRAPHEME
// JOINER, U+3164 HANGUL FILLER, variation selectors such as U+FE0F, so also
// emoji written with one), old Hangul jamo, unassigned code points and
// misplaced joiners.
var freeform = precis.NewFreeform()

// SingleLine reports whether s passes CheckSingleLine.
func SingleLine(s string) bool { return CheckSingleLine(s) == nil }

// joiner reports whether r is U+200C ZERO WIDTH NON-JOINER or U+200D ZERO
// WIDTH JOINER: format characters that Persian and Indic names (ZWNJ, ZWJ)
// and emoji sequences (ZWJ: 👩‍🏫) need between two visible characters.
func joiner(r rune) bool { return r == '\u200c' || r == '\u200d' }

// selector reports whether r is U+FE0E VARIATION SELECTOR-15 (text
// presentation) or U+FE0F VARIATION SELECTOR-16 (emoji presentation): the
// emoji variation sequences (Unicode's emoji-variation-sequences.txt) put
// one after an emoji that also has a text form, so ❤️ is U+2764 U+FE0F.
func selector(r rune) bool { return r == '\ufe0e' || r == '\ufe0f' }

// selectable reports whether a variation selector may follow r: every base
// of an emoji variation sequence is a digit, '#', '*', a symbol or
// punctuation, except U+2139 INFORMATION SOURCE (category Ll); after any
// other letter or a mark a selector changes nothing that shows, so "Sam"
// and "Sam" with one are told apart by nothing a reader sees.
func selectable(r rune) bool {
	return r == '\u2139' || !unicode.IsLetter(r) && !unicode.IsMark(r) && !unicode.IsSpace(r) && !invisible(r) && !selector(r)
}

// CheckSingleLine returns nil when s is text one person can show another on
// one line, else an error whose message says what is wrong and names the
// first character at fault by code point and Unicode name ("U+202E
// RIGHT-TO-LEFT OVERRIDE is not allowed"). The rule: no control, format,
// line or paragraph separator character (categories Cc, Cf, Zl, Zp; so no
// bidi override or isolate, no U+200B, no U+FEFF), except a joiner (ZWNJ or
// ZWJ) between two visible characters (a variation selector's base counts
// as one with its selector); no variation selector but U+FE0E or U+FE0F
// right after a symbol, punctuation or digit (selectable: ❤️, ☺︎, 1️⃣, not
// leading, not alone, not after a letter); nothing the PRECIS
// FreeformClass refuses (freeform; the joiners' own context rules and its
// refusal of these two selectors are replaced by the ones above, which let
// emoji sequences through); no U+FFFD, which is what
// a JSON decoder makes of an unpaired surrogate (and invalid UTF-8) and so
// was not what the user sent; no U+2800 BRAILLE PATTERN BLANK (a symbol,
// neither White_Space nor default-ignorable, that shows as nothing); and,
// unless s is empty, not only white space (U+0020, U+00A0, U+3000, …). It
// is the rule for every text a user gives that reaches an email or another
// user's screen.
func CheckSingleLine(s string) error {
	runes := []rune(s)
	visible := func(i int) bool {
		return i >= 0 && i < len(runes) && !unicode.IsSpace(runes[i]) && !invisible(runes[i]) && !selector(runes[i])
	}
	for i, r := range runes {
		switch {
		case joiner(r) && !((visible(i-1) || i > 0 && selector(runes[i-1])) && visible(i+1)):
			return fmt.Errorf("%s may only stand between two visible characters", named(r))
		case selector(r) && !(i > 0 && selectable(runes[i-1])):
			return fmt.Errorf("%s may only follow a symbol, punctuation or digit (an emoji with a text form)", named(r))
		case joiner(r), selector(r):
		case invisible(r), r == '\ufffd', r == '\u2800':
			return refused(r)
		}
	}
	if _, err := freeform.String(strings.Map(dropPlaced, s)); err != nil {
		for _, r := range runes {
			if _, err := freeform.String(string(r)); err != nil && !joiner(r) && !selector(r) {
				return refused(r)
			}
		}
		return errors.New("must be one line of visible text (the PRECIS FreeformClass, RFC 8264, refuses it)")
	}
	if s != "" && strings.TrimFunc(s, unicode.IsSpace) == "" {
		return errors.New("must not be only white space")
	}
	return nil
}

// dropPlaced maps the joiners and selectors CheckSingleLine has placed to
// nothing, for the PRECIS check of the rest.
func dropPlaced(r rune) rune {
	if joiner(r) || selector(r) {
		return -1
	}
	return r
}

// named is r as U+XXXX and its Unicode name.
func named(r rune) string {
	switch name := runenames.Name(r); {
	case name == "<control>":
		return fmt.Sprintf("U+%04X (a control character)", r)
	case name != "":
		return fmt.Sprintf("U+%04X %s", r, name)
	}
	return fmt.Sprintf("U+%04X", r)
}

func refused(r rune) error {
	return fmt.Errorf("must be one line of visible text: %s is not allowed", named(r))
}

// Name returns s, a display name or title that passed SingleLine, trimmed of
// surrounding white space and in Unicode Normalization Form C, so that one
// name is stored one way.
func Name(s string) string { return norm.NFC.String(strings.TrimSpace(s)) }

// Count is n and the noun of a count as a message words it, singular for
// exactly one and plural otherwise: Count(1, "line", "lines") is "1 line",
// Count(3, "line", "lines") "3 lines", Count(0, "entry", "entries")
// "0 entries".
func Count(n int, singular, plural string) string {
	if n == 1 {
		return "1 " + singular
	}
	return strconv.Itoa(n) + " " + plural
}

// ErrEmail is returned by CanonicalEmail for text that is not an address.
// Its refusals of one spelling wrap it with their own reason (the error's
// message): errors.Is(err, ErrEmail) holds for each.
var ErrEmail = errors.New("must be an email address without control, format or space characters")

// emailError is a refusal of CanonicalEmail with its own reason; it is
// ErrEmail for errors.Is.
type emailError string

func (e emailError) Error() string        { return string(e) }
func (e emailError) Is(target error) bool { return target == ErrEmail }

// The spellings of an address that CanonicalEmail refuses, each with its
// reason (see CanonicalEmail).
const (
	errQuoted      = emailError(`must be an email address whose part before the @ needs no quotes: a quoted part ("kim lee") with spaces, @, two dots in a row or other characters that need quoting is not accepted`)
	errObsolete    = emailError(`must be an email address in today's syntax: quoted words joined by dots ("kim".lee) are obsolete (RFC 5322 section 4.4)`)
	errComment     = emailError("must be an email address without a comment: remove the text in parentheses")
	errDotAtom     = emailError("must be an email address whose part before the @ is letters, digits and ! # $ % & ' * + - / = ? ^ _ ` { | } ~ in pieces joined by single dots (not at its start or end)")
	errLocalLength = emailError("must be an email address whose part before the @ is at most 64 bytes long")
	errIPLiteral   = emailError("must be an email address at a domain name, not at an IP address in brackets")
	errTrailingDot = emailError("must be an email address whose domain does not end with a dot")
	errNumericTLD  = emailError("must be an email address at a domain name: its last part must not be only digits")
	errLabelLength = emailError("must be an email address whose domain has parts of at most 63 characters and at most 253 in all")
)

// ErrMixedScripts is returned by CanonicalEmail for an address whose local
// part or a domain label mixes letters of two scripts (singleScript), such
// as "sаm" with a Cyrillic а among Latin letters.
var ErrMixedScripts = errors.New("must not mix letters of different scripts (such as Latin and Cyrillic) in the part before the @ or in a part of the domain: such an address can look like another one")

// CanonicalEmail returns the one form Lexora stores of the email address
// raw, so that the spellings RFC 5321, 5322 and 6531 make one mailbox are
// one account, and refuses with a reason (an error that is ErrEmail) the
// spellings no mail provider issues. In order:
//
//   - surrounding spaces (U+0020) are trimmed; a control, format or
//     separator character anywhere is refused;
//   - full-width forms of ASCII (ｋｉｍ＠ｅｘａｍｐｌｅ.com) are their ASCII
//     characters (the PRECIS width mapping, RFC 8264 section 9.2, applied to
//     the whole address, so also to ＠ and ＂);
//   - the local part is what precedes the last @. A quoted string whose
//     content, its quoted pairs (\x) undone, is a dot-atom is that dot-atom:
//     "kim.lee" and "kim\.lee" are kim.lee (RFC 5322 section 3.4.1: the
//     quotes are not part of the address). One whose content needs quoting
//     (space, @, "..", a leading dot, a comma...) is refused, and so are
//     quoted words joined by dots ("kim".lee, obs-local-part), comments
//     (kim(x)@, (x)kim@) and anything else that is not a dot-atom (RFC 5322
//     section 3.2.3 atext, widened to non-ASCII characters by RFC 6531
//     section 3.3): a leading, trailing or doubled dot, a backslash, < > [ ]
//     , ; : or a quote;
//   - the local part goes through the PRECIS UsernameCaseMapped profile
//     (RFC 8265: lower case, NFC, so a decomposed zoë is the precomposed
//     one; spaces, controls and unassigned code points refused), and must
//     then be at most 64 bytes (RFC 5321 section 4.5.3.1.1). Case of the
//     local part is folded though RFC 5321 lets a server tell cases apart,
//     since no provider does; dots and +tags are kept (they are one
//     provider's rule, not the address syntax's);
//   - the domain goes through IDNA lookup (UTS #46 non-transitional, RFC
//     5891) to its lower-case ASCII form, so a U-label domain (bücher.example),
//     its A-label (xn--bcher-kva.example, in any case) and its full-width or
//     ideographic-full-stop spellings (example。com) are one; it must have a
//     dot, labels of at most 63 characters and 253 in all (RFC 1035), no
//     trailing dot (example.com. is refused, not folded), a last label that
//     is not all digits (so not 192.0.2.1); an IP literal ([192.0.2.1],
//     [IPv6:...]) and a comment are refused;
//   - the local part and each label of the domain (in its Unicode form)
//     must be of a single script (singleScript), else ErrMixedScripts.
//
// The whole address is at most 254 bytes. A domain wholly in another script
// (пример.рф) is accepted and stored as punycode (xn--e1afmkfd.xn--p1ai).
// Look-alike addresses of one script are Skeleton's concern.
func CanonicalEmail(raw string) (string, error) {
	s := strings.Trim(raw, " ")
	if strings.ContainsFunc(s, invisible) {
		return "", ErrEmail
	}
	s = width.Fold.String(s)
	at := strings.LastIndexByte(s, '@')
	if at <= 0 || at == len(s)-1 {
		return "", ErrEmail
	}
	local, err := canonicalLocal(s[:at])
	if err != nil {
		return "", err
	}
	domain, err := canonicalDomain(s[at+1:])
	if err != nil {
		return "", err
	}
	email := local + "@" + domain
	if len(email) > 254 {
		return "", ErrEmail
	}
	unicodeDomain, err := idna.Lookup.ToUnicode(domain)
	if err != nil {
		return "", ErrEmail
	}
	for _, part := range append(strings.Split(unicodeDomain, "."), local) {
		if !singleScript(part) {
			return "", ErrMixedScripts
		}
	}
	return email, nil
}

// canonicalLocal is the local part l in its canonical form (see
// CanonicalEmail), or the refusal of its spelling.
func canonicalLocal(l string) (string, error) {
	switch {
	case strings.HasPrefix(l, `"`):
		content, ok := unquote(l)
		switch {
		case !ok && (strings.Contains(l, `".`) || strings.Contains(l, `."`)):
			return "", errObsolete // "kim".lee, "kim"."lee": quoted words joined by dots
		case !ok, !dotAtom(content):
			return "", errQuoted
		}
		l = content
	case strings.ContainsRune(l, '"'):
		return "", errObsolete // kim."lee"
	case strings.ContainsAny(l, "()"):
		return "", errComment
	}
	local, err := precis.UsernameCaseMapped.String(l)
	switch {
	case err != nil:
		return "", ErrEmail
	case !dotAtom(local):
		return "", errDotAtom
	case len(local) > 64:
		return "", errLocalLength
	}
	return local, nil
}

// unquote is the content of q when q is one RFC 5322 quoted-string
// ("...", section 3.2.4) with its quoted pairs (\x) undone; ok is false
// when q is not exactly one.
func unquote(q string) (content string, ok bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	var b strings.Builder
	body := q[1 : len(q)-1]
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '\\':
			if i++; i == len(body) {
				return "", false
			}
			b.WriteByte(body[i])
		case '"':
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

// atext reports whether r may stand in a dot-atom: RFC 5322 section 3.2.3
// atext (letters, digits and !#$%&'*+-/=?^_`{|}~), widened to every
// non-ASCII character by RFC 6531 section 3.3 (UTF8-non-ascii; which ones an
// address may hold is PRECIS's concern).
func atext(r rune) bool {
	return r >= utf8.RuneSelf || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' ||
		strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r)
}

// dotAtom reports whether s is an RFC 5322 dot-atom-text: pieces of atext
// joined by single dots, none at the start or end.
func dotAtom(s string) bool {
	for piece := range strings.SplitSeq(s, ".") {
		if piece == "" || strings.ContainsFunc(piece, func(r rune) bool { return !atext(r) }) {
			return false
		}
	}
	return true
}

// canonicalDomain is the domain d in its canonical form, lower-case ASCII
// (see CanonicalEmail), or the refusal of its spelling.
func canonicalDomain(d string) (string, error) {
	switch {
	case strings.HasPrefix(d, "["):
		return "", errIPLiteral
	case strings.ContainsAny(d, "()"):
		return "", errComment
	}
	domain, err := idna.Lookup.ToASCII(d)
	switch {
	case err != nil, !strings.Contains(domain, "."):
		return "", ErrEmail
	case strings.HasSuffix(domain, "."):
		return "", errTrailingDot
	case len(domain) > 253:
		return "", errLabelLength
	}
	labels := strings.Split(strings.ToLower(domain), ".")
	for _, label := range labels {
		if len(label) > 63 {
			return "", errLabelLength
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return "", errNumericTLD
	}
	return strings.Join(labels, "."), nil
}

// augmented is, for a script that a writing system uses together with
// others, the writing systems it counts for (UTS #39 section 5.1, augmented
// script sets): Japanese writes Han with Hiragana and Katakana, Korean Han
// with Hangul, and Chinese may add Bopomofo to Han.
var augmented = map[string][]string{
	"Han":      {"Han", "Japanese", "Korean", "Bopomofo+Han"},
	"Hiragana": {"Japanese"},
	"Katakana": {"Japanese"},
	"Hangul":   {"Korean"},
	"Bopomofo": {"Bopomofo+Han"},
}

// singleScript reports whether s passes the UTS #39 (section 5.1) "single
// script" restriction: the scripts of its characters (the standard
// library's unicode.Scripts tables of the Script property), Common and
// Inherited aside (digits, punctuation, combining marks), have one in
// common once extended to their augmented sets (augmented). So "sam",
// "пример", "3com" and "東京すし" pass, "sаm" (Latin s, m and a Cyrillic а)
// does not. The Script_Extensions property, which the standard library
// lacks, is not consulted: a character it would extend is in Common or
// Inherited here, so it is never a reason to refuse.
func singleScript(s string) bool {
	var common []string // nil until a letter of some script is seen
	for _, r := range s {
		name := script(r)
		if name == "" {
			continue
		}
		sets, ok := augmented[name]
		if !ok {
			sets = []string{name}
		}
		if common == nil {
			common = sets
			continue
		}
		common = slices.DeleteFunc(slices.Clone(common), func(c string) bool { return !slices.Contains(sets, c) })
		if len(common) == 0 {
			return false
		}
	}
	return true
}

// script is the name of r's script in unicode.Scripts, "" for Common,
// Inherited and a code point of no script.
func script(r rune) string {
	for name, table := range unicode.Scripts {
		if name != "Common" && name != "Inherited" && unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// ParseTime parses an RFC 3339 time (section 5.6 grammar) strictly where
// time.Parse with time.RFC3339 is lenient, and leniently where RFC 3339 is:
// offsets must have hours 00-23 and minutes 00-59 (time.Parse takes +24:00
// and +00:60); the fraction separator is "." only (time.Parse also takes
// ","); and "T" and "Z" may be lower case, as section 5.6's note allows
// (time.Parse refuses "t" and "z").
func ParseTime(s string) (time.Time, error) {
	if strings.Contains(s, ",") {
		return time.Time{}, errors.New("the fraction of a second must follow a \".\"")
	}
	if len(s) > 10 && s[10] == 't' {
		s = s[:10] + "T" + s[11:]
	}
	if strings.HasSuffix(s, "z") {
		s = s[:len(s)-1] + "Z"
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, err
	}
	if strings.HasSuffix(s, "Z") {
		return t, nil
	}
	off := s[len(s)-6:] // time.Parse has checked the shape ±hh:mm
	if off[1:3] > "23" || off[4:6] > "59" {
		return time.Time{}, errors.New("the offset must be from -23:59 to +23:59")
	}
	return t, nil
}
