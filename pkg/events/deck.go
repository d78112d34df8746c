package events

import "github.com/google/uuid"

// The topics of a teacher's own decks (pkg/decks), each enqueued in the
// transaction of the change under the deck's id as ordering key.
const (
	// DeckCreated: a teacher created a deck of their own, or copied one.
	DeckCreated = "deck.created"
	// DeckEntriesChanged: entries of a teacher's deck were added, changed
	// or removed; every learner who has the deck got the new entries'
	// cards in the same transaction.
	DeckEntriesChanged = "deck.entries_changed"
)

// DeckCreatedPayload is the payload of DeckCreated. Ordering key: deck id.
type DeckCreatedPayload struct {
	DeckID    uuid.UUID `json:"deck_id"`
	TeacherID uuid.UUID `json:"teacher_id"`
	Title     string    `json:"title"`
	// Entries is the number of the deck's entries at its creation.
	Entries int `json:"entries"`
	// CopiedFrom is the deck it was copied from (a library deck or one of
	// the teacher's), absent for a deck written from scratch.
	CopiedFrom *uuid.UUID `json:"copied_from,omitempty"`
}

// DeckEntriesChangedPayload is the payload of DeckEntriesChanged: one edit
// of a deck's entries. Ordering key: deck id.
type DeckEntriesChangedPayload struct {
	DeckID    uuid.UUID `json:"deck_id"`
	TeacherID uuid.UUID `json:"teacher_id"`
	Title     string    `json:"title"`
	// Added, Changed and Removed count the entries the edit added, whose
	// text it changed, and that it removed; Entries is the deck's number of
	// entries after it.
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
	Entries int `json:"entries"`
	// CardsCreated is the number of cards the edit gave learners who have
	// the deck (a new card, due at once, per learner and added entry).
	CardsCreated int `json:"cards_created"`
	// Assignments are the deck's assignments at the edit, each with what it
	// changes in the progress projection's counts (increments, which
	// commute with the reviews' own).
	Assignments []DeckAssignmentChange `json:"assignments"`
}

// DeckAssignmentChange is what an edit of a deck's entries changes in the
// counts of one of its assignments: Total, the assignment's cards (entries
// added less entries removed); Seen and Learned, minus the removed entries'
// cards the learner had reviewed, and had in the Review state.
type DeckAssignmentChange struct {
	AssignmentID uuid.UUID `json:"assignment_id"`
	LearnerID    uuid.UUID `json:"learner_id"`
	Total        int       `json:"total"`
	Seen         int       `json:"seen"`
	Learned      int       `json:"learned"`
}

// DeckRetentionChanged: a teacher changed the desired retention of one of
// their class's decks (classroom.SetDeckRetention); the class's learners'
// cards of the deck come due at it from their next review on. Enqueued in
// the change's transaction under the class's id as ordering key.
const DeckRetentionChanged = "deck.retention_changed"

// DeckRetentionChangedPayload is the payload of DeckRetentionChanged.
// Ordering key: class id. The retentions are recall probabilities in
// [0.80, 0.95].
type DeckRetentionChangedPayload struct {
	ClassID           uuid.UUID `json:"class_id"`
	DeckID            uuid.UUID `json:"deck_id"`
	TeacherID         uuid.UUID `json:"teacher_id"`
	DesiredRetention  float64   `json:"desired_retention"`
	PreviousRetention float64   `json:"previous_retention"`
}
