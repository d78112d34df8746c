package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/smtp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/events"
)

// plant is one violation the self-test plants after a clean check: sql
// (one statement) or do changes one thing the checks read and returns a
// mark (an id) that a violation of the invariant named must mention, so
// that each plant is shown caught by itself, not by another plant on the
// same invariant.
type plant struct {
	what, invariant, sql string
	do                   func(context.Context, *planting) (string, error)
}

// planting is what the plants may change besides the database: the
// receiver's log, the drains' trace and summaries (in the stack), and the
// faults the under-fire check is given.
type planting struct {
	s     *stack
	w     *world
	fired []fault
}

// plants are planted in this order: the doubled undo needs an undo of the
// run, so it goes before the planted one; the lost email before the
// doubled one, which must not pick the same. One or more per invariant.
var plants = []plant{
	// The review log and the undos are append-only; a rotation's answer
	// names a secret the endpoint must have kept.
	{what: "a 2xx answer not durable (a rotation's secret replaced)", invariant: "every 2xx answer is durable",
		do: onAcknowledged("rotate", `UPDATE webhook_endpoints SET secret = 'planted' WHERE id = $1`,
			func(a *action) any { return a.EndpointID })},
	// An assignment's event, not a review's: a review counted twice could
	// cancel the undo taken back twice on the same study day.
	{what: "a write committed twice (its assignment.created again)", invariant: "each write committed once",
		do: onAcknowledged("assign", `INSERT INTO outbox_events (event_id, topic, ordering_key, payload, headers)
			SELECT gen_random_uuid(), topic, ordering_key, payload, headers FROM outbox_events
			WHERE headers->>'request_id' = $1 AND topic = 'assignment.created'`,
			func(a *action) any { return a.RequestID })},
	{what: "a lost email (its send record removed)", invariant: "emails:",
		sql: `DELETE FROM email_sends WHERE (subscriber, event_id) IN (SELECT subscriber, event_id FROM email_sends WHERE subscriber = 'email' LIMIT 1)
		RETURNING event_id::text`},
	{what: "a phantom email (a Message-ID of no event)", invariant: "emails:",
		do: func(ctx context.Context, p *planting) (string, error) {
			mid := "planted-" + uuid.NewString() + "@chaos.invalid"
			return mid, sendPlanted(p.s.smtpAddr, mid, 1)
		}},
	{what: "an email sent twice by no interrupted attempt", invariant: "duplicates:",
		do: func(ctx context.Context, p *planting) (string, error) {
			var mid string
			if err := p.s.pool.QueryRow(ctx, `SELECT message_id FROM email_sends ORDER BY sent_at DESC LIMIT 1`).Scan(&mid); err != nil {
				return "", err
			}
			return "email " + mid, sendPlanted(p.s.smtpAddr, mid, 2)
		}},
	{what: "a lost webhook (its receipt removed)", invariant: "webhooks:",
		do: func(ctx context.Context, p *planting) (string, error) {
			return plantedWebhook(p, 0)
		}},
	{what: "a phantom webhook (a webhook-id of no event)", invariant: "webhooks:",
		do: func(ctx context.Context, p *planting) (string, error) {
			id := uuid.NewString()
			p.s.recv.record(receipt{Endpoint: p.w.teachers[0].endpoints[0].name, ID: id, Status: http.StatusNoContent, Verified: true, At: time.Now()})
			return id, nil
		}},
	{what: "a webhook accepted twice by no interrupted attempt", invariant: "duplicates:",
		do: func(ctx context.Context, p *planting) (string, error) {
			return plantedWebhook(p, 2)
		}},
	{what: "a projection applied twice", invariant: "projections:",
		sql: `UPDATE assignment_progress SET reviews = reviews + 1 WHERE assignment_id = (SELECT assignment_id FROM assignment_progress WHERE reviews > 0 LIMIT 1)
		RETURNING assignment_id::text`},
	{what: "an undo taken back twice", invariant: "projections:",
		sql: `UPDATE learner_daily_activity SET reviews = reviews - 1 WHERE (learner_id, day) = (SELECT a.learner_id, a.day FROM learner_daily_activity a
		WHERE a.reviews > 1 AND EXISTS (SELECT 1 FROM review_undo u WHERE u.learner_id = a.learner_id) LIMIT 1)
		RETURNING learner_id::text || ' ' || day::text`},
	{what: "a phantom projection (a dedup record for no event)", invariant: "projections:",
		sql: `INSERT INTO outbox_processed (subscriber, event_id) VALUES ('progress', gen_random_uuid()) RETURNING event_id::text`},
	{what: "a phantom event (no review behind it)", invariant: "state and events",
		sql: `INSERT INTO outbox_events (event_id, topic, payload) VALUES (gen_random_uuid(), 'review.submitted', '{"review_id": -1}')
		RETURNING event_id::text`},
	{what: "a delivery stuck dead", invariant: "nothing stuck",
		sql: `INSERT INTO outbox_deliveries (event_id, subscriber, state, finished_at, last_error)
		SELECT max(id), 'planted', 'dead', now(), 'planted' FROM outbox_events RETURNING 'delivery ' || id || ' ('`},
	{what: "two applications of an ordered subscriber swapped", invariant: "order:",
		sql: `WITH pair AS (SELECT p.event_id, p.processed_at, lead(p.event_id) OVER w AS next_id, lead(p.processed_at) OVER w AS next_at
			FROM outbox_processed p JOIN outbox_events e ON e.event_id = p.event_id
			WHERE p.subscriber = 'activity' WINDOW w AS (PARTITION BY e.ordering_key ORDER BY e.id)),
		one AS (SELECT * FROM pair WHERE next_id IS NOT NULL ORDER BY next_at DESC LIMIT 1)
		UPDATE outbox_processed p SET processed_at = CASE WHEN p.event_id = one.event_id THEN one.next_at ELSE one.processed_at END
		FROM one WHERE p.subscriber = 'activity' AND p.event_id IN (one.event_id, one.next_id)
		RETURNING 'applied event ' || one.next_id::text`},
	{what: "an ordered subscriber seeing a key's earlier event after a later one", invariant: "order:",
		do: plantedReorder},
	{what: "a card whose state is not its review log's", invariant: "FSRS:",
		sql: `UPDATE cards SET stability = stability + 1 WHERE id = (SELECT card_id FROM review_log ORDER BY id LIMIT 1)
		RETURNING id::text`},
	{what: "an undo recorded but its card not restored", invariant: "FSRS:",
		sql: `INSERT INTO review_undo (review_id, card_id, learner_id, undone_at)
		SELECT r.id, r.card_id, r.learner_id, now() FROM review_log r
		WHERE r.id = (SELECT max(l.id) FROM review_log l WHERE l.card_id = r.card_id)
		  AND NOT EXISTS (SELECT 1 FROM review_undo u WHERE u.review_id = r.id)
		  AND r.card_id <> (SELECT card_id FROM review_log ORDER BY id LIMIT 1)
		ORDER BY r.id DESC LIMIT 1
		RETURNING card_id::text`},
	{what: "a fault kind never injected (its faults left out)", invariant: "under fire:",
		do: func(_ context.Context, p *planting) (string, error) {
			kind := faultKinds()[0]
			p.fired = slices.DeleteFunc(p.fired, func(ft fault) bool { return strings.HasPrefix(ft.Kind, kind) })
			return "no " + kind + " fault", nil
		}},
	{what: "a drain summary that does not account for its claims", invariant: "drain summaries:",
		do: func(_ context.Context, p *planting) (string, error) {
			p.s.drainLine("planted", `{"message":"drain run","report":{"claimed":424242,"delivered":1}}`)
			return "424242", nil
		}},
}

