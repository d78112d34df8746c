// Package events names Lexora's topics, the JSON payload of each, and the
// routing from topics to subscribers. Producers (pkg/study, pkg/classroom,
// pkg/reminders, and the functions that enqueue their batches) and
// consumers (pkg/consumers) both depend on it; it depends on neither.
//
// Each payload type names its topic (Payload, as River's JobArgs name their
// Kind): producers build events from a payload with Batch.Add or New,
// consumers read them with Decode[T], so a payload of the wrong type for a
// topic does not compile. What is stored is checked against testdata:
// payloads stay in the outbox for days, so every shape a release stored
// must decode into today's types (testdata/payloads); subscriber names
// never change (subscribers.golden); and a subscription added to a topic
// that already has events names the migration that gives the queued events
// their delivery (subscriptions.golden).
package events

import (
	"time"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/outbox"
)

// Topics.
const (
	AssignmentCreated   = "assignment.created"
	AssignmentCompleted = "assignment.completed"
	ReviewSubmitted     = "review.submitted"
	StreakExtended      = "streak.extended"
	AchievementEarned   = "achievement.earned"
	// ReminderDueSoon is enqueued with the assignment, delayed to
	// learning.DueSoonLead before its due date.
	ReminderDueSoon = "reminder.due_soon"
	CardLeeched     = "card.leeched"
	LearnerEnrolled = "learner.enrolled"
	// LearnerInvited: a teacher added by email a learner who already has an
	// account outside the teacher's classes. Nothing is shared until the
	// learner accepts by joining with the class's code, which the email
	// carries.
	LearnerInvited = "learner.invited"
	// ReminderDaily is the learner's daily study reminder, a delayed event
	// at learning.DailyReminderHour local time; its handling by
	// SubscriberReminderChain schedules the next one.
	ReminderDaily = "reminder.daily"
	// ReviewUndone: the learner undid their last review of a card
	// (UndoReview); the subscribers that counted the review take it back.
	ReviewUndone = "review.undone"
)

// Subscriber names. They key delivery rows and dedup records: never rename
// one (testdata/subscribers.golden lists them).
const (
	SubscriberProgress = "progress"
	SubscriberEmail    = "email"
	SubscriberWebhook  = "webhook"
	SubscriberActivity = "activity"
	SubscriberFeed     = "feed"
	// SubscriberCongratulation emails the learner on assignment.completed
	// (SubscriberEmail tells the teacher).
	SubscriberCongratulation = "congratulation-email"
	// SubscriberReminder emails the reminders (reminder.due_soon,
	// reminder.daily).
	SubscriberReminder = "reminder-email"
	// SubscriberReminderChain schedules the next link of a learner's daily
	// reminder chain on reminder.daily, whether or not its email is sent.
	SubscriberReminderChain = "reminder-chain"
)

// Subscriptions routes each topic to its subscribers. Each change must be
// mirrored in testdata/subscriptions.golden, which says for a new
// subscriber of a topic that has events which migration gives the queued
// events their delivery.
var Subscriptions = []outbox.Subscription{
	{Topic: AssignmentCreated, Subscriber: SubscriberProgress},
	{Topic: AssignmentCreated, Subscriber: SubscriberEmail},
	{Topic: ReviewSubmitted, Subscriber: SubscriberProgress},
	{Topic: AssignmentCompleted, Subscriber: SubscriberEmail},
	{Topic: AssignmentCreated, Subscriber: SubscriberWebhook},
	{Topic: AssignmentCompleted, Subscriber: SubscriberWebhook},
	// Streaks depend on the order of a learner's study days: ordered by the
	// learner id, the events' ordering key.
	{Topic: ReviewSubmitted, Subscriber: SubscriberActivity, Ordered: true},
	{Topic: AssignmentCompleted, Subscriber: SubscriberActivity, Ordered: true},
	// An undo takes back what its review counted: the activity subscriber
	// sees it after the review (same ordering key); the progress
	// subscriber's increments commute, so it needs no order.
	{Topic: ReviewUndone, Subscriber: SubscriberProgress},
	{Topic: ReviewUndone, Subscriber: SubscriberActivity, Ordered: true},
	{Topic: StreakExtended, Subscriber: SubscriberFeed},
	{Topic: AchievementEarned, Subscriber: SubscriberFeed},
	{Topic: CardLeeched, Subscriber: SubscriberFeed},
	{Topic: LearnerEnrolled, Subscriber: SubscriberEmail},
	{Topic: LearnerEnrolled, Subscriber: SubscriberWebhook},
	{Topic: LearnerInvited, Subscriber: SubscriberEmail},
	{Topic: AssignmentCompleted, Subscriber: SubscriberCongratulation},
	{Topic: ReminderDueSoon, Subscriber: SubscriberReminder},
	{Topic: ReminderDaily, Subscriber: SubscriberReminder},
	{Topic: ReminderDaily, Subscriber: SubscriberReminderChain},
	// A teacher's own decks (pkg/decks): their webhooks, and the progress
	// totals of an edited deck's assignments (increments: no order).
	{Topic: DeckCreated, Subscriber: SubscriberWebhook},
	{Topic: DeckEntriesChanged, Subscriber: SubscriberWebhook},
	{Topic: DeckEntriesChanged, Subscriber: SubscriberProgress},
	// A learner's fitted parameters (pkg/fitting): their feed, and the
	// webhooks of the teachers of their classes.
	{Topic: LearnerParametersChanged, Subscriber: SubscriberFeed},
	{Topic: LearnerParametersChanged, Subscriber: SubscriberWebhook},
	// A class deck's desired retention (pkg/classroom): its teacher's
	// webhooks.
	{Topic: DeckRetentionChanged, Subscriber: SubscriberWebhook},
}

