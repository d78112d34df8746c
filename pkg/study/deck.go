package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/store"
)

// DeckStart is a learner's start of a library deck for self-study.
type DeckStart struct {
	DeckID uuid.UUID
	Title  string
	// Words is the number of the deck's words, hence of its cards.
	Words int
	// CardsCreated is how many of the deck's cards this call created (the
	// learner may hold some from other decks already); 0 when the deck had
	// been started.
	CardsCreated int
	// StartedAt is when the learner first started the deck.
	StartedAt time.Time
	// AlreadyStarted is false when this call started the deck, true when the
	// learner had started it before (then nothing changed).
	AlreadyStarted bool
}

// StartDeck starts the library deck deckID for the learner's self-study, in
// tx, with no teacher: it locks the learner's row, records the start
// (learner_decks, at the clock's NowOrNil) and gives the learner a new card
// (the scheduler's new card, due now) for each of the deck's words they
// have none for yet, so the deck's words join their schedule. Starting a
// deck again changes nothing and answers the first start (AlreadyStarted).
// It enqueues no event: no one but the learner is concerned. Errors:
// ErrDeckNotFound when deckID is not a deck of the shared library (a
// teacher's own deck is assigned, not started).
func (s Study) StartDeck(ctx context.Context, tx pgx.Tx, learner Learner, deckID uuid.UUID) (DeckStart, error) {
	q := store.On(tx)
	if err := q.LockUser(ctx, learner.ID); err != nil {
		return DeckStart{}, fmt.Errorf("lock learner: %w", err)
	}
	deck, err := q.LibraryDeck(ctx, deckID)
	if errors.Is(err, store.ErrNotFound) {
		return DeckStart{}, ErrDeckNotFound
	}
	if err != nil {
		return DeckStart{}, fmt.Errorf("load deck: %w", err)
	}
	start, err := q.StartDeck(ctx, learner.ID, deckID, s.clock.NowOrNil())
	if err != nil {
		return DeckStart{}, fmt.Errorf("start deck: %w", err)
	}
	out := DeckStart{DeckID: deckID, Title: deck.Title, Words: int(deck.Words), StartedAt: start.StartedAt, AlreadyStarted: !start.NowStarted}
	if out.AlreadyStarted {
		return out, nil
	}
	fresh := s.scheduler.NewCard()
	made, err := q.CreateCards(ctx, store.CreateCardsParams{DeckID: deckID, LearnerID: learner.ID,
		State: int16(fresh.State), Due: fresh.Due, Stability: fresh.Stability, Difficulty: fresh.Difficulty, Step: int32(fresh.Step)})
	if err != nil {
		return DeckStart{}, fmt.Errorf("create cards: %w", err)
	}
	out.CardsCreated = int(made.Created)
	return out, nil
}
