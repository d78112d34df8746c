// Package outbox is Lexora's event core: a transactional outbox in PostgreSQL
// drained at least once into idempotent subscribers.
//
// # Writing events
//
// A request changes state and calls [Outbox.Enqueue] with the same
// transaction. Enqueue stores each [Event] and one delivery row per
// subscriber of its topic (the fan-out is decided at enqueue time from the
// [Subscription] list declared in code). Rolled back means never delivered;
// committed means every subscriber gets the event at least once, or the
// delivery ends dead and is visible as such.
//
// # Draining
//
// A [Drainer] runs in bounded runs ([Drainer.Run]): it claims due deliveries
// in one statement (SELECT ... FOR UPDATE SKIP LOCKED, then UPDATE) and
// writes a lease: a random token and an expiry computed from the database
// clock now(), never the application clock. Every later change (delivered,
// retry, dead) is a compare-and-set on that token, so a worker whose lease
// expired and was taken over cannot overwrite its successor's result. A
// running delivery whose lease expired is claimable again: a drain killed at
// any instant loses nothing, it only delays.
//
// Failures are retried with capped exponential backoff plus jitter; after
// MaxAttempts, or at once for an error wrapped with [Permanent], the delivery
// becomes dead. Each (event, subscriber) pair is tracked on its own, so one
// failing subscriber never holds back another or re-runs it.
//
// # Idempotent subscribers
//
// Delivery is at least once. A subscriber whose effect lives in PostgreSQL
// wraps it in [HandleOnce], which records (subscriber, event id) with
// INSERT ... ON CONFLICT DO NOTHING as the first statement of its own
// transaction. External effects carry [Event.ID] as their idempotency key.
//
// # Pruning
//
// [Prune] deletes events whose every delivery is delivered and that are older
// than the retention, in bounded batches, and dedup records older than a
// longer retention.
package outbox
