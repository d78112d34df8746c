// Package decks holds the rules of a teacher's own decks: a deck written,
// pasted or copied by a teacher, its entries (a term, a meaning, optionally
// an example and a part of speech), their order, and how an edit reaches
// every learner who has the deck.
//
// An entry is a lexemes row owned by its deck (schema 00027), so a
// learner's card, keyed on the lexeme, is the learner's memory of that
// entry: an edit of its text keeps every card's FSRS state and review
// history; an added entry gives every learner who has the deck (an
// assignment of it, or a self-study start) a new card, due at once, in the
// edit's own transaction; a removed entry keeps its row and its cards
// (history kept) but leaves the deck, so its cards leave every schedule and
// every progress total. The same word in two of a learner's decks (two
// teachers' decks, or a library deck and an own deck) is two entries, so
// two cards: each teacher's meaning is its own memory, and one teacher's
// edit never touches another's deck or the library.
//
// Every operation runs in the caller's transaction (pgx.Tx, or a store.DBTX
// for the reads), reads and writes through pkg/store, and returns the events
// the change causes as an events.Batch (deck.created, deck.entries_changed,
// under the deck's id), which the caller enqueues in the same transaction.
// Every write locks the deck's row first (store.LockOwnDeck); an
// assignment or an enrolment takes it FOR SHARE before it reads a deck's
// entries (store.LockDeckForCards, pkg/classroom), so a learner given the
// deck while it is edited gets every entry's card exactly once, from the
// one or the other. Input is validated whole before anything is written:
// a refused request changes nothing. Errors are the package's own
// (ErrDeckNotFound, *InputError, *ConflictError, ...), tested with
// errors.Is or errors.As; what they mean to a client (404, 400, 409) is
// decided by the caller.
//
// Usage, in a request's transaction:
//
//	d := decks.New(clk, sched)
//	res, batch, err := d.EditEntries(ctx, tx, teacherID, deckID, decks.EntriesEdit{Add: []decks.EntryInput{{Term: "gato", Meaning: "cat"}}})
//	var conflict *decks.ConflictError
//	if errors.As(err, &conflict) { ... } // 409: the entry changed since conflict.Version
//	evs, err := batch.Events() // set headers, then outbox.Enqueue(ctx, tx, evs...)
package decks
