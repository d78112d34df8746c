package classroom

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/store"
)

// Deck is a deck of the shared library, or a teacher's own.
type Deck struct {
	ID          uuid.UUID
	Title       string
	Description string
	// Words is the number of lexemes in the deck (a learner gets a card for each).
	Words int
	// Level is the frequency band of the deck's words, 1 (the 200 most
	// frequent words of the library's list) to 5 (ranked 801 and beyond);
	// null for a teacher's own deck (schema/00018_deck_level.sql).
	Level *int
	// Library is true for the shared library's decks, false for the
	// teacher's own.
	Library bool
	// Started tells whether the caller, a learner, has begun the deck: by
	// starting it (StartDeck) or because a teacher assigned it to them.
	// Always false for a teacher.
	Started bool
}

// ListDecks answers the decks the user viewer may see, as role: a
// teacher's are those they may assign, the library's by level then title,
// then their own by title; anyone else's (a learner's) are the library's,
// each saying whether they have started it.
func ListDecks(ctx context.Context, db store.DBTX, viewer uuid.UUID, role account.Role) ([]Deck, error) {
	learner, teacher := &viewer, (*uuid.UUID)(nil)
	if role == account.Teacher {
		learner, teacher = nil, &viewer
	}
	rows, err := store.On(db).LibraryDecks(ctx, learner, teacher)
	if err != nil {
		return nil, fmt.Errorf("list decks: %w", err)
	}
	out := make([]Deck, 0, len(rows))
	for _, r := range rows {
		d := Deck{ID: r.ID, Title: r.Title, Description: r.Description, Words: int(r.Words), Library: r.Library, Started: r.Started}
		if r.Level != nil {
			level := int(*r.Level)
			d.Level = &level
		}
		out = append(out, d)
	}
	return out, nil
}
