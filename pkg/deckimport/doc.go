// Package deckimport reads the word lists teachers already have (a pasted
// list, a spreadsheet's CSV or TSV, Quizlet's and Anki's text exports) into
// the entries of one of their own decks, and writes a deck back out as CSV.
// It is named for what it does to a deck (the import of its entries; export
// is its inverse and shares its rules), and it is the database-free core
// that the HTTP functions and the web client's import dialog call: no SQL,
// no network, no clock. Parse gives a Preview of every row as it will be
// saved and every refused row with its line, field and reason; Preview.Plan
// turns the teacher's choices (duplicates skipped or updated, refused rows
// left out or not) into the entries to add and to update; Export writes a
// deck as CSV that spreadsheets open and Parse reads back, and WriteCSV any
// table (a gradebook) the same way.
//
// # Formats
//
// FormatList, one entry per line: the term, a separator, the meaning
// ("chat\tcat", "chat, cat", "chat; cat", "chat - cat"), as Quizlet's
// export and its import box write them (tab or comma between term and
// definition, a new line between rows). The row splits at the first
// separator, so a meaning may hold more of them ("cat, a small animal, a
// pet"); but a line that is exactly two RFC 4180 cells with a quote (a
// spreadsheet's CSV without a header row: `cat,"a small animal, a pet"`)
// is those two cells. Other quotes and HTML are text. Blank lines are left
// out. A tab list's line with a third column (term, meaning, example) is
// refused as a whole, its reason asking for a header row and the table
// format, since a tab is never a meaning's character. Without a forced separator it is detected (detectList): the
// candidate among tab, " - ", semicolon and comma found in the most lines;
// of candidates found in as many, the one that comes first in a line most
// often (the term comes first and rarely holds one); then tab, " - ",
// semicolon, comma in that order. Preview.Ambiguous is set when another
// candidate was found in as many lines ("big - large, huge" in every
// line), for the client to offer a choice, unless a tab was chosen (pasted
// text holds a tab only as a separator); a line without the separator is
// refused.
//
// FormatTable, CSV or TSV whose first row names the columns: the term
// (term, word, front, headword, lemma, vocabulary, expression, question),
// the meaning (meaning, definition, translation, back, gloss, answer), the
// example (example, sentence, usage) and the part of speech
// (part_of_speech, pos, word_class), compared case-insensitively with
// spaces, hyphens and underscores alike ("Part of speech"); Options.Columns
// adds or overrides names, other columns are not read. The separator is the
// first of tab, semicolon, comma and pipe that splits the first row into a
// term and a meaning column. When Options.Format is FormatTable and the
// first row names no term or no meaning column ("Wort,Bedeutung"), it is
// still the header: split by the forced separator or the first of those
// that splits it into two cells or more, its first columns that are
// neither known nor in Options.Columns are read as the term and the
// meaning, and Preview.Columns shows it so that the teacher can map them
// otherwise. Quoting is RFC 4180's, read by encoding/csv:
// a quoted cell may hold separators, doubled quotes and line breaks. A row
// with more non-blank cells than the header is refused; an unbalanced quote
// refuses its row at the line where it opens, and reading resumes after
// it.
//
// FormatAnki, Anki's plain-text export ("Notes in Plain Text"): header
// lines "#separator:" (Tab, Comma, Semicolon, Space, Pipe, Colon, by name
// in any case, or the character itself), "#html:true" or "#html:false",
// "#columns:" (column names, split with the separator whatever the order
// of the lines), "#deck:" (the deck's name, Preview.Title), "#notetype:"
// and "#tags:" (read and not kept: Lexora has neither), and "#notetype
// column:", "#deck column:", "#tags column:", "#guid column:" (those
// columns are not read); other "#" lines are comments, and a value Anki
// would ignore is ignored. Then CSV records as in a
// table, with "#" lines comments. The term and the meaning are the columns
// #columns names as a table's header would, or else the first two columns
// that are not notetype, deck, tags or guid columns. With #html:true (or no
// #html line and some cell holding a tag, Anki's own rule) each cell is
// reduced to text by golang.org/x/net/html's tokenizer: tags dropped (so
// images), character references decoded, <script>, <style>, <template>,
// <noscript>, <head> and <title> dropped with their content, br and block
// elements (div, p, li, ...) line breaks (a space in a term). Cloze
// deletions keep their text ("{{c1::chat::animal}}" is "chat"), what the
// card's answer shows; sound tags ("[sound:chat.mp3]") are dropped, since
// Lexora has no media.
// Quotes are read strictly, as in a table (Anki's own reader lets a stray
// quote through; Anki's export never writes one): a row with one is
// refused and says why. Elsewhere HTML is text: "<b>chat</b>" in a table
// is saved as written and a client shows it as text.
//
// Without Options.Format, an input whose first line (after Anki's legacy
// "tags:" line) is an Anki header line is FormatAnki, one whose first row
// names a term and a meaning column is FormatTable, and any other is
// FormatList.
//
// # Rules and limits
//
// Input: at most MaxInputBytes (4 MiB) of UTF-8, with or without a
// byte-order mark, lines ending in LF or CRLF; at most MaxEntries (2,000)
// rows, accepted or refused; and Preview.Plan keeps a deck, its entries and
// the new ones, within MaxEntries. Each field: trimmed of surrounding white
// space, in Unicode Normalization Form C, checked line by line by
// text.CheckSingleLine (no control, format or invisible character such as
// U+202E RIGHT-TO-LEFT OVERRIDE or U+200B ZERO WIDTH SPACE, each named by
// code point and Unicode name as the rest of Lexora names it). The term is
// one line of at most MaxTermRunes (200) characters; the meaning at most
// MaxMeaningRunes (1,000) and the example at most MaxExampleRunes (500),
// each one or more lines (blank lines left out); the term and the meaning
// must not be empty; the part of speech is one line of at most
// MaxPartOfSpeechRunes (50), as the deck editor (pkg/decks) allows: a name
// or an abbreviation NormalizePartOfSpeech knows becomes its constant
// ("adj." is adjective), any other text ("phrasal verb") is kept as typed,
// and only the text rules refuse it. Two rows are duplicates when their Keys (NFC, Unicode case
// folding, white space runs as one space) are equal; Options.Existing
// marks the rows whose term the deck already has.
//
// Whole-input refusals are *InputError values wrapping ErrTooLarge and
// ErrTooManyEntries (answer 413), ErrBinary, ErrUTF16 and ErrNotUTF8
// (answer 415; Latin-1 is named by its first invalid byte's offset and
// line, with the advice to save the file again as UTF-8), ErrEmpty,
// ErrNoHeader and ErrOptions (answer 400).
//
// # Export
//
// Export writes term, meaning, example, part_of_speech CSV with a UTF-8
// byte-order mark and CRLF; Parse reads it back to the same entries. An
// entry the deck editor stored (pkg/decks) comes back as stored but for two
// things: a part of speech NormalizePartOfSpeech knows comes back as its
// constant ("Noun" and "n." as "noun"; free text is unchanged), and a
// blank line inside a meaning or an example is left out. A cell
// beginning with =, +, -, @, a tab or a carriage return (after any
// apostrophes) gets a leading apostrophe, as OWASP's "CSV Injection"
// advises, so a spreadsheet shows it and does not compute it; FormatTable
// removes exactly that apostrophe again (a file from elsewhere whose cell
// begins with an apostrophe and a trigger loses the apostrophe). WriteCSV
// writes any table (a class's gradebook) the same way.
//
// # Sources
//
//   - RFC 4180, Common Format and MIME Type for Comma-Separated Values
//     (CSV) Files: the quoting, as encoding/csv reads and writes it.
//   - Anki's rslib/src/import_export/text/csv/metadata.rs (parse_meta_value,
//     delimiter_from_value), import.rs (build_csv_reader: "#" comments,
//     flexible record lengths), export.rs (the header lines it writes) and
//     rslib/src/text.rs (is_html, html_to_text_line, SOUND_TAG) and cloze.rs,
//     read at commit c32cb29 of github.com/ankitects/anki (2026-08-22).
//     The code here is Lexora's own; where it differs from Anki it says so
//     (#columns is split after every header line is read, not in order).
//   - Quizlet's import box as issue 26 describes it (tab, comma or custom
//     between term and definition; a new line between rows): Quizlet's help
//     pages were not reachable from the build machine.
//   - OWASP, "CSV Injection" (owasp.org/www-community/attacks/CSV_Injection):
//     the characters that start a formula and the apostrophe that defuses
//     them.
package deckimport
