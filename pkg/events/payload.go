package events

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/lexora-app/lexora/pkg/outbox"
)

// Payload is the JSON payload of one topic. Its type names the topic, as
// River's JobArgs name their Kind, so New, Batch.Add and Decode take the
// topic from the type: a payload cannot be sent or read under another
// topic's name. Topic must return a constant (Decode calls it on the zero
// value); implement it on the payload struct, not on a pointer.
type Payload interface {
	// Topic is the topic this payload type is the payload of.
	Topic() string
}

// Topic returns AssignmentCreated.
func (AssignmentCreatedPayload) Topic() string { return AssignmentCreated }

// Topic returns AssignmentCompleted.
func (AssignmentCompletedPayload) Topic() string { return AssignmentCompleted }

// Topic returns ReviewSubmitted.
func (ReviewSubmittedPayload) Topic() string { return ReviewSubmitted }

// Topic returns ReviewUndone.
func (ReviewUndonePayload) Topic() string { return ReviewUndone }

// Topic returns StreakExtended.
func (StreakExtendedPayload) Topic() string { return StreakExtended }

// Topic returns AchievementEarned.
func (AchievementEarnedPayload) Topic() string { return AchievementEarned }

// Topic returns ReminderDueSoon.
func (ReminderDueSoonPayload) Topic() string { return ReminderDueSoon }

// Topic returns CardLeeched.
func (CardLeechedPayload) Topic() string { return CardLeeched }

// Topic returns LearnerEnrolled.
func (LearnerEnrolledPayload) Topic() string { return LearnerEnrolled }

// Topic returns LearnerInvited.
func (LearnerInvitedPayload) Topic() string { return LearnerInvited }

// Topic returns ReminderDaily.
func (ReminderDailyPayload) Topic() string { return ReminderDaily }

// Topic returns DeckCreated.
func (DeckCreatedPayload) Topic() string { return DeckCreated }

// Topic returns DeckEntriesChanged.
func (DeckEntriesChangedPayload) Topic() string { return DeckEntriesChanged }

// Topic returns DeckRetentionChanged.
func (DeckRetentionChangedPayload) Topic() string { return DeckRetentionChanged }

// Topic returns LearnerParametersChanged.
func (LearnerParametersChangedPayload) Topic() string { return LearnerParametersChanged }

// ErrWrongTopic: Decode was asked for a payload type that is not the
// event's topic's.
var ErrWrongTopic = errors.New("events: payload type of another topic")

// New returns an event of p's topic with ordering key key (usually the
// learner's id) and p encoded as JSON, to be delivered at once; the caller
// may set its NotBefore and Headers before enqueueing it. Its error is the
// JSON encoder's (see outbox.NewEvent).
func New(key string, p Payload) (outbox.Event, error) {
	return outbox.NewEvent(p.Topic(), key, p)
}

// Decode returns ev's payload decoded as a T, the payload type of ev's
// topic. Errors: ErrWrongTopic (wrapped) when ev.Topic is not T's topic;
// the JSON decoder's error (wrapped, naming the topic) when the payload
// does not decode as a T. Fields of the payload that T does not have are
// ignored, and fields of T that the payload lacks keep their zero value, so
// that events stored by an earlier release stay readable.
func Decode[T Payload](ev outbox.Event) (T, error) {
	var p T
	if ev.Topic != p.Topic() {
		return p, fmt.Errorf("decode %s payload as %T (the payload of %s): %w", ev.Topic, p, p.Topic(), ErrWrongTopic)
	}
	if err := json.Unmarshal(ev.Payload, &p); err != nil {
		var zero T
		return zero, fmt.Errorf("decode %s payload: %w", ev.Topic, err)
	}
	return p, nil
}