// NewOutbox returns the outbox routed by Subscriptions.
func NewOutbox() *outbox.Outbox {
	ob, err := outbox.New(Subscriptions...)
	if err != nil {
		panic(err) // Subscriptions is a constant of the program.
	}
	return ob
}

// Assignment is what assignment.created and assignment.completed both say
// of an assignment: the first fields of each payload (embedded, so the JSON
// keeps its fields and their order).
type Assignment struct {
	AssignmentID uuid.UUID `json:"assignment_id"`
	DeckID       uuid.UUID `json:"deck_id"`
	LearnerID    uuid.UUID `json:"learner_id"`
	TeacherID    uuid.UUID `json:"teacher_id"`
	DueAt        time.Time `json:"due_at"`
}

// AssignmentCreatedPayload is the payload of AssignmentCreated; its ordering
// key is the learner id.
type AssignmentCreatedPayload struct {
	Assignment
	// Cards is the number of lexemes in the deck, hence of the assignment's cards.
	Cards int `json:"cards"`
	// CardsSeen and CardsLearned count the assignment's cards that the
	// learner had already reviewed, and that were already in the Review
	// state, when it was created (decks may share lexemes).
	CardsSeen    int `json:"cards_seen"`
	CardsLearned int `json:"cards_learned"`
}

// Review is what review.submitted and review.undone both say of a review:
// the first fields of each payload (embedded, so the JSON keeps its fields
// and their order).
type Review struct {
	// ReviewID is the review (review_log.id).
	ReviewID  int64     `json:"review_id"`
	CardID    uuid.UUID `json:"card_id"`
	LearnerID uuid.UUID `json:"learner_id"`
	LexemeID  uuid.UUID `json:"lexeme_id"`
	// Rating is 1 Again, 2 Hard, 3 Good, 4 Easy.
	Rating int `json:"rating"`
	// StateBefore and StateAfter are the card's FSRS states before and
	// after the review: 0 New, 1 Learning, 2 Review, 3 Relearning.
	StateBefore int       `json:"state_before"`
	StateAfter  int       `json:"state_after"`
	ReviewedAt  time.Time `json:"reviewed_at"`
	// StudyDay is the study day (YYYY-MM-DD) the review counts for (see
	// learning.StudyDay): every per-day record (streaks, per-day review
	// counts) uses it.
	StudyDay string `json:"study_day"`
}

// ReviewSubmittedPayload is the payload of ReviewSubmitted; its ordering key
// is the learner id. Events written before 2026-11-30 also carry
// local_day, the calendar date, which nothing reads (sample:
// testdata/payloads/review.submitted/92cf483.json).
type ReviewSubmittedPayload struct {
	Review
	// Due is when the card is next due.
	Due time.Time `json:"due"`
	// AssignmentIDs are the learner's assignments whose deck holds the lexeme.
	AssignmentIDs []uuid.UUID `json:"assignment_ids"`
}