// onAcknowledged is a plant on the first acknowledged action of kind: it
// runs sql with arg(action) and returns the mark its violation names,
// "<kind> <request id> answered".
func onAcknowledged(kind, sql string, arg func(*action) any) func(context.Context, *planting) (string, error) {
	return func(ctx context.Context, p *planting) (string, error) {
		i := slices.IndexFunc(p.w.actions, func(a *action) bool { return a.Kind == kind && a.Outcome == outcomeOK })
		if i < 0 {
			return "", fmt.Errorf("no acknowledged %s", kind)
		}
		a := p.w.actions[i]
		_, err := p.s.pool.Exec(ctx, sql, arg(a))
		return kind + " " + a.RequestID + " answered", err
	}
}

// sendPlanted sends n copies of an email with Message-ID mid to the SMTP
// server at addr, past the drains.
func sendPlanted(addr, mid string, n int) error {
	msg := "From: chaos@lexora.app\r\nTo: planted@example.com\r\nSubject: planted\r\nMessage-ID: <" + mid + ">\r\n\r\nplanted\r\n"
	for range n {
		if err := smtp.SendMail(addr, nil, "chaos@lexora.app", []string{"planted@example.com"}, []byte(msg)); err != nil {
			return err
		}
	}
	return nil
}

// plantedWebhook takes the latest webhook the first teacher's healthy
// endpoint accepted and not planted on yet: with copies 0 it removes it
// from the receiver's log (lost), else it adds that many copies received
// now. It returns the webhook-id.
func plantedWebhook(p *planting, copies int) (string, error) {
	ep := p.w.teachers[0].endpoints[0].name
	rs := p.s.recv.receipts()
	for i := len(rs) - 1; i >= 0; i-- {
		r := rs[i]
		if r.Endpoint != ep || r.Status/100 != 2 || r.Type == "planted" ||
			copies == 0 && !slices.Contains([]string{events.LearnerEnrolled, events.AssignmentCreated, events.AssignmentCompleted}, r.Type) {
			continue
		}
		if copies == 0 {
			p.s.recv.forget(ep, r.ID)
			return r.ID, nil
		}
		for range copies {
			r.At, r.Type = time.Now(), "planted"
			p.s.recv.record(r)
		}
		return ep + " " + r.ID, nil
	}
	return "", errors.New("no accepted webhook to plant on")
}

