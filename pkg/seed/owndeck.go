package seed

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
)

// OwnDeck is the title of the demo teacher's own deck (issue 26), which she
// wrote herself and assigned to the demo class, due as AssignedDeck is (at
// the end, 11:59 PM in her zone, of the day SeededAssignmentDueDays after
// the seed ran), so that a newcomer sees a
// teacher's own words at once: in Ada's deck list and editor, and as cards
// on her learners' Today. OwnDeckEntries are its entries, in their order;
// the one of OwnMeaningTerm has the meaning Ada wrote, not the library's
// (WordNet's) definition of the word, which the others copy where the
// library has the word.
const (
	OwnDeck        = "Weather words"
	OwnMeaningTerm = "wind"
)

// OwnDeckEntries are OwnDeck's entries.
var OwnDeckEntries = []decks.EntryInput{
	{Term: "weather", PartOfSpeech: "noun", Example: "what is the weather like today?",
		Meaning: "the atmospheric conditions that comprise the state of the atmosphere in terms of temperature and wind and clouds and precipitation"},
	{Term: "rain", PartOfSpeech: "noun", Meaning: "water falling in drops from clouds", Example: "the rain kept us indoors"},
	{Term: "snow", PartOfSpeech: "noun", Meaning: "white flakes of frozen water that fall from the sky", Example: "the snow lay thick on the ground"},
	{Term: OwnMeaningTerm, PartOfSpeech: "noun", Meaning: "air you can feel moving: a light breeze or a strong gale", Example: "the wind blew my hat away"},
	{Term: "cloud", PartOfSpeech: "noun", Meaning: "a white or grey mass of tiny water drops floating in the sky", Example: "dark clouds mean rain"},
	{Term: "sun", PartOfSpeech: "noun", Meaning: "the star that is the source of light and heat for the planets in the solar system", Example: "the sun came out after lunch"},
	{Term: "fog", PartOfSpeech: "noun", Meaning: "a thick cloud close to the ground that is hard to see through", Example: "the fog closed the airport"},
	{Term: "storm", PartOfSpeech: "noun", Meaning: "very bad weather with strong wind and rain, often thunder", Example: "the storm knocked down a tree"},
	{Term: "thunder", PartOfSpeech: "noun", Meaning: "the loud noise that follows a flash of lightning", Example: "the dog hides when it hears thunder"},
	{Term: "ice", PartOfSpeech: "noun", Meaning: "water frozen in the solid state", Example: "be careful, there is ice on the path"},
	{Term: "warm", PartOfSpeech: "adjective", Meaning: "having or producing a comfortable and agreeable degree of heat or imparting or maintaining heat", Example: "a warm spring day"},
	{Term: "cold", PartOfSpeech: "adjective", Meaning: "having a low or inadequate temperature", Example: "a cold wind from the north"},
}

// startOwnDeck creates OwnDeck for the demo teacher unless she has it
// (pkg/decks' rules: its entries are lexemes of its own, deck.created is
// enqueued) and assigns it to the demo class as a class (classroom.Assign,
// which gives each of its learners a card of every entry, due at once),
// due at due (AssignedDeck's due time), in tx, enqueuing the events on ob.
// A second run finds both and changes nothing, as for AssignedDeck.
func startOwnDeck(ctx context.Context, tx pgx.Tx, c clock.Clock, sched *learning.Scheduler, ob *outbox.Outbox, due time.Time) error {
	own, err := decks.List(ctx, tx, TeacherID, true)
	if err != nil {
		return err
	}
	var deckID uuid.UUID
	for _, d := range own {
		if d.Title == OwnDeck {
			deckID = d.ID
		}
	}
	if deckID == uuid.Nil {
		d, batch, err := decks.New(c, sched).Create(ctx, tx, TeacherID, decks.NewDeck{Entries: OwnDeckEntries,
			DeckInfo: decks.DeckInfo{Title: OwnDeck, Description: "This week's words: the weather.", TermLanguage: "en", MeaningLanguage: "en"}})
		if err != nil {
			return fmt.Errorf("create %s: %w", OwnDeck, err)
		}
		if err := enqueue(ctx, tx, ob, batch); err != nil {
			return fmt.Errorf("create %s: %w", OwnDeck, err)
		}
		deckID = d.ID
	}
	_, batch, err := classroom.New(ob, c, sched).Assign(ctx, tx, TeacherID, classroom.AssignRequest{
		ClassID: ClassID, DeckID: deckID, DueAt: due})
	if err != nil {
		return fmt.Errorf("assign %s to the demo class: %w", OwnDeck, err)
	}
	if err := enqueue(ctx, tx, ob, batch); err != nil {
		return fmt.Errorf("assign %s to the demo class: %w", OwnDeck, err)
	}
	return nil
}

// enqueue enqueues batch's events on ob in tx.
func enqueue(ctx context.Context, tx pgx.Tx, ob *outbox.Outbox, batch events.Batch) error {
	evs, err := batch.Events()
	if err != nil {
		return err
	}
	return ob.Enqueue(ctx, tx, evs...)
}
