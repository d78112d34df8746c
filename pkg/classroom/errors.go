package classroom

import "errors"

// The errors of the classroom's rules. A thing that does not exist and one
// the caller may not see are the same error, so that ids cannot be probed.
var (
	// ErrClassNotFound: no class with that id among the teacher's, or no
	// class with that join code (or the caller's role cannot enrol that way).
	ErrClassNotFound = errors.New("class not found")
	// ErrLearnerNotFound: the learner is not in the class.
	ErrLearnerNotFound = errors.New("learner not found")
	// ErrDeckNotFound: the deck is neither the teacher's nor the library's.
	ErrDeckNotFound = errors.New("deck not found")
	// ErrEmailOfTeacher: a teacher's enrolment of an email that belongs to a
	// teacher's account (theirs or another's): a user has one role, and a
	// teacher cannot be made a learner.
	ErrEmailOfTeacher = errors.New("this email belongs to a teacher's account, which cannot be added as a learner")
	// ErrTeacherCannotJoin: a teacher gave a join code; only learners join
	// classes (a user has one role).
	ErrTeacherCannotJoin = errors.New("teachers cannot join a class as a learner")
	// ErrAlreadyEnrolled: the learner is already a member of the class.
	ErrAlreadyEnrolled = errors.New("the learner is already in this class")
	// ErrDeckArchived: the teacher's deck is archived (pkg/decks Archive);
	// it cannot be assigned until it is taken out of the archive.
	ErrDeckArchived = errors.New("this deck is archived; take it out of the archive to assign it")
	// ErrAlreadyAssigned: the class has already given the deck to the
	// learner (an outcome of Assign per learner, not an error it returns).
	ErrAlreadyAssigned = errors.New("the deck is already assigned to this learner in this class")
	// ErrDueOutOfRange: a due date that is not in the future, or more than
	// MaxDueDays ahead (CheckDue).
	ErrDueOutOfRange = errors.New("the due date must be in the future and within 366 days")
	// ErrClassDeckNotFound: the class is not the teacher's, or it does not
	// have the deck (class_decks).
	ErrClassDeckNotFound = errors.New("class deck not found")
	// ErrRetentionOutOfRange: a desired retention outside [0.80, 0.95]
	// (learning.ValidDesiredRetention).
	ErrRetentionOutOfRange = errors.New("the desired retention must be between 0.80 and 0.95")
)

// ErrEmailLookalike: a new account's email (a learner's a teacher adds, or
// a newcomer's own) looks like the address of another account: their
// skeletons (text.Skeleton) are one, the addresses differ, and one of them
// is not ASCII (saṃ@example.com beside sam@example.com). It says nothing of
// that account, not even its role.
var ErrEmailLookalike = errors.New("this email looks like the address of another account (it differs only in letters that look alike, such as a Cyrillic а for a Latin a, or an accent); check the address")

// ErrAccountExists: a newcomer's email or sign-in has an account already
// (AddAccount).
var ErrAccountExists = errors.New("this sign-in or email has an account already")
