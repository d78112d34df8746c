package text

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEquivalentSpellings: each spelling that RFC 5321, 5322 or 6531 makes
// the same mailbox as another is stored in that one's canonical form, and
// each spelling no provider issues is refused with its own reason (the
// list of docs/architecture.md, "Text rules").
func TestEquivalentSpellings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// A quoted local part that needs no quoting is the dot-atom.
		{`"kim.lee"@example.com`, "kim.lee@example.com"},
		{`"Kim.Lee"@Example.COM`, "kim.lee@example.com"},
		{`"kim\.lee"@example.com`, "kim.lee@example.com"},
		{`"\k\i\m"@example.com`, "kim@example.com"},
		{`"kim+tag"@example.com`, "kim+tag@example.com"},
		{`"zoë"@example.com`, "zoë@example.com"},
		{"＂kim.lee＂@example.com", "kim.lee@example.com"},           // full-width quotes
		{"kim＠example.com", "kim@example.com"},                     // full-width @
		{"zo\u0065\u0308@example.com", "zo\u00eb@example.com"},     // NFD local part: NFC
		{"KIM@EXAMPLE.COM", "kim@example.com"},                     // case of both parts
		{"kim@xn--bcher-kva.example", "kim@xn--bcher-kva.example"}, // A-label
		{"kim@XN--BCHER-KVA.example", "kim@xn--bcher-kva.example"}, // A-label, upper case
		{"kim@BÜCHER.example", "kim@xn--bcher-kva.example"},        // U-label, upper case
		{"kim@bu\u0308cher.example", "kim@xn--bcher-kva.example"},  // U-label in NFD
		{"kim@example\u3002com", "kim@example.com"},                // ideographic full stop
		{"kim@ｅｘａｍｐｌｅ.com", "kim@example.com"},                     // full-width domain
		{"kim@stra\u00dfe.de", "kim@xn--strae-oqa.de"},             // ß kept (non-transitional)
		{"o'brien@example.com", "o'brien@example.com"},             // atext
		{"a!#$%&'*+-/=?^_`{|}~z@example.com", "a!#$%&'*+-/=?^_`{|}~z@example.com"},
		{strings.Repeat("a", 64) + "@example.com", strings.Repeat("a", 64) + "@example.com"},
		{"kim@" + strings.Repeat("a", 63) + ".example", "kim@" + strings.Repeat("a", 63) + ".example"},
		{"kim@example.c0m", "kim@example.c0m"}, // a last label with a letter
	} {
		got, err := CanonicalEmail(tc.in)
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.want, got, tc.in)
	}
	for in, reason := range map[string]string{
		`"kim lee"@example.com`:                       "needs no quotes",
		`"kim@lee"@example.com`:                       "needs no quotes",
		`"kim..lee"@example.com`:                      "needs no quotes",
		`".kim"@example.com`:                          "needs no quotes",
		`"kim,lee"@example.com`:                       "needs no quotes",
		`""@example.com`:                              "needs no quotes",
		`"kim"@"example.com"`:                         "",
		`"kim\"lee"@example.com`:                      "needs no quotes",
		`"kim\`:                                       "",
		`"kim"."lee"@example.com`:                     "obsolete",
		`"kim".lee@example.com`:                       "obsolete",
		`kim."lee"@example.com`:                       "obsolete",
		`kim"lee@example.com`:                         "obsolete",
		"kim(comment)@example.com":                    "comment",
		"(comment)kim@example.com":                    "comment",
		"kim@(comment)example.com":                    "comment",
		"kim@example.com(comment)":                    "comment",
		"kim..lee@example.com":                        "single dots",
		".kim@example.com":                            "single dots",
		"kim.@example.com":                            "single dots",
		`kim\lee@example.com`:                         "single dots",
		"kim,lee@example.com":                         "single dots",
		"kim:lee@example.com":                         "single dots",
		"<kim@example.com>":                           "single dots",
		"mailto:kim@example.com":                      "single dots",
		"kim[1]@example.com":                          "single dots",
		strings.Repeat("a", 65) + "@example.com":      "64 bytes",
		strings.Repeat("é", 33) + "@example.com":      "64 bytes",
		"kim@[192.0.2.1]":                             "IP address",
		"kim@[IPv6:2001:db8::1]":                      "IP address",
		"kim@192.0.2.1":                               "only digits",
		"kim@example.123":                             "only digits",
		"kim@example.com.":                            "end with a dot",
		"kim@" + strings.Repeat("a", 64) + ".example": "at most 63",
		"kim@" + strings.Repeat(strings.Repeat("a", 60)+".", 5) + "example": "at most 63",
		"kim@exa_mple.com": "",
		"kim@xn--abc.com":  "", // an A-label that decodes to nothing valid
		"kim@localhost":    "",
	} {
		got, err := CanonicalEmail(in)
		require.ErrorIs(t, err, ErrEmail, "%q gave %q", in, got)
		if reason != "" {
			require.ErrorContains(t, err, reason, in)
		}
	}
}

// TestConfusablesFile: the shipped confusables.txt is Unicode's file of
// ConfusablesVersion, byte for byte, and every line of it parses.
func TestConfusablesFile(t *testing.T) {
	sum := sha256.Sum256([]byte(ConfusablesFile))
	require.Equal(t, ConfusablesSHA256, hex.EncodeToString(sum[:]))
	require.Contains(t, ConfusablesFile, "# Version: "+ConfusablesVersion+"\n")
	p, err := parseConfusables(ConfusablesFile)
	require.NoError(t, err)
	require.Len(t, p, strings.Count(ConfusablesFile, "\tMA\t"), "one prototype per data line")
	require.Equal(t, "rn", p['m'])
	require.Equal(t, "a", p['\u0430']) // CYRILLIC SMALL LETTER A
}

// TestSkeleton: look-alikes of one script or of two share a skeleton,
// letters that differ to the eye do not, and a skeleton is its own.
func TestSkeleton(t *testing.T) {
	for _, group := range [][]string{
		{"sam@example.com", "sa\u1e43@example.com", "s\u0430m@example.com", "sa\u006d\u0323@example.com"}, // ṃ precomposed or not, Cyrillic а
		{"pay@example.com", "\u0440\u0430\u0443@example.com"},                                             // all Cyrillic
		{"jose@example.com", "jos\u00e9@example.com", "jose\u0301@example.com"},
		{"zoe@example.com", "zo\u00eb@example.com"},
		{"modern@example.com", "rnodern@example.com"}, // UTS #39: m is rn
		{"lukasz@example.com", "\u0142ukasz@example.com"},
		{"kim1@example.com", "kiml@example.com"},
		{"alpha@example.com", "\u0251lpha@example.com"}, // ɑ LATIN SMALL LETTER ALPHA
	} {
		for _, s := range group[1:] {
			require.Equal(t, Skeleton(group[0]), Skeleton(s), "%q and %q", group[0], s)
		}
	}
	for _, pair := range [][2]string{{"sam@example.com", "tam@example.com"}, {"jose@example.com", "josa@example.com"},
		{"\u6771\u4eac@example.jp", "\u4eac\u6771@example.jp"}, {"kim@example.com", "kim@example.org"}} {
		require.NotEqual(t, Skeleton(pair[0]), Skeleton(pair[1]), "%q and %q", pair[0], pair[1])
	}
	for r := range Prototypes() {
		s := Skeleton(string(r))
		require.Equal(t, s, Skeleton(s), "skeleton of %U", r)
	}
}
