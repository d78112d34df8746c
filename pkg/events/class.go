package events

import (
	"time"

	"github.com/google/uuid"
)

// The topics of a teacher's chores on a class (pkg/classroom), each
// enqueued in the transaction of the change. A teacher's webhooks may
// subscribe to both.
const (
	// LearnerRemoved: a teacher took a learner out of a class. The
	// assignments the class gave them were deleted with their progress; the
	// learner's cards and review log are theirs and stay.
	LearnerRemoved = "learner.removed"
	// ClassUpdated: a teacher renamed a class, put it in the archive or took
	// it out, or gave it a new join code.
	ClassUpdated = "class.updated"
)

// LearnerRemovedPayload is the payload of LearnerRemoved. Ordering key:
// learner id (after the learner's learner.enrolled).
type LearnerRemovedPayload struct {
	ClassLearner
	// Assignments are the deleted assignments the class had given the
	// learner (empty when it had given none).
	Assignments []uuid.UUID `json:"assignments"`
}

// What a ClassUpdatedPayload's Changes name.
const (
	ClassChangeName     = "name"
	ClassChangeArchived = "archived"
	ClassChangeJoinCode = "join_code"
)

// ClassUpdatedPayload is the payload of ClassUpdated: the class as it is
// after the change. Its join code is never in it (a webhook receiver does
// not need it, and a leaked code is what a new one replaces). Ordering key:
// class id.
type ClassUpdatedPayload struct {
	ClassID   uuid.UUID `json:"class_id"`
	TeacherID uuid.UUID `json:"teacher_id"`
	Name      string    `json:"name"`
	// ArchivedAt is when the class was put in the archive; null when it is
	// not archived.
	ArchivedAt *time.Time `json:"archived_at"`
	// Changes names what changed (ClassChangeName, ClassChangeArchived,
	// ClassChangeJoinCode), at least one.
	Changes []string `json:"changes"`
}