// plantedReorder adds to the trace an attempt of the ordered activity
// subscriber at a key's earlier event, started after its latest event's
// last attempt: the subscriber seeing that key out of order.
func plantedReorder(ctx context.Context, p *planting) (string, error) {
	var first, last string
	if err := p.s.pool.QueryRow(ctx, `SELECT (array_agg(event_id::text ORDER BY id))[1], (array_agg(event_id::text ORDER BY id DESC))[1]
		FROM outbox_events WHERE topic = 'review.submitted'
		  AND event_id IN (SELECT event_id FROM outbox_processed WHERE subscriber = 'activity') GROUP BY ordering_key HAVING count(*) > 1 LIMIT 1`).Scan(&first, &last); err != nil {
		return "", err
	}
	sub := events.SubscriberActivity
	later := p.s.trace.bySubscriber(sub)[last]
	if len(later) == 0 {
		return "", fmt.Errorf("event %s has no traced attempt", last)
	}
	start := later[len(later)-1].start.Add(time.Millisecond)
	p.s.trace.add(deliveryKey{first, sub}, attempt{exec: "planted", start: start, end: start, ended: true})
	return "started event " + first, nil
}

// selfTest shows that the checks can fail: after a clean run it plants
// violations of every invariant, checks again and returns an error unless
// each planted violation was caught by its invariant, in a violation that
// names it. It leaves the run's database, the receiver's log and the
// drains' trace altered, so it runs last.
func selfTest(ctx context.Context, s *stack, w *world, faults []fault, since time.Time) (string, error) {
	p := &planting{s: s, w: w, fired: slices.Clone(faults)}
	marks := make([]string, len(plants))
	for i, pl := range plants {
		var err error
		if pl.do != nil {
			marks[i], err = pl.do(ctx, p)
		} else {
			err = s.pool.QueryRow(ctx, pl.sql).Scan(&marks[i])
		}
		if err != nil {
			return "", fmt.Errorf("plant %s: %w", pl.what, err)
		}
	}
	f, err := check(ctx, s, w, faults, since)
	if err != nil {
		return "", err
	}
	injectedAll(f, p.fired, &s.drainStats)
	summariesRead(f, &s.drainStats)
	var caught []string
	for i, pl := range plants {
		if !caughtBy(f, pl.invariant, marks[i]) {
			return "", fmt.Errorf("self-test: %s (%s) went unnoticed", pl.what, marks[i])
		}
		caught = append(caught, pl.what)
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
