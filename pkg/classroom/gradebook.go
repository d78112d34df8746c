package classroom

import (
	"strconv"
	"time"

	"github.com/google/uuid"
)

// Gradebook is p as a table for a spreadsheet's gradebook: a header row,
// then one row per learner (in p's order). The first column is the
// learner's display name; then one group of four columns per deck,
// "<title>: seen", "<title>: learned", "<title>: total" (the progress
// projection's counts, empty until it has counted the assignment) and
// "<title>: completed" (the completion date, YYYY-MM-DD in UTC, empty
// while not completed). The decks are the class's own (p.Decks, in their
// order) and then those assigned to a learner alone, in the order the
// learners' rows first name them; a learner without an assignment of a
// deck has its four cells empty, and of a deck assigned twice (renewed
// once due) the latest due counts. The cells are the text as stored: the
// writer (deckimport.WriteCSV) neutralises formulas.
func Gradebook(p ClassProgress) [][]string {
	type column struct {
		id    uuid.UUID
		title string
	}
	var decks []column
	seen := map[uuid.UUID]bool{}
	addDeck := func(id uuid.UUID, title string) {
		if !seen[id] {
			seen[id] = true
			decks = append(decks, column{id, title})
		}
	}
	for _, d := range p.Decks {
		addDeck(d.DeckID, d.DeckTitle)
	}
	for _, l := range p.Learners {
		for _, a := range l.Assignments {
			addDeck(a.DeckID, a.DeckTitle)
		}
	}
	header := []string{"learner"}
	for _, d := range decks {
		header = append(header, d.title+": seen", d.title+": learned", d.title+": total", d.title+": completed")
	}
	rows := [][]string{header}
	for _, l := range p.Learners {
		latest := map[uuid.UUID]AssignmentProgress{}
		for _, a := range l.Assignments {
			if cur, ok := latest[a.DeckID]; !ok || a.DueAt.After(cur.DueAt) {
				latest[a.DeckID] = a
			}
		}
		row := []string{l.DisplayName}
		for _, d := range decks {
			a, ok := latest[d.id]
			cells := []string{"", "", "", ""}
			if ok && a.Progress != nil {
				cells[0], cells[1], cells[2] = strconv.Itoa(a.Progress.CardsSeen), strconv.Itoa(a.Progress.CardsLearned), strconv.Itoa(a.Progress.CardsTotal)
			}
			if ok && a.CompletedAt != nil {
				cells[3] = a.CompletedAt.UTC().Format(time.DateOnly)
			}
			row = append(row, cells...)
		}
		rows = append(rows, row)
	}
	return rows
}
