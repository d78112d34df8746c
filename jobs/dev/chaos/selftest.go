package main

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// plant is one violation the self-test plants after a clean check: sql
// changes one row and returns a mark (an id) that a violation of the
// invariant named must mention, so that each plant is shown caught by
// itself, not by another plant on the same invariant.
type plant struct {
	what, sql, invariant string
}

// plants are planted in this order: the doubled undo needs an undo of the
// run, so it goes before the planted one.
var plants = []plant{
	{"a lost email (its send record removed)",
		`DELETE FROM email_sends WHERE (subscriber, event_id) IN (SELECT subscriber, event_id FROM email_sends WHERE subscriber = 'email' LIMIT 1)
		RETURNING event_id::text`,
		"emails:"},
	{"a projection applied twice",
		`UPDATE assignment_progress SET reviews = reviews + 1 WHERE assignment_id = (SELECT assignment_id FROM assignment_progress WHERE reviews > 0 LIMIT 1)
		RETURNING assignment_id::text`,
		"projections:"},
	{"an undo taken back twice",
		`UPDATE learner_daily_activity SET reviews = reviews - 1 WHERE (learner_id, day) = (SELECT a.learner_id, a.day FROM learner_daily_activity a
		WHERE a.reviews > 1 AND EXISTS (SELECT 1 FROM review_undo u WHERE u.learner_id = a.learner_id) LIMIT 1)
		RETURNING learner_id::text || ' ' || day::text`,
		"projections:"},
	{"a phantom event (no review behind it)",
		`INSERT INTO outbox_events (event_id, topic, payload) VALUES (gen_random_uuid(), 'review.submitted', '{"review_id": -1}')
		RETURNING event_id::text`,
		"state and events"},
	{"a card whose state is not its review log's",
		`UPDATE cards SET stability = stability + 1 WHERE id = (SELECT card_id FROM review_log ORDER BY id LIMIT 1)
		RETURNING id::text`,
		"FSRS:"},
	{"an undo recorded but its card not restored",
		`INSERT INTO review_undo (review_id, card_id, learner_id, undone_at)
		SELECT r.id, r.card_id, r.learner_id, now() FROM review_log r
		WHERE r.id = (SELECT max(l.id) FROM review_log l WHERE l.card_id = r.card_id)
		  AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = r.id)
		  AND r.card_id <> (SELECT card_id FROM review_log ORDER BY id LIMIT 1)
		ORDER BY r.id DESC LIMIT 1
		RETURNING card_id::text`,
		"FSRS:"},
}

// selfTest shows that the checks can fail: after a clean run it plants one
// violation of each kind in the database, checks again and returns an
// error unless each planted violation was caught by its invariant, in a
// violation that names it. It leaves the run's database altered, so it
// runs last.
func selfTest(ctx context.Context, s *stack, w *world, faults []fault, since time.Time) (string, error) {
	marks := make([]string, len(plants))
	for i, p := range plants {
		if err := s.pool.QueryRow(ctx, p.sql).Scan(&marks[i]); err != nil {
			return "", fmt.Errorf("plant %s: %w", p.what, err)
		}
	}
	f, err := check(ctx, s, w, faults, since)
	if err != nil {
		return "", err
	}
	var caught []string
	for i, p := range plants {
		if !caughtBy(f, p.invariant, marks[i]) {
			return "", fmt.Errorf("self-test: %s (%s) went unnoticed", p.what, marks[i])
		}
		caught = append(caught, p.what)
	}
	return fmt.Sprintf("Self-test: after the clean check the harness planted %s; the checks caught all %d.\n",
		strings.Join(caught, ", "), len(caught)), nil
}

// caughtBy tells whether a violation of the invariant whose name begins
// with name mentions mark.
func caughtBy(f *findings, name, mark string) bool {
	for _, iv := range f.Invariants {
		if !strings.HasPrefix(iv.Name, name) {
			continue
		}
		for _, v := range iv.Violations {
			if strings.Contains(v, mark) {
				return true
			}
		}
	}
	return false
}
