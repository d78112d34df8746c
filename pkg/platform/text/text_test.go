package text

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCanonicalEmail(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"repro@example.com", "repro@example.com"},
		{"  Repro@Example.COM ", "repro@example.com"},
		{"ｒｅｐｒｏ@example.com", "repro@example.com"}, // full-width forms
		{"repro@EXAMPLE.com.", ""},
		{"re.pro+tag@example.com", "re.pro+tag@example.com"},
		{"repro@bücher.example", "repro@xn--bcher-kva.example"},
		{"\u202erepro@example.com", ""},
		{"repro@example.com\u200b", ""},
		{"repro@example.com\ufeff", ""},
		{"re\u200dpro@example.com", ""},
		{"repro@exam\u00adple.com", ""},
		{"repro\u2028@example.com", ""},
		{"re pro@example.com", ""},
		{"repro@exa mple.com", ""},
		{"repro@localhost", ""},
		{"@example.com", ""},
		{"repro@", ""},
		{"a@b@example.com", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := CanonicalEmail(tc.in)
			if tc.want == "" {
				require.ErrorIs(t, err, ErrEmail, "%q gave %q", tc.in, got)
				return
			}
			require.NoError(t, err, tc.in)
			require.Equal(t, tc.want, got, tc.in)
		})
	}
}

// An address whose local part or a domain label mixes scripts looks like
// another one and is refused; one script (or Japanese, which mixes Han,
// Hiragana and Katakana) per part is not.
func TestCanonicalEmailRefusesMixedScripts(t *testing.T) {
	for _, in := range []string{"s\u0430m@example.com", "sam@ex\u0430mple.com", "sam@xn--exmple-4nf.com", "\u0440ayp\u0430l@example.com",
		"sam@example.c\u03bfm", "\u03b1lpha@example.com"} {
		got, err := CanonicalEmail(in)
		require.ErrorIs(t, err, ErrMixedScripts, "%q gave %q", in, got)
	}
	for in, want := range map[string]string{
		"\u0441\u0430\u0448\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444": "\u0441\u0430\u0448\u0430@xn--e1afmkfd.xn--p1ai",
		"\u0441\u0430\u0448\u0430@example.com":                                       "\u0441\u0430\u0448\u0430@example.com", // a Cyrillic local part, a Latin domain
		"\u6771\u4eac\u3059\u3057@example.jp":                                        "\u6771\u4eac\u3059\u3057@example.jp",  // Han and Hiragana: Japanese
		"zo\u00eb.2026@b\u00fccher.example":                                          "zo\u00eb.2026@xn--bcher-kva.example",
	} {
		got, err := CanonicalEmail(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got, in)
	}
}

func TestSingleLine(t *testing.T) {
	for _, s := range []string{"a\nb", "a\rb", "a\tb", "a\u2028b", "a\u2029b", "\u202eevil", "a\u200bb", "\ufeffa", "a\u0085b", "a\u00adb", "a\u2066b",
		// Invisible but not Cc/Cf/Zl/Zp, blank-only, and what a JSON decoder
		// makes of a lone surrogate (review F5).
		"Sam\u034fx", "Sam\u3164x", "Sam\ufe0fx", "Sam\u2800x", "\u3164", "\u2800", "\u3000", "\u00a0", " ", "\u3000\u00a0 ",
		"Sam\ufffdx"} {
		require.False(t, SingleLine(s), "%q", s)
	}
	for _, s := range []string{"Ada Lovelace", "Zoë", "李小龍", "O'Brien-Smith", "مرحبا", "", "Sam\u3000x", "Sam\u00a0x", "Zoë 👍", "Ａda",
		// Joiners inside text: a ZWJ emoji sequence (👩‍🏫), Persian with
		// ZWNJ (نیلوفر‌ها), Devanagari with ZWJ and ZWNJ after a virama.
		"Klasse 🇩🇪 👩\u200d🏫", "می\u200cخواهم", "نیلوفر\u200cها", "क्\u200dष", "क्\u200cष"} {
		require.True(t, SingleLine(s), "%q", s)
	}
	// A joiner at an edge, beside white space or beside another joiner
	// joins nothing visible.
	for _, s := range []string{"\u200dAda", "Ada\u200c", "Ada \u200dLi", "Ada\u200d\u200dLi", "\u200d"} {
		require.False(t, SingleLine(s), "%q", s)
	}
}

