// Package account holds what Lexora knows of a user account apart from its
// storage: the roles a user can have.
package account

// Role is a user's role (users.role): what functions the user may call.
type Role string

// The roles. A user has exactly one.
const (
	// Learner reviews cards of the decks assigned to them.
	Learner Role = "learner"
	// Teacher runs classes and assigns decks to their learners.
	Teacher Role = "teacher"
	// Operator watches and repairs the event core (the operator functions).
	Operator Role = "operator"
)
