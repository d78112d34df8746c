package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// plant is one violation the self-test plants after a clean check, and the
// invariant that must catch it.
type plant struct {
	what, sql, invariant string
}

var plants = []plant{
	{"a lost email (its send record removed)",
		`DELETE FROM email_sends WHERE (subscriber, event_id) IN (SELECT subscriber, event_id FROM email_sends WHERE subscriber = 'email' LIMIT 1)`,
		"emails:"},
	{"a projection applied twice",
		`UPDATE assignment_progress SET reviews = reviews + 1 WHERE assignment_id = (SELECT assignment_id FROM assignment_progress WHERE reviews > 0 LIMIT 1)`,
		"projections:"},
	{"a phantom event (no review behind it)",
		`INSERT INTO outbox_events (event_id, topic, payload) VALUES (gen_random_uuid(), 'review.submitted', '{"review_id": -1}')`,
		"state and events"},
	{"a card whose state is not its review log's",
		`UPDATE cards SET stability = stability + 1 WHERE id = (SELECT card_id FROM review_log LIMIT 1)`,
		"FSRS:"},
}

// selfTest shows that the checks can fail: after a clean run it plants one
// violation of each kind in the database, checks again and returns an
// error unless each planted violation was caught by its invariant. It
// leaves the run's database altered, so it runs last.
func selfTest(ctx context.Context, s *stack, w *world, faults []fault, since time.Time) (string, error) {
	for _, p := range plants {
		tag, err := s.pool.Exec(ctx, p.sql)
		if err != nil {
			return "", fmt.Errorf("plant %s: %w", p.what, err)
		}
		if tag.RowsAffected() != 1 {
			return "", fmt.Errorf("plant %s: %d rows changed", p.what, tag.RowsAffected())
		}
	}
	f, err := check(ctx, s, w, faults, since)
	if err != nil {
		return "", err
	}
	var caught []string
	for _, p := range plants {
		found := false
		for _, iv := range f.Invariants {
			if strings.HasPrefix(iv.Name, p.invariant) && iv.count > 0 {
				found = true
			}
		}
		if !found {
			return "", fmt.Errorf("self-test: %s went unnoticed", p.what)
		}
		caught = append(caught, p.what)
	}
	return fmt.Sprintf("Self-test: after the clean check the harness planted %s; the checks caught all %d.\n",
		strings.Join(caught, ", "), len(caught)), nil
}