// TestVariationSelectors: U+FE0E and U+FE0F right after an emoji's base
// (a symbol, punctuation or digit) pass, also inside a ZWJ sequence and a
// keycap; leading, alone, doubled, after a letter, a space or a joiner, and
// the other selectors do not.
func TestVariationSelectors(t *testing.T) {
	for _, s := range []string{"I \u2764\ufe0f words", "\u2764\ufe0f", "\u263a\ufe0e", "Ada \u2764\ufe0f\u200d\U0001f525",
		"1\ufe0f\u20e3 class", "\u2139\ufe0f Info", "\u203c\ufe0f", "\u00a9\ufe0e 2026", "\U0001f441\ufe0f\u200d\U0001f5e8\ufe0f"} {
		require.NoError(t, CheckSingleLine(s), "%q", s)
	}
	for in, want := range map[string]string{
		"\ufe0f":             "U+FE0F VARIATION SELECTOR-16 may only follow",
		"\ufe0fAda":          "U+FE0F VARIATION SELECTOR-16 may only follow",
		"Sam\ufe0fx":         "U+FE0F VARIATION SELECTOR-16 may only follow",
		"Sam\ufe0e":          "U+FE0E VARIATION SELECTOR-15 may only follow",
		"\u2764\ufe0f\ufe0f": "U+FE0F VARIATION SELECTOR-16 may only follow",
		"\u2764 \ufe0f":      "U+FE0F VARIATION SELECTOR-16 may only follow",
		"a\u200d\ufe0f":      "U+200D ZERO WIDTH JOINER may only stand",
		"\u2764\ufe0f\u200d": "U+200D ZERO WIDTH JOINER may only stand",
		"\u2764\ufe00":       "U+FE00 VARIATION SELECTOR-1 is not allowed",
		"\u2764\ufe0f\u202e": "U+202E RIGHT-TO-LEFT OVERRIDE is not allowed",
	} {
		require.ErrorContains(t, CheckSingleLine(in), want, "%q", in)
	}
}

// TestCheckSingleLineNamesTheCharacter: the refusal says which character,
// by code point and Unicode name, so that a person can find it.
func TestCheckSingleLineNamesTheCharacter(t *testing.T) {
	for in, want := range map[string]string{
		"\u202eevil":    "U+202E RIGHT-TO-LEFT OVERRIDE",
		"a\u200bb":      "U+200B ZERO WIDTH SPACE",
		"a\nb":          "U+000A",
		"Sam\ufe0fx":    "U+FE0F VARIATION SELECTOR-16",
		"Sam\u3164x":    "U+3164 HANGUL FILLER",
		"Ada\u200c":     "U+200C ZERO WIDTH NON-JOINER",
		"\u3000\u00a0 ": "white space",
	} {
		err := CheckSingleLine(in)
		require.ErrorContains(t, err, want, "%q", in)
		require.False(t, SingleLine(in), "%q", in)
	}
	require.NoError(t, CheckSingleLine("Klasse 🇩🇪 👩\u200d🏫"))
}

func TestParseTime(t *testing.T) {
	for _, s := range []string{"2026-03-20T18:00:00Z", "2026-03-20T18:00:00+23:59", "2026-03-20T18:00:00-00:00", "2026-03-20T18:00:00.123456+05:30",
		"2026-03-20t18:00:00z", "2026-03-20t18:00:00.5+01:00", "2026-03-20T18:00:00z"} { // RFC 3339 5.6 NOTE: t and z may be lower case
		_, err := ParseTime(s)
		require.NoError(t, err, s)
	}
	for _, s := range []string{"2026-03-20T18:00:00+24:00", "2026-03-20T18:00:00+00:60", "2026-03-20T18:00:00-99:99", "2026-03-20", "2026-03-20T18:00:00", "2026-03-20T24:00:00Z",
		"2026-03-20T18:00:00,5Z", "2026-03-20T18:00:00,5+01:00", "2026-03-20 18:00:00Z", "2026-03-20T18:00:00Zz"} {
		_, err := ParseTime(s)
		require.Error(t, err, s)
	}
}

func TestCount(t *testing.T) {
	t.Parallel()
	require.Equal(t, "1 line", Count(1, "line", "lines"))
	require.Equal(t, "3 lines", Count(3, "line", "lines"))
	require.Equal(t, "0 entries", Count(0, "entry", "entries"))
}