// ReviewUndonePayload is the payload of ReviewUndone: the Review, as
// review.submitted named it, was undone at UndoneAt and the card restored
// to its state before it (StateBefore; StateAfter, the state the review had
// given, is taken back); its counts are taken back from its StudyDay. Its
// ordering key is the learner id, so the activity subscriber sees it after
// the review's review.submitted.
type ReviewUndonePayload struct {
	Review
	UndoneAt time.Time `json:"undone_at"`
	// AssignmentIDs are the assignments whose progress counted the review
	// (its review.submitted's assignment_ids): each loses the review, and
	// the card's change of state. LaterAssignmentIDs hold the lexeme but
	// were created after the review: their counts at creation saw the card
	// as the review left it, so they lose only the change of state.
	AssignmentIDs      []uuid.UUID `json:"assignment_ids"`
	LaterAssignmentIDs []uuid.UUID `json:"later_assignment_ids"`
	// Unsuspended is true when the review had suspended the card as a leech
	// and the undo lifted the suspension.
	Unsuspended bool `json:"unsuspended"`
}

// AssignmentCompletedPayload is the payload of AssignmentCompleted, emitted
// once, when every card of the assignment has reached the Review state; its
// ordering key is the learner id.
type AssignmentCompletedPayload struct {
	Assignment
	CompletedAt time.Time `json:"completed_at"`
}

// StreakExtendedPayload is the payload of StreakExtended: the learner studied
// on Day, making Current consecutive study days. Ordering key: learner id.
type StreakExtendedPayload struct {
	LearnerID uuid.UUID `json:"learner_id"`
	Day       string    `json:"day"`
	Current   int       `json:"current"`
	Longest   int       `json:"longest"`
}

// Achievement codes.
const (
	AchievementFirstReview   = "first_review"
	AchievementStreak7       = "streak_7"
	AchievementWords100      = "words_100"
	AchievementFinishedEarly = "assignment_finished_early"
)

// AchievementEarnedPayload is the payload of AchievementEarned, enqueued once
// per learner and code. Ordering key: learner id.
type AchievementEarnedPayload struct {
	LearnerID uuid.UUID `json:"learner_id"`
	Code      string    `json:"code"`
	EarnedAt  time.Time `json:"earned_at"`
	// AssignmentID is the assignment the achievement was earned with
	// (assignment_finished_early); absent for the others.
	AssignmentID *uuid.UUID `json:"assignment_id,omitempty"`
}

// ReminderDueSoonPayload is the payload of ReminderDueSoon. Ordering key:
// learner id. The reminder is not sent if the assignment is complete by then
// (completion cancels it) or its due date has changed.
type ReminderDueSoonPayload struct {
	AssignmentID uuid.UUID `json:"assignment_id"`
	LearnerID    uuid.UUID `json:"learner_id"`
	DueAt        time.Time `json:"due_at"`
}

// CardLeechedPayload is the payload of CardLeeched: the card was suspended
// after Lapses lapses (see learning.LeechLapses). Ordering key: learner id.
type CardLeechedPayload struct {
	CardID    uuid.UUID `json:"card_id"`
	LearnerID uuid.UUID `json:"learner_id"`
	Lemma     string    `json:"lemma"`
	Lapses    int       `json:"lapses"`
}

// ClassLearner is what learner.enrolled and learner.invited both say: the
// class, the learner and the class's teacher, the first fields of each
// payload (embedded, so the JSON keeps its fields and their order).
type ClassLearner struct {
	ClassID   uuid.UUID `json:"class_id"`
	LearnerID uuid.UUID `json:"learner_id"`
	TeacherID uuid.UUID `json:"teacher_id"`
}

// LearnerEnrolledPayload is the payload of LearnerEnrolled. Ordering key:
// learner id.
type LearnerEnrolledPayload struct {
	ClassLearner
	// Assignments were created for the class's active decks.
	Assignments []uuid.UUID `json:"assignments"`
	// By is "teacher" (added by email) or "join_code".
	By string `json:"by"`
}

// LearnerInvitedPayload is the payload of LearnerInvited. Ordering key:
// learner id.
type LearnerInvitedPayload struct {
	ClassLearner
}

// ReminderDailyPayload is the payload of ReminderDaily. Ordering key:
// learner id.
type ReminderDailyPayload struct {
	LearnerID uuid.UUID `json:"learner_id"`
	// At is when it is due (not before); its study day is the one checked.
	At time.Time `json:"at"`
}
