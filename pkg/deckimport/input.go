package deckimport

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// The refusals of a whole input. Parse returns them wrapped in an
// *InputError (errors.Is finds them); the HTTP layer answers ErrTooLarge and
// ErrTooManyEntries with 413, ErrBinary, ErrUTF16 and ErrNotUTF8 with 415,
// and the others with 400.
var (
	// ErrEmpty: the input holds no entry (no byte, only blank lines, or a
	// header and nothing under it).
	ErrEmpty = errors.New("the list is empty: paste or upload at least one entry")
	// ErrTooLarge: the input is longer than MaxInputBytes.
	ErrTooLarge = fmt.Errorf("the list is larger than %d bytes (4 MiB): split it into several decks", MaxInputBytes)
	// ErrTooManyEntries: the input holds more than MaxEntries rows.
	ErrTooManyEntries = fmt.Errorf("the list has more than %d entries: split it into several decks", MaxEntries)
	// ErrBinary: the input holds a NUL byte and is not UTF-16 text (an
	// image, a spreadsheet's .xlsx, an Anki .apkg package).
	ErrBinary = errors.New("the file is not text (it holds a NUL byte): export the list as CSV or plain text")
	// ErrUTF16: the input is UTF-16 or UTF-32 (a byte-order mark, or the
	// NUL byte of every other byte that ASCII text in UTF-16 has).
	ErrUTF16 = errors.New("the file is in UTF-16 or UTF-32: save it again as UTF-8 (in Excel: CSV UTF-8)")
	// ErrNotUTF8: the input is not valid UTF-8, most often Latin-1 or
	// Windows-1252 from an older spreadsheet.
	ErrNotUTF8 = errors.New("the file is not UTF-8 (perhaps Latin-1 or Windows-1252): save it again as UTF-8 (in Excel: CSV UTF-8)")
	// ErrNoHeader: the format is FormatTable but the first row has one
	// cell, or Options.Columns leaves it no term or no meaning column.
	ErrNoHeader = errors.New("the first row must name the columns: a term column (term, word, front) and a meaning column (meaning, definition, translation, back)")
	// ErrOptions: the Options are inconsistent (an unknown format, a
	// separator the format cannot use, a column mapped to an unknown
	// field).
	ErrOptions = errors.New("invalid import options")
	// ErrRefused: Preview.Plan was asked to save while some rows are
	// refused and the caller did not choose to leave them out.
	ErrRefused = errors.New("some lines are refused: fix them, or choose to leave them out")
)

// InputError is the refusal of a whole input: Err is one of the errors
// above, Offset the byte offset (from 0) and Line the line (from 1) at
// fault, both 0 when no place is at fault, and Detail says more.
type InputError struct {
	Err    error
	Offset int
	Line   int
	Detail string
}

func (e *InputError) Error() string {
	msg := e.Err.Error()
	if e.Line > 0 {
		msg = fmt.Sprintf("line %d (byte %d): %s", e.Line, e.Offset, msg)
	}
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

func (e *InputError) Unwrap() error { return e.Err }

// Byte-order marks (the Unicode Standard, section 23.8).
var (
	bomUTF8    = []byte{0xEF, 0xBB, 0xBF}
	bomUTF16BE = []byte{0xFE, 0xFF}
	bomUTF16LE = []byte{0xFF, 0xFE}
	bomUTF32BE = []byte{0x00, 0x00, 0xFE, 0xFF}
)

// decode checks that input is UTF-8 text Parse may read and returns it
// without its UTF-8 byte-order mark. In order: too large (ErrTooLarge), empty
// (ErrEmpty), a UTF-16 or UTF-32 byte-order mark or NUL pattern
// (ErrUTF16), any other NUL byte (ErrBinary), invalid UTF-8 (ErrNotUTF8
// with the first bad byte's offset and line).
func decode(input []byte) ([]byte, error) {
	switch {
	case len(input) > MaxInputBytes:
		return nil, &InputError{Err: ErrTooLarge, Detail: fmt.Sprintf("%d bytes", len(input))}
	case len(bytes.TrimSpace(bytes.TrimPrefix(input, bomUTF8))) == 0:
		return nil, &InputError{Err: ErrEmpty}
	case bytes.HasPrefix(input, bomUTF32BE), bytes.HasPrefix(input, bomUTF16BE), bytes.HasPrefix(input, bomUTF16LE):
		return nil, &InputError{Err: ErrUTF16, Detail: "the file starts with a UTF-16 or UTF-32 byte-order mark"}
	case utf16Pattern(input):
		return nil, &InputError{Err: ErrUTF16, Detail: "every other byte is NUL"}
	}
	if i := bytes.IndexByte(input, 0); i >= 0 {
		return nil, &InputError{Err: ErrBinary, Offset: i, Line: lineAt(input, i)}
	}
	if !utf8.Valid(input) {
		i := invalidAt(input)
		return nil, &InputError{Err: ErrNotUTF8, Offset: i, Line: lineAt(input, i), Detail: fmt.Sprintf("byte 0x%02X", input[i])}
	}
	return bytes.TrimPrefix(input, bomUTF8), nil
}

// utf16Pattern reports whether the first 512 bytes of input look like
// UTF-16 or UTF-32 text without a byte-order mark: at least four of the
// even or of the odd positions NUL and at least half of them, which ASCII
// letters in UTF-16 give and binary formats (mostly non-NUL with NUL runs)
// rarely do.
func utf16Pattern(input []byte) bool {
	head := input[:min(len(input), 512)]
	var nul [2]int
	for i, b := range head {
		if b == 0 {
			nul[i%2]++
		}
	}
	half := len(head) / 2
	for _, n := range nul {
		if n >= 4 && n*2 >= half && n > nul[0]+nul[1]-n {
			return true
		}
	}
	return false
}

// invalidAt is the offset of the first byte of input that does not start a
// valid UTF-8 sequence.
func invalidAt(input []byte) int {
	for i := 0; i < len(input); {
		r, n := utf8.DecodeRune(input[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(input)
}

// lineAt is the line (from 1) holding byte offset i of input.
func lineAt(input []byte, i int) int { return bytes.Count(input[:i], []byte{'\n'}) + 1 }
