// Package functions holds Lexora's HTTP functions, one per request type,
// registered with the Functions Framework for Go under their own names:
//
//   - CreateClass (POST): a teacher creates a class; a signed-in user
//     without an account becomes a teacher with their first class.
//   - ListClasses, ListDecks, GetClassProgress (GET): a teacher's classes
//     with join codes and members, the decks they may assign, and a class's
//     progress grid with its hardest words.
//   - CreateAssignment (POST): a teacher assigns a deck to a learner.
//   - EnrollLearner (POST): a teacher adds a learner to a class by email, or
//     a learner joins one with its join code.
//   - SubmitReview (POST): a learner rates a card.
//   - GetSchedule (GET): a learner's due cards and forecast.
//   - GetProgress (GET): a learner's streak, achievements, assignment
//     progress, started decks' progress and feed.
//   - OutboxHealth, ListDeadLetters (GET), ReplayDeadLetters,
//     SkipDeadLetters (POST): the operators' view of the event core.
//   - RegisterWebhookEndpoint, RotateWebhookSecret, EnableWebhookEndpoint,
//     DeleteWebhookEndpoint (POST), ListWebhookEndpoints (GET): a teacher's
//     webhooks.
//
// Every function first authenticates the caller and checks its role (401,
// or 404 for a role the function is not for), then validates the request
// (400). Every write is then one transaction: authorize on the resources,
// change state, enqueue events (pkg/outbox), commit, answer. Nothing slow happens in a request; the
// consequences are delivered later by jobs/drain.
//
// Every request carries an ID token (Authorization: Bearer), verified by
// pkg/platform/auth: Google Identity Platform in production, the development
// issuer locally (AUTH_DEV=true).
package functions
