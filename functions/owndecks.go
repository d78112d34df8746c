package functions

import (
	"bytes"
	"context"
	"errors"
	"mime"
	"net/http"
	"strings"
	"unicode"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/deckimport"
	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

// A teacher's own decks: written, copied, pasted or imported, edited while
// assigned, exported; the rules are pkg/decks' (and pkg/deckimport's for
// the lists read and written). Every function here is a teacher's: a
// learner or an operator gets 404, another teacher's deck is a 404 (as one
// that does not exist), and the library is read-only. Learners read a
// deck's words only as their own cards (GetSchedule).

// deckBodyBytes caps the body of a function that takes a deck's entries or
// a list to import (64 KiB, httpx.MaxBodyBytes, for the others): 2,000
// entries of the longest texts (about 3.6 MB as JSON), or the 4 MiB list
// deckimport reads (deckimport.MaxInputBytes: 5.3 MiB in base64), fit; a
// 10 MiB body is a 413 before it is read.
const deckBodyBytes = 6 << 20

// decks is the decks' rules on s's clock and scheduler.
func (s *Service) decks() decks.Decks { return decks.New(s.clock, s.scheduler) }

// ListOwnDecks (GET ?archived=) answers the calling teacher's own decks by
// title, archived ones only with archived=true: {"decks": [decks.Deck]}.
// 400 for another parameter or archived not true or false.
func (s *Service) ListOwnDecks(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	q := newQueryParams(r)
	archived := q.boolean("archived")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		list, err := decks.List(r.Context(), tx, t.ID, archived)
		return api.OwnDeckList{Decks: eachOrEmpty(list, toDeckDetails)}, err
	})
}

// GetDeck (GET ?deck_id=) answers a library deck or one of the calling
// teacher's, with its live entries in their order (decks.Get). 404 for
// another teacher's deck or none.
func (s *Service) GetDeck(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	q := newQueryParams(r)
	deckID := q.requiredUUID("deck_id")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		d, entries, err := decks.Get(r.Context(), tx, t.ID, deckID)
		return toDeckWithEntries(d, entries), err
	})
}

// CreateDeck (POST) stores a deck of the calling teacher's with its first
// entries and enqueues deck.created (decks.Decks.Create). Answers: 201
// with the deck and its entries; 400 naming the field (title,
// entries[3].term) of an invalid one, or a term twice in any letter case;
// 409 for a title the teacher has already; 413 for more than 2,000 entries
// or a body over 6 MiB.
func (s *Service) CreateDeck(w http.ResponseWriter, r *http.Request) {
	postUpTo(s, w, r, account.Teacher, "CreateDeck", http.StatusCreated, deckBodyBytes,
		func(ctx context.Context, tx pgx.Tx, t user, req api.CreateDeckJSONBody) (any, error) {
			in := decks.NewDeck{Entries: each(req.Entries, fromEntryInput), DeckInfo: decks.DeckInfo{Title: req.Title,
				Description: req.Description, TermLanguage: req.TermLanguage, MeaningLanguage: req.MeaningLanguage}}
			d, batch, err := s.decks().Create(ctx, tx, t.ID, in)
			if err != nil {
				return nil, err
			}
			out, err := s.answerDeck(ctx, tx, r, t, d.ID, batch)
			return out, err
		})
}

// CopyDeck (POST) stores a new deck of the calling teacher's with the
// entries of a library deck or of one of theirs and enqueues deck.created
// (decks.Decks.Copy). Answers: 201 with the copy and its entries; 404 for
// another teacher's deck or none; 400 for an invalid title; 409 for a
// title the teacher has already.
func (s *Service) CopyDeck(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "CopyDeck", http.StatusCreated,
		func(ctx context.Context, tx pgx.Tx, t user, req api.CopyDeckJSONBody) (any, error) {
			d, batch, err := s.decks().Copy(ctx, tx, t.ID, decks.CopyRequest{SourceID: uuid.MustParse(req.SourceId), Title: req.Title})
			if err != nil {
				return nil, err
			}
			out, err := s.answerDeck(ctx, tx, r, t, d.ID, batch)
			return out, err
		})
}

// answerDeck enqueues batch, the events of a deck's creation, with the
// request's headers and answers the deck as stored, with its entries.
func (s *Service) answerDeck(ctx context.Context, tx pgx.Tx, r *http.Request, t user, deckID uuid.UUID, batch events.Batch) (api.DeckWithEntries, error) {
	if err := s.enqueue(ctx, tx, r, t, batch); err != nil {
		return api.DeckWithEntries{}, err
	}
	d, entries, err := decks.Get(ctx, tx, t.ID, deckID)
	return toDeckWithEntries(d, entries), err
}

