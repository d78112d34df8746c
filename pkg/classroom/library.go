package classroom

import (
	"context"
	"fmt"
	"github.com/lexora-app/lexora/pkg/store"

	"github.com/google/uuid"
)

// Deck is a deck a teacher may assign.
type Deck struct {
	ID          uuid.UUID `json:"id"`
	Title       string    `json:"title"`
	Description string    `json:"description"`
	// Words is the number of lexemes in the deck (a learner gets a card for each).
	Words int `json:"words"`
	// Level is the frequency band of the deck's words, 1 (the 200 most
	// frequent words of the library's list) to 5 (ranked 801 and beyond);
	// null for a teacher's own deck (schema/00018_deck_level.sql).
	Level *int `json:"level"`
	// Library is true for the shared library's decks, false for the
	// teacher's own.
	Library bool `json:"library"`
}

// ListDecks answers the decks teacherID may assign: the library's, by level
// then title, then the teacher's own, by title.
func ListDecks(ctx context.Context, db store.DBTX, teacherID uuid.UUID) ([]Deck, error) {
	rows, err := store.New(db).LibraryDecks(ctx, teacherID)
	if err != nil {
		return nil, fmt.Errorf("list decks: %w", err)
	}
	out := make([]Deck, 0, len(rows))
	for _, r := range rows {
		d := Deck{ID: r.ID, Title: r.Title, Description: r.Description, Words: int(r.Words), Library: r.Library}
		if r.Level != nil {
			level := int(*r.Level)
			d.Level = &level
		}
		out = append(out, d)
	}
	return out, nil
}
