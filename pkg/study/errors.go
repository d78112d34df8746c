package study

import (
	"errors"
	"fmt"
)

// The errors of the learner's study rules. A thing that does not exist and
// one the caller may not see are the same error, so that ids cannot be
// probed.
var (
	// ErrCardNotFound: no card with that id among the learner's.
	ErrCardNotFound = errors.New("card not found")
	// ErrLearnerNotFound: the learner does not exist or the caller may not
	// see them (a teacher sees only the learners of their classes).
	ErrLearnerNotFound = errors.New("learner not found")
	// ErrAssignmentNotFound: no assignment with that id that the caller may
	// see for the learner.
	ErrAssignmentNotFound = errors.New("assignment not found")
	// ErrSuspended: the card was suspended as a leech (learning.LeechLapses);
	// the error is a *SuspendedError, which says after how many lapses.
	ErrSuspended = errors.New("card suspended as a leech")
	// ErrReviewedInFuture: a review's instant is more than
	// learning.MaxClockAhead ahead of the clock.
	ErrReviewedInFuture = errors.New("the review's instant is in the future")
	// ErrReviewTooOld: a review's instant is more than MaxReviewAge before
	// the clock's now.
	ErrReviewTooOld = errors.New("the review's instant is more than 7 days ago")
	// ErrBeforeLastReview: a review's instant is before the card's last
	// review (a later review of the card was recorded first).
	ErrBeforeLastReview = errors.New("the review's instant is before the card's last review")
	// ErrDeckNotFound: no deck with that id in the shared library.
	ErrDeckNotFound = errors.New("deck not found")
	// ErrNothingToUndo: an undo of a card that has no review.
	ErrNothingToUndo = errors.New("the card has no review to undo")
	// ErrAlreadyUndone: an undo of a card whose reviews are all undone
	// already, or naming a review undone already (a card's reviews are
	// undone last first, each once).
	ErrAlreadyUndone = errors.New("the review is undone already")
	// ErrNotLastReview: an undo naming a review that is not the card's last
	// one not undone (a later review of the card was recorded and is not
	// undone, or the review is not the card's).
	ErrNotLastReview = errors.New("the review is not the card's last review not undone")
	// ErrUndoUnavailable: the card's last review was recorded before undo
	// existed (schema 00019) and lacks the card's state before it.
	ErrUndoUnavailable = errors.New("the review was recorded before reviews could be undone")
)

// SuspendedError is the error of a review of a card suspended as a leech;
// it matches ErrSuspended (errors.Is).
type SuspendedError struct {
	// Lapses is the card's number of lapses.
	Lapses int
}

func (e *SuspendedError) Error() string {
	return fmt.Sprintf("this card was suspended as a leech after %d lapses", e.Lapses)
}

// Is reports whether target is ErrSuspended.
func (e *SuspendedError) Is(target error) bool { return target == ErrSuspended }