// UpdateDeck (POST) writes the calling teacher's deck's title, description
// and languages when its version is the one given
// (decks.Decks.UpdateInfo). Answers: 200 with the new version; 400 naming
// the invalid field; 404 for another teacher's deck, the library's, or
// none; 409 (stale-version) when the deck changed since that version, or
// for a title the teacher has already.
func (s *Service) UpdateDeck(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "UpdateDeck", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.UpdateDeckJSONBody) (any, error) {
			id := uuid.MustParse(req.DeckId)
			v, err := s.decks().UpdateInfo(ctx, tx, t.ID, id, req.Version, decks.DeckInfo{Title: req.Title,
				Description: req.Description, TermLanguage: req.TermLanguage, MeaningLanguage: req.MeaningLanguage})
			return api.DeckVersion{DeckId: id, Version: v}, err
		})
}

// EditDeckEntries (POST) adds, changes and removes entries of the calling
// teacher's deck in one edit, giving every learner who has it the new
// entries' cards in the same transaction, and enqueues
// deck.entries_changed (decks.Decks.EditEntries). Answers: 200 with what
// it did; 400 naming the invalid field (add[2].meaning) or a term the deck
// has in any letter case; 404 for another teacher's deck, the library's,
// or none; 409 (stale-version) when an entry changed or was removed since
// the version given; 413 beyond 2,000 entries or a 6 MiB body.
func (s *Service) EditDeckEntries(w http.ResponseWriter, r *http.Request) {
	postUpTo(s, w, r, account.Teacher, "EditDeckEntries", http.StatusOK, deckBodyBytes,
		func(ctx context.Context, tx pgx.Tx, t user, req api.EditDeckEntriesJSONBody) (any, error) {
			edit := decks.EntriesEdit{Add: each(req.Add, fromEntryInput),
				Change: each(req.Change, func(c api.EntryChange) decks.EntryChange {
					return decks.EntryChange{ID: uuid.MustParse(c.Id), Version: c.Version, EntryInput: decks.EntryInput{
						Term: c.Term, Meaning: c.Meaning, Example: c.Example, PartOfSpeech: c.PartOfSpeech}}
				}),
				Remove: each(req.Remove, func(e api.EntryRef) decks.EntryRemoval {
					return decks.EntryRemoval{ID: uuid.MustParse(e.Id), Version: e.Version}
				})}
			res, batch, err := s.decks().EditEntries(ctx, tx, t.ID, uuid.MustParse(req.DeckId), edit)
			if err != nil {
				return nil, err
			}
			return toEntriesResult(res), s.enqueue(ctx, tx, r, t, batch)
		})
}

// ReorderDeckEntries (POST) puts the calling teacher's deck's entries in
// the order given when the deck's version is the one given
// (decks.Decks.Reorder). Answers: 200 with the new version; 400 when the
// order does not name every live entry once; 404; 409 (stale-version).
func (s *Service) ReorderDeckEntries(w http.ResponseWriter, r *http.Request) {
	postUpTo(s, w, r, account.Teacher, "ReorderDeckEntries", http.StatusOK, deckBodyBytes,
		func(ctx context.Context, tx pgx.Tx, t user, req api.ReorderDeckEntriesJSONBody) (any, error) {
			id := uuid.MustParse(req.DeckId)
			v, err := s.decks().Reorder(ctx, tx, t.ID, id, req.Version, each(req.Order, uuid.MustParse))
			return api.DeckVersion{DeckId: id, Version: v}, err
		})
}

// PreviewDeckImport (POST) reads a pasted list or a file as an import
// would and answers its preview, writing nothing (decks.PreviewImport):
// every accepted row with its line and duplicates, every refused row with
// its line, field and reason. Answers: 200; 400 for an empty list, a
// table without a header, inconsistent options, or not exactly one of
// text and file; 404 for a deck_id that is not the teacher's; 413 for more
// than 4 MiB or 2,000 rows; 415 for a binary, UTF-16 or non-UTF-8 file.
// It takes an Idempotency-Key, as a POST does, though it writes nothing.
func (s *Service) PreviewDeckImport(w http.ResponseWriter, r *http.Request) {
	postUpTo(s, w, r, account.Teacher, "PreviewDeckImport", http.StatusOK, deckBodyBytes,
		func(ctx context.Context, tx pgx.Tx, t user, req api.ImportInput) (any, error) {
			input, field, opts, _, err := importOptions(req, false)
			if err != nil {
				return nil, err
			}
			deckID := uuid.Nil
			if req.DeckId != "" {
				deckID = uuid.MustParse(req.DeckId)
			}
			p, err := decks.PreviewImport(ctx, tx, t.ID, deckID, input, opts)
			if err != nil {
				return nil, importError(err, field)
			}
			return toImportPreview(p), nil
		})
}

