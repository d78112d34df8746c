package classroom

import (
	"context"
	"errors"
	"fmt"
	"github.com/lexora-app/lexora/pkg/store"
	"time"

	"github.com/google/uuid"
)

// HardestWordsShown is how many words ClassProgress.HardestWords lists at most.
const HardestWordsShown = 10

// ClassProgress is a class's learner × assignment grid as its teacher sees
// it: every assignment made through the class to each current member (not
// those made through the teacher's other classes), with what
// the progress projection (written by the drain, so a moment behind the
// reviews) last counted and when, and the class's hardest words.
type ClassProgress struct {
	ClassID uuid.UUID
	Name    string
	// Now is the instant CardsDue counts at.
	Now time.Time
	// Decks are the decks assigned to the class itself, which its learners
	// get, those who join later too (until the deck is due); listed even
	// when nobody has joined yet.
	Decks    []ClassDeck
	Learners []LearnerProgress
	// ProgressUpdatedAt is the latest UpdatedAt of the grid's progress;
	// null when the projection has counted none of its assignments yet.
	ProgressUpdatedAt *time.Time
	HardestWords      []HardWord
}

// ClassDeck is a deck assigned to a class: DueAt is its due date for the
// learners who get it, AssignedAt when the teacher assigned (or renewed) it.
type ClassDeck struct {
	DeckID     uuid.UUID
	DeckTitle  string
	DueAt      time.Time
	AssignedAt time.Time
	// DesiredRetention is the recall probability at which the deck's cards
	// come due, in [0.80, 0.95] (SetDeckRetention).
	DesiredRetention float64
}

// LearnerProgress is one row of the grid: a member and the class's
// assignments to them, by deck title.
type LearnerProgress struct {
	LearnerID   uuid.UUID
	DisplayName string
	Assignments []AssignmentProgress
}

// AssignmentProgress is one cell of the grid.
type AssignmentProgress struct {
	AssignmentID uuid.UUID
	DeckID       uuid.UUID
	DeckTitle    string
	DueAt        time.Time
	CompletedAt  *time.Time
	// CardsDue counts the assignment's cards due at ClassProgress.Now (not
	// suspended), read from the cards themselves: it is never behind.
	CardsDue int
	// Progress is the progress projection's row; null until the drain has
	// handled the assignment's creation.
	Progress *Progress
}

// Progress is what the progress projection counted for an assignment.
type Progress struct {
	CardsTotal   int
	CardsSeen    int
	CardsLearned int
	Reviews      int
	// LastStudyDay is the last study day (YYYY-MM-DD, the learner's, see
	// learning.StudyDay) with a review of the assignment; null before the
	// first.
	LastStudyDay *string
	// UpdatedAt is when the projection last changed this row.
	UpdatedAt time.Time
}

// HardWord is a word the class's learners lapsed on (rated Again once it
// was learned), among the words of the decks assigned them through the class.
type HardWord struct {
	LexemeID     uuid.UUID
	Lemma        string
	PartOfSpeech string
	// Lapses is the sum of the learners' lapses of the word.
	Lapses int
	// Learners counts the learners who lapsed on it at least once.
	Learners int
	// Leeches counts the learners whose card of it is suspended as a leech.
	Leeches int
}

// ClassProgressOf answers the grid of teacherID's class classID at now,
// with at most HardestWordsShown hardest words (most lapses first).
// Errors: ErrClassNotFound when the class is not the teacher's.
func ClassProgressOf(ctx context.Context, db store.DBTX, teacherID, classID uuid.UUID, now time.Time) (ClassProgress, error) {
	q := store.On(db)
	name, err := q.TeachersClassName(ctx, classID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return ClassProgress{}, ErrClassNotFound
	}
	if err != nil {
		return ClassProgress{}, fmt.Errorf("load class: %w", err)
	}
	out := ClassProgress{ClassID: classID, Name: name, Now: now, Learners: []LearnerProgress{}}
	if out.Learners, out.ProgressUpdatedAt, err = grid(ctx, q, classID, now); err != nil {
		return ClassProgress{}, err
	}
	decks, err := q.ClassDecks(ctx, teacherID, &classID)
	if err != nil {
		return ClassProgress{}, fmt.Errorf("list the class's decks: %w", err)
	}
	out.Decks = make([]ClassDeck, 0, len(decks))
	for _, d := range decks {
		out.Decks = append(out.Decks, classDeck(d))
	}
	words, err := q.HardestWords(ctx, classID, HardestWordsShown)
	if err != nil {
		return ClassProgress{}, fmt.Errorf("find hardest words: %w", err)
	}
	out.HardestWords = make([]HardWord, 0, len(words))
	for _, w := range words {
		out.HardestWords = append(out.HardestWords, HardWord{LexemeID: w.ID, Lemma: w.Lemma, PartOfSpeech: w.PartOfSpeech,
			Lapses: int(w.Lapses), Learners: int(w.Learners), Leeches: int(w.Leeches)})
	}
	return out, nil
}

// grid is the rows of the class's grid (every member, with or without
// assignments) and the latest progress update among them.
func grid(ctx context.Context, q *store.Queries, classID uuid.UUID, now time.Time) ([]LearnerProgress, *time.Time, error) {
	members, err := q.ClassMembers(ctx, classID)
	if err != nil {
		return nil, nil, fmt.Errorf("list members: %w", err)
	}
	cells, err := q.ClassAssignments(ctx, now, classID)
	if err != nil {
		return nil, nil, fmt.Errorf("list assignments: %w", err)
	}
	days, err := q.ClassStudyDays(ctx, classID)
	if err != nil {
		return nil, nil, fmt.Errorf("find study days: %w", err)
	}
	lastDay := make(map[uuid.UUID]string, len(days))
	for _, d := range days {
		lastDay[d.AssignmentID] = d.LastStudyDay.Format(time.DateOnly)
	}
	byLearner := map[uuid.UUID][]AssignmentProgress{}
	var latest *time.Time
	for _, c := range cells {
		cell := AssignmentProgress{AssignmentID: c.AssignmentID, DeckID: c.DeckID, DeckTitle: c.Title, DueAt: c.DueAt,
			CompletedAt: c.CompletedAt, CardsDue: int(c.CardsDue)}
		if c.ProgressUpdatedAt != nil {
			cell.Progress = &Progress{CardsTotal: int(deref(c.CardsTotal)), CardsSeen: int(deref(c.CardsSeen)),
				CardsLearned: int(deref(c.CardsLearned)), Reviews: int(deref(c.Reviews)), UpdatedAt: *c.ProgressUpdatedAt}
			if day, ok := lastDay[c.AssignmentID]; ok {
				cell.Progress.LastStudyDay = &day
			}
			if latest == nil || c.ProgressUpdatedAt.After(*latest) {
				latest = c.ProgressUpdatedAt
			}
		}
		byLearner[c.LearnerID] = append(byLearner[c.LearnerID], cell)
	}
	rows := make([]LearnerProgress, 0, len(members))
	for _, m := range members {
		row := LearnerProgress{LearnerID: m.ID, DisplayName: m.DisplayName, Assignments: byLearner[m.ID]}
		if row.Assignments == nil {
			row.Assignments = []AssignmentProgress{}
		}
		rows = append(rows, row)
	}
	return rows, latest, nil
}

// deref is *p, or 0 for nil.
func deref(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}