// ImportDeckEntries (POST) reads a pasted list or a file into the calling
// teacher's deck, as PreviewDeckImport previews it and the teacher chose
// (decks.Decks.Import): the new rows are new cards for every learner who
// has the deck, and deck.entries_changed is enqueued. Answers: 200 with the
// edit and the lines left out; 400 (import-refused) listing every refused
// row by line and field while leave_out_refused is not true, and as
// PreviewDeckImport; 404; 409 (stale-version); 413 when the deck would
// hold more than 2,000 entries, and as PreviewDeckImport; 415 likewise.
func (s *Service) ImportDeckEntries(w http.ResponseWriter, r *http.Request) {
	postUpTo(s, w, r, account.Teacher, "ImportDeckEntries", http.StatusOK, deckBodyBytes,
		func(ctx context.Context, tx pgx.Tx, t user, req api.ImportInput) (any, error) {
			input, field, opts, choice, err := importOptions(req, true)
			if err != nil {
				return nil, err
			}
			res, batch, err := s.decks().Import(ctx, tx, t.ID, uuid.MustParse(req.DeckId), decks.ImportRequest{Input: input,
				Options: opts, Duplicates: choice, LeaveOutRefused: req.LeaveOutRefused})
			if err != nil {
				return nil, importError(err, field)
			}
			return api.ImportResult{Result: toEntriesResult(res.EntriesResult), Left: eachOrEmpty(res.Left, func(l int) int { return l })},
				s.enqueue(ctx, tx, r, t, batch)
		})
}

// importOptions reads an import's body: the input (text or file, exactly
// one; field names it), the parser's options, and the choice for
// duplicates. An import (forImport) needs a deck_id and may choose
// duplicates and leave_out_refused; a preview needs neither. Errors: a 400
// problem naming the field.
func importOptions(req api.ImportInput, forImport bool) ([]byte, string, deckimport.Options, deckimport.Duplicates, error) {
	var fields []httpx.FieldError
	input, field := []byte(req.Text), "text"
	switch {
	case req.Text != "" && req.File != nil:
		fields = append(fields, httpx.FieldError{Field: "file", Reason: "give text or file, not both"})
	case req.File != nil:
		input, field = req.File, "file"
	case req.Text == "":
		fields = append(fields, httpx.FieldError{Field: "text", Reason: "required: give the list as text, or the file's bytes as file"})
	}
	if forImport && req.DeckId == "" {
		fields = append(fields, httpx.FieldError{Field: "deck_id", Reason: "required"})
	}
	if !forImport && req.Duplicates != "" {
		fields = append(fields, httpx.FieldError{Field: "duplicates", Reason: "is chosen when importing (ImportDeckEntries), not in a preview"})
	}
	if !forImport && req.LeaveOutRefused {
		fields = append(fields, httpx.FieldError{Field: "leave_out_refused", Reason: "is chosen when importing (ImportDeckEntries), not in a preview"})
	}
	if len(fields) > 0 {
		return nil, "", deckimport.Options{}, 0, invalid("one or more fields are invalid", fields...)
	}
	opts := deckimport.Options{Format: deckimport.Format(req.Format), Separator: deckimport.Separator(req.Separator)}
	if len(req.Columns) > 0 {
		opts.Columns = make(map[string]deckimport.Field, len(req.Columns))
		for name, f := range req.Columns {
			opts.Columns[name] = fromColumnField(f)
		}
	}
	choice := deckimport.Skip
	if req.Duplicates == "update" {
		choice = deckimport.Update
	}
	return input, field, opts, choice, nil
}

// importError is err, with a refusal of the whole input (deckimport's
// *InputError) as its problem naming field (text or file) and, when one is
// at fault, the line: 413 for a list too large or too long, 415 for a file
// that is not UTF-8 text, 400 for the others.
func importError(err error, field string) error {
	ie, ok := errors.AsType[*deckimport.InputError](err)
	if !ok {
		return err
	}
	status, typ, title := http.StatusBadRequest, httpx.TypeValidation, "Invalid list"
	switch {
	case errors.Is(err, deckimport.ErrTooLarge), errors.Is(err, deckimport.ErrTooManyEntries):
		status, typ, title = http.StatusRequestEntityTooLarge, httpx.TypeRequestTooLarge, "List too large"
	case errors.Is(err, deckimport.ErrBinary), errors.Is(err, deckimport.ErrUTF16), errors.Is(err, deckimport.ErrNotUTF8):
		status, typ, title = http.StatusUnsupportedMediaType, httpx.TypeUnsupportedMedia, "Not a UTF-8 text file"
	}
	p := httpx.NewProblem(status, typ, title, ie.Error())
	p.Errors = []httpx.FieldError{{Field: field, Reason: ie.Error()}}
	return p
}

// ExportDeck (GET ?deck_id=) answers a library deck or one of the calling
// teacher's as CSV (decks.ExportCSV: text/csv, an attachment named after
// the deck), which ImportDeckEntries reads back to the same entries.
// Answers: 200; 404 for another teacher's deck or none.
func (s *Service) ExportDeck(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	q := newQueryParams(r)
	deckID := q.requiredUUID("deck_id")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.csv(w, r, func(tx pgx.Tx, buf *bytes.Buffer) (string, error) {
		d, err := decks.ExportCSV(r.Context(), tx, t.ID, deckID, buf)
		return d.Title, err
	})
}

// ExportClassProgress (GET ?class_id=) answers the calling teacher's
// class's progress grid as CSV for a gradebook (classroom.Gradebook: one
// row per learner, one column group per deck), every cell neutralised
// against CSV injection (deckimport.WriteCSV). Answers: 200; 404 for a
// class that is not the caller's.
func (s *Service) ExportClassProgress(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	q := newQueryParams(r)
	classID := q.requiredUUID("class_id")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.csv(w, r, func(tx pgx.Tx, buf *bytes.Buffer) (string, error) {
		p, err := classroom.ClassProgressOf(r.Context(), tx, t.ID, classID, s.now())
		if err != nil {
			return "", err
		}
		return p.Name + " progress", deckimport.WriteCSV(buf, classroom.Gradebook(p))
	})
}

// csv runs fn, a CSV export's work, in one repeatable-read transaction (as
// read) and answers 200 with what it wrote as text/csv, an attachment
// named after the name it returns (fileName), or fn's error as a problem.
func (s *Service) csv(w http.ResponseWriter, r *http.Request, fn func(pgx.Tx, *bytes.Buffer) (string, error)) {
	var buf bytes.Buffer
	var name string
	err := pgx.BeginTxFunc(r.Context(), s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead}, func(tx pgx.Tx) error {
		var err error
		name, err = fn(tx, &buf)
		return err
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": fileName(name) + ".csv"}))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}

// fileName is name as a file name: letters, digits, spaces, hyphens,
// underscores and dots kept, anything else (a slash, a quote, a control
// character) a hyphen, at most 100 characters; "deck" when nothing is left.
func fileName(name string) string {
	out := []rune(strings.Map(func(c rune) rune {
		if unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune(" -_.", c) {
			return c
		}
		return '-'
	}, name))
	if len(out) > 100 {
		out = out[:100]
	}
	if s := strings.Trim(string(out), " .-"); s != "" {
		return s
	}
	return "deck"
}

// ArchiveDeck (POST) archives the calling teacher's deck, or takes it out
// of the archive (decks.Decks.Archive): its learners keep its cards and
// assignments. Answers: 200 with when it was archived (null: not); 404.
func (s *Service) ArchiveDeck(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "ArchiveDeck", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.ArchiveDeckJSONBody) (any, error) {
			id := uuid.MustParse(req.DeckId)
			at, err := s.decks().Archive(ctx, tx, t.ID, id, req.Archived)
			return api.DeckArchive{DeckId: id, ArchivedAt: at}, err
		})
}

// DeleteDeck (POST) deletes the calling teacher's deck with its entries
// when no learner has or had it (decks.Decks.Delete). Answers: 200; 404;
// 409 (deck-in-use) for a deck that was ever assigned: archive it instead.
func (s *Service) DeleteDeck(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Teacher, "DeleteDeck", http.StatusOK,
		func(ctx context.Context, tx pgx.Tx, t user, req api.DeleteDeckJSONBody) (any, error) {
			id := uuid.MustParse(req.DeckId)
			return api.DeckDeletion{DeckId: id}, s.decks().Delete(ctx, tx, t.ID, id)
		})
}

// LookupLibraryTerm (GET ?term=) answers what the WordNet library knows of
// a term (decks.FromLibrary: at most 10 entries, none when it lacks it),
// for a teacher filling in a new entry. 400 without a term or for one
// longer than 200 characters.
func (s *Service) LookupLibraryTerm(w http.ResponseWriter, r *http.Request) {
	if _, ok := s.caller(w, r, http.MethodGet, account.Teacher); !ok {
		return
	}
	q := newQueryParams(r)
	term := q.text("term", decks.MaxTerm)
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		found, err := decks.FromLibrary(r.Context(), tx, term)
		return api.LibraryMatches{Entries: eachOrEmpty(found, func(e decks.EntryInput) api.LibraryEntry {
			return api.LibraryEntry{Term: e.Term, Meaning: e.Meaning, Example: e.Example, PartOfSpeech: e.PartOfSpeech}
		})}, err
	})
}
