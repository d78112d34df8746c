package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/consumers"
	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/testkit/mailpit"
)

// invariant is one checked property: how many cases it covered and the
// violations found (at most a few listed in full).
type invariant struct {
	Name       string
	Checked    int
	Violations []string
	count      int
}

func (iv *invariant) fail(format string, args ...any) {
	iv.count++
	if len(iv.Violations) < 10 {
		iv.Violations = append(iv.Violations, fmt.Sprintf(format, args...))
	}
}

// event is a committed outbox event as the checks see it.
type event struct {
	seq       int64
	id        uuid.UUID
	topic     string
	key       string
	payload   json.RawMessage
	requestID string
	created   time.Time
}

// duplicate is an email or webhook received more than once.
type duplicate struct {
	What   string // "email <Message-ID>" or "webhook <endpoint> <webhook-id>"
	Copies int
	First  time.Time
	Last   time.Time
	// Explained says, for each copy explained, what cut the attempt that
	// sent it off from the delivery's commit; Unexplained counts the extra
	// copies nothing explains (the copy the commit recorded needs nothing).
	Explained   string
	Unexplained int
}

// findings is what the checks found, for the report.
type findings struct {
	Invariants []*invariant
	Duplicates []duplicate
	// ExtraExplained and ExtraUnexplained count the extra copies of
	// emails and webhooks (copies beyond the first) explained and not.
	ExtraExplained, ExtraUnexplained int
	Scheduled                        int // deliveries waiting for a future not-before time (reminders)
	Undone                           int // reviews undone (review_undo rows), left out of the FSRS replay
	// RotationRetries counts webhooks answered 503 because they were
	// signed with a rotated secret whose answer had not reached the teacher yet.
	RotationRetries int
}

func (f *findings) invariant(name string) *invariant {
	iv := &invariant{Name: name}
	f.Invariants = append(f.Invariants, iv)
	return iv
}

func (f *findings) violations() int {
	n := 0
	for _, iv := range f.Invariants {
		n += iv.count
	}
	return n
}

// checker holds what the checks read once.
type checker struct {
	s       *stack
	w       *world
	faults  []fault
	start   time.Time
	events  []event
	byID    map[uuid.UUID]*event
	byTopic map[string][]*event
	// copies are the emails and webhooks received more than once, for
	// the duplicates check.
	copies []copies
}

// copies are the copies of one email or webhook, and when its delivery's
// commit recorded it (zero when none did).
type copies struct {
	what      string
	k         deliveryKey
	at        []time.Time
	committed time.Time
}

// check verifies every invariant after the system has settled. It reads
// the database directly, mailpit through its API and the receiver's log.
func check(ctx context.Context, s *stack, w *world, faults []fault, start time.Time) (*findings, error) {
	c := &checker{s: s, w: w, faults: faults, start: start, byID: map[uuid.UUID]*event{}, byTopic: map[string][]*event{}}
	rows, err := s.pool.Query(ctx, `SELECT id, event_id, topic, ordering_key, payload, coalesce(headers->>'request_id', ''), created_at
		FROM outbox_events ORDER BY id`)
	if err != nil {
		return nil, err
	}
	c.events, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (event, error) {
		var e event
		return e, r.Scan(&e.seq, &e.id, &e.topic, &e.key, &e.payload, &e.requestID, &e.created)
	})
	if err != nil {
		return nil, fmt.Errorf("read events: %w", err)
	}
	for i := range c.events {
		e := &c.events[i]
		c.byID[e.id] = e
		c.byTopic[e.topic] = append(c.byTopic[e.topic], e)
	}
	f := &findings{}
	for _, step := range []func(context.Context, *findings) error{
		c.durable, c.oncePerAction, c.stateHasEvents, c.nothingStuck, c.projections,
		c.emails, c.webhooks, c.duplicates, c.order, c.fsrs,
	} {
		if err := step(ctx, f); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// durable: every 2xx answer the clients got is in the database; reviews
// and undos were both acknowledged at least once (else the checks of undo
// held for want of any).
func (c *checker) durable(ctx context.Context, f *findings) error {
	iv := f.invariant("every 2xx answer is durable")
	acknowledged := map[string]int{}
	for _, a := range c.w.actions {
		if a.Outcome != outcomeOK {
			continue
		}
		var ok bool
		var err error
		switch a.Kind {
		case "review":
			var due time.Time
			var stability float64
			err = c.s.pool.QueryRow(ctx, `SELECT due_after, stability FROM review_log WHERE id = $1 AND card_id = $2`, a.ReviewID, a.CardID).Scan(&due, &stability)
			if errors.Is(err, pgx.ErrNoRows) {
				err = nil
			} else {
				// The database keeps microseconds (rounded).
				ok = err == nil && due.Sub(a.Due).Abs() < time.Microsecond && stability == a.Stability
			}
		case "undo":
			var at time.Time
			err = c.s.pool.QueryRow(ctx, `SELECT undone_at FROM review_undo WHERE review_id = $1 AND card_id = $2 AND learner_id = $3`,
				a.ReviewID, a.CardID, a.LearnerID).Scan(&at)
			if errors.Is(err, pgx.ErrNoRows) {
				err = nil
			} else {
				ok = err == nil && a.Undid == a.ReviewID && at.Sub(a.UndoneAt).Abs() < time.Microsecond
			}
		case "assign":
			if a.Status == http.StatusOK {
				continue // the class had given the learner the deck already
			}
			err = c.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM assignments WHERE id = $1 AND learner_id = $2 AND class_id = $3)`,
				a.AssignmentID, a.LearnerID, a.ClassID).Scan(&ok)
		case "enrol-email", "enrol-code":
			if a.Status == http.StatusAccepted {
				continue // an invitation: nothing to join yet
			}
			err = c.s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM class_members WHERE class_id = $1 AND learner_id = $2)`, a.ClassID, a.LearnerID).Scan(&ok)
		case "rotate":
			var secret string
			err = c.s.pool.QueryRow(ctx, `SELECT secret FROM webhook_endpoints WHERE id = $1`, a.EndpointID).Scan(&secret)
			// Later rotations replace the secret; this one must be the
			// current one or have been current (known to the receiver).
			ok = err == nil && slices.Contains(c.s.recv.secrets(a.Endpoint), secret) && a.Secret != ""
		default:
			continue
		}
		if err != nil {
			return fmt.Errorf("check %s %s: %w", a.Kind, a.RequestID, err)
		}
		iv.Checked++
		acknowledged[a.Kind]++
		if !ok {
			iv.fail("%s %s answered %d but is not in the database as answered", a.Kind, a.RequestID, a.Status)
		}
	}
	for _, k := range []string{"review", "undo"} {
		if acknowledged[k] == 0 {
			iv.fail("no %s was acknowledged: the run did not drive it", k)
		}
	}
	return nil
}

// primaryTopic is the event every committed write of a kind enqueues once.
var primaryTopic = map[string]string{
	"review":      events.ReviewSubmitted,
	"undo":        events.ReviewUndone,
	"assign":      events.AssignmentCreated,
	"enrol-email": events.LearnerEnrolled,
	"enrol-code":  events.LearnerEnrolled,
}

// oncePerAction: a write committed at most once whatever its retries (its
// request id is on the events of exactly one commit); a 2xx committed; a
// 4xx did not; an abandoned request committed entirely or not at all (the
// state checks below see no half).
func (c *checker) oncePerAction(_ context.Context, f *findings) error {
	iv := f.invariant("each write committed once (2xx), never (4xx), at most once (no answer)")
	count := map[string]int{}
	for _, e := range c.events {
		if e.requestID != "" {
			count[e.requestID+" "+e.topic]++
		}
	}
	for _, a := range c.w.actions {
		topic, ok := primaryTopic[a.Kind]
		if !ok {
			continue
		}
		if a.Status == http.StatusAccepted {
			topic = events.LearnerInvited
		}
		n := count[a.RequestID+" "+topic]
		iv.Checked++
		switch {
		case a.Outcome == outcomeOK && n != 1:
			iv.fail("%s %s answered %d (after %d attempts) but committed %d times", a.Kind, a.RequestID, a.Status, a.Attempts, n)
		case a.Outcome == outcomeRejected && n != 0:
			iv.fail("%s %s answered %d but committed %d times (phantom)", a.Kind, a.RequestID, a.Status, n)
		case a.Outcome == outcomeAbandoned && n > 1:
			iv.fail("%s %s got no answer and committed %d times", a.Kind, a.RequestID, n)
		}
	}
	return nil
}

// stateHasEvents: learning state and its events committed together: every
// review has its review.submitted and every review.submitted its review;
// every undo (a review_undo row) its review.undone and every review.undone
// its undo (none for a phantom undo); the same for assignments and
// enrolments made during the run.
func (c *checker) stateHasEvents(ctx context.Context, f *findings) error {
	iv := f.invariant("state and events commit together (no phantom event, no event-less state)")
	type pair struct {
		name, stateSQL, topic, field string
		since                        bool // stateSQL takes the run's start ($1)
	}
	for _, p := range []pair{
		// Reviews of the run only: the seed's simulated history (seed.SimulateHistory,
		// dated before the seed ends) is state without events by design.
		{"review", `SELECT id::text FROM review_log WHERE reviewed_at >= $1`, events.ReviewSubmitted, "review_id", true},
		{"undo of review", `SELECT review_id::text FROM review_undo`, events.ReviewUndone, "review_id", false},
		{"assignment", `SELECT id::text FROM assignments WHERE created_at >= $1`, events.AssignmentCreated, "assignment_id", true},
		{"enrolment", `SELECT class_id::text || '/' || learner_id::text FROM class_members WHERE joined_at >= $1`, events.LearnerEnrolled, "", true},
	} {
		var args []any
		if p.since {
			args = append(args, c.start)
		}
		rows, err := c.s.pool.Query(ctx, p.stateSQL, args...)
		if err != nil {
			return err
		}
		keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		state := map[string]bool{}
		for _, k := range keys {
			state[k] = true
		}
		seen := map[string]int{}
		for _, e := range c.byTopic[p.topic] {
			if p.since && e.created.Before(c.start) {
				continue // the seed's (its demo class's deck), not the run's
			}
			var m map[string]any
			if err := json.Unmarshal(e.payload, &m); err != nil {
				return err
			}
			var k string
			switch p.field {
			case "review_id":
				id, ok := m["review_id"].(float64)
				if !ok {
					return fmt.Errorf("event %s: review_id is %v, not a number", e.id, m["review_id"])
				}
				k = strconv.FormatFloat(id, 'f', -1, 64)
			case "":
				k = fmt.Sprint(m["class_id"]) + "/" + fmt.Sprint(m["learner_id"])
			default:
				k = fmt.Sprint(m[p.field])
			}
			seen[k]++
			iv.Checked++
			if !state[k] {
				iv.fail("%s event %s names %s %s, which is not in the database", p.topic, e.id, p.name, k)
			}
		}
		for k := range state {
			iv.Checked++
			if seen[k] != 1 {
				iv.fail("%s %s has %d %s events", p.name, k, seen[k], p.topic)
			}
		}
	}
	return nil
}

// nothingStuck: after the settle and the replay, every delivery was
// delivered; only reminders scheduled for later wait. An acknowledgement
// deletes its delivery, so the rows left are what it examines and counts
// as checked (a passing run's are the scheduled reminders).
func (c *checker) nothingStuck(ctx context.Context, f *findings) error {
	iv := f.invariant("nothing stuck: no delivery left after the replay but reminders for later (cases: rows left)")
	rows, err := c.s.pool.Query(ctx, `SELECT d.id, d.subscriber, e.topic, d.state, d.available_at > now() + interval '1 minute', coalesce(d.last_error, '')
		FROM outbox_deliveries d JOIN outbox_events e ON e.id = d.event_id`)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var sub, topic, state, lastErr string
		var later bool
		if err := rows.Scan(&id, &sub, &topic, &state, &later, &lastErr); err != nil {
			return err
		}
		iv.Checked++
		if later && state == "pending" && (topic == events.ReminderDaily || topic == events.ReminderDueSoon) {
			f.Scheduled++
			continue
		}
		iv.fail("delivery %d (%s to %s) is %s: %s", id, topic, sub, state, lastErr)
	}
	return rows.Err()
}

// projections: each (event, subscriber) took effect exactly once: every
// event a subscriber handled is real, the counters equal the events, and
// the feed holds each feed event once.
func (c *checker) projections(ctx context.Context, f *findings) error {
	iv := f.invariant("projections: each (event, subscriber) applied exactly once, none for a phantom")
	rows, err := c.s.pool.Query(ctx, `SELECT subscriber, event_id FROM outbox_processed`)
	if err != nil {
		return err
	}
	processed := map[string]bool{}
	for rows.Next() {
		var sub string
		var id uuid.UUID
		if err := rows.Scan(&sub, &id); err != nil {
			return err
		}
		processed[sub+" "+id.String()] = true
		iv.Checked++
		if c.byID[id] == nil {
			iv.fail("%s processed event %s, which was never committed", sub, id)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// Subscribers that always record what they handled.
	c.requireDone(iv, processed, "%s event %s was never handled by %s",
		topicSub{events.AssignmentCreated, events.SubscriberProgress},
		topicSub{events.AssignmentCreated, events.SubscriberEmail},
		topicSub{events.LearnerEnrolled, events.SubscriberEmail},
		topicSub{events.AssignmentCompleted, events.SubscriberEmail},
		topicSub{events.AssignmentCompleted, events.SubscriberCongratulation},
		topicSub{events.ReviewSubmitted, events.SubscriberActivity},
		topicSub{events.ReviewUndone, events.SubscriberActivity},
		topicSub{events.StreakExtended, events.SubscriberFeed},
		topicSub{events.AchievementEarned, events.SubscriberFeed},
		topicSub{events.CardLeeched, events.SubscriberFeed})

	// Counters against the events they count.
	want, err := wantCounts(c.byTopic)
	if err != nil {
		return err
	}
	for _, id := range want.progressEvents {
		iv.Checked++
		if !processed[events.SubscriberProgress+" "+id.String()] {
			iv.fail("event %s names assignments but was never handled by %s", id, events.SubscriberProgress)
		}
	}
	for _, q := range []struct {
		name string
		sql  string
		want map[string]int
	}{
		{"assignment_progress.reviews", `SELECT assignment_id::text, reviews FROM assignment_progress`, want.reviews},
		{"assignment_progress.cards_seen", `SELECT assignment_id::text, cards_seen FROM assignment_progress`, want.seen},
		{"assignment_progress.cards_learned", `SELECT assignment_id::text, cards_learned FROM assignment_progress`, want.learned},
		{"assignment_daily_reviews", `SELECT assignment_id::text || ' ' || day::text, reviews FROM assignment_daily_reviews`, want.dailyReviews},
		{"learner_daily_activity", `SELECT learner_id::text || ' ' || day::text, reviews FROM learner_daily_activity`, want.activity},
	} {
		rows, err := c.s.pool.Query(ctx, q.sql)
		if err != nil {
			return err
		}
		got := map[string]int{}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				return err
			}
			got[k] = n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		for k, n := range q.want {
			iv.Checked++
			if got[k] != n {
				iv.fail("%s of %s is %d, its events say %d", q.name, k, got[k], n)
			}
		}
		for k, n := range got {
			if _, ok := q.want[k]; !ok && n != 0 {
				iv.fail("%s of %s is %d without any event", q.name, k, n)
			}
		}
	}
	var feedRows, feedEvents int
	if err := c.s.pool.QueryRow(ctx, `SELECT count(*) FROM learner_feed`).Scan(&feedRows); err != nil {
		return err
	}
	feedEvents = len(c.byTopic[events.StreakExtended]) + len(c.byTopic[events.AchievementEarned]) + len(c.byTopic[events.CardLeeched])
	iv.Checked++
	if feedRows != feedEvents {
		iv.fail("learner_feed holds %d rows for %d feed events", feedRows, feedEvents)
	}
	return nil
}

// counts are what the progress and activity projections hold once every
// event was applied exactly once.
type counts struct {
	// By assignment id: reviews counted, cards seen and cards learned.
	reviews, seen, learned map[string]int
	// By assignment id and study day ("<id> YYYY-MM-DD"): reviews counted.
	dailyReviews map[string]int
	// By learner id and study day: reviews.
	activity map[string]int
	// progressEvents are the review.submitted and review.undone events
	// that name an assignment: the progress subscriber must record each.
	progressEvents []uuid.UUID
}

// wantCounts adds up the events that the projections count: an
// assignment.created brings its cards seen and learned at creation; a
// review.submitted adds a review to each of its assignments (on its study
// day) and to its learner's study day, and its change of state to its
// assignments; a review.undone takes all of that back, its change of state
// also from its later assignments. It reads the payloads independently of
// pkg/consumers, so that it checks them.
func wantCounts(byTopic map[string][]*event) (counts, error) {
	w := counts{reviews: map[string]int{}, seen: map[string]int{}, learned: map[string]int{},
		dailyReviews: map[string]int{}, activity: map[string]int{}}
	for _, e := range byTopic[events.AssignmentCreated] {
		var p events.AssignmentCreatedPayload
		if err := json.Unmarshal(e.payload, &p); err != nil {
			return counts{}, fmt.Errorf("event %s: %w", e.id, err)
		}
		w.seen[p.AssignmentID.String()] += p.CardsSeen
		w.learned[p.AssignmentID.String()] += p.CardsLearned
	}
	for _, topic := range []string{events.ReviewSubmitted, events.ReviewUndone} {
		sign := 1
		if topic == events.ReviewUndone {
			sign = -1
		}
		for _, e := range byTopic[topic] {
			var p events.ReviewUndonePayload // review.submitted's fields are among its own
			if err := json.Unmarshal(e.payload, &p); err != nil {
				return counts{}, fmt.Errorf("event %s: %w", e.id, err)
			}
			w.activity[p.LearnerID.String()+" "+p.StudyDay] += sign
			seen, learned := stateChange(p.StateBefore, p.StateAfter)
			for _, a := range p.AssignmentIDs {
				w.reviews[a.String()] += sign
				w.dailyReviews[a.String()+" "+p.StudyDay] += sign
			}
			for _, a := range slices.Concat(p.AssignmentIDs, p.LaterAssignmentIDs) {
				w.seen[a.String()] += sign * seen
				w.learned[a.String()] += sign * learned
			}
			if len(p.AssignmentIDs)+len(p.LaterAssignmentIDs) > 0 {
				w.progressEvents = append(w.progressEvents, e.id)
			}
		}
	}
	return w, nil
}

// stateChange is what a review from FSRS state before to after adds to
// an assignment's cards: seen 1 when it took the card out of New; learned
// 1 when it brought the card into Review, -1 when it took it out.
func stateChange(before, after int) (seen, learned int) {
	if before == int(learning.New) {
		seen = 1
	}
	if after == int(learning.Review) {
		learned++
	}
	if before == int(learning.Review) {
		learned--
	}
	return seen, learned
}

// emails: every email recorded as sent is in mailpit; every message in
// mailpit belongs to a committed event; the emails every committed action
// causes were sent. Copies of one Message-ID go to the duplicates check.
func (c *checker) emails(ctx context.Context, f *findings) error {
	iv := f.invariant("emails: each consequence sent, none for a phantom")
	msgs, err := allMessages(ctx, c.s.mail)
	if err != nil {
		return err
	}
	received := map[string][]time.Time{}
	for _, m := range msgs {
		received[m.MessageID] = append(received[m.MessageID], m.Created)
	}
	rows, err := c.s.pool.Query(ctx, `SELECT subscriber, event_id, message_id FROM email_sends`)
	if err != nil {
		return err
	}
	sent := map[string]bool{}
	for rows.Next() {
		var sub, mid string
		var id uuid.UUID
		if err := rows.Scan(&sub, &id, &mid); err != nil {
			return err
		}
		sent[sub+" "+id.String()] = true
		iv.Checked++
		if len(received[mid]) == 0 {
			iv.fail("email %s is recorded as sent but mailpit never received it", mid)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	// Every Message-ID a subscriber could have used for a committed event.
	known := map[string]deliveryKey{}
	for _, s := range events.Subscriptions {
		for _, e := range c.byTopic[s.Topic] {
			known[consumers.MessageID(outbox.Event{ID: e.id}, s.Subscriber)] = deliveryKey{e.id.String(), s.Subscriber}
		}
	}
	for mid, at := range received {
		iv.Checked++
		k, ok := known[mid]
		if !ok {
			iv.fail("mailpit holds %s, which belongs to no committed event (phantom)", mid)
		}
		if len(at) > 1 {
			var committed time.Time
			err := c.s.pool.QueryRow(ctx, `SELECT processed_at FROM outbox_processed WHERE subscriber = $1 AND event_id = $2`,
				k.subscriber, k.event).Scan(&committed)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			c.copies = append(c.copies, copies{"email " + mid, k, at, committed})
		}
	}
	c.requireDone(iv, sent, "%s event %s: %s never sent its email",
		topicSub{events.AssignmentCreated, events.SubscriberEmail},
		topicSub{events.LearnerEnrolled, events.SubscriberEmail},
		topicSub{events.AssignmentCompleted, events.SubscriberEmail},
		topicSub{events.AssignmentCompleted, events.SubscriberCongratulation})
	return nil
}

// topicSub is a topic and one of its subscribers.
type topicSub struct{ topic, sub string }

// requireDone checks, for each of needs, every committed event of its topic
// (counted in iv) against done, keyed "subscriber event-id": an event its
// subscriber has not done fails iv with format, given the topic, the event
// id and the subscriber.
func (c *checker) requireDone(iv *invariant, done map[string]bool, format string, needs ...topicSub) {
	for _, need := range needs {
		for _, e := range c.byTopic[need.topic] {
			iv.Checked++
			if !done[need.sub+" "+e.id.String()] {
				iv.fail(format, need.topic, e.id, need.sub)
			}
		}
	}
}

// copySlack is how far a copy's arrival may lie outside the attempt that
// sent it: mailpit stamps a message when it has stored it, the receiver a
// webhook when it has answered, both about when the sender hears back.
const copySlack = time.Second

// duplicates: an email or webhook may arrive more than once (one
// Message-ID, one webhook-id per endpoint) only when the attempt that sent
// an extra copy was cut off from the delivery's commit. Each copy is tied
// to the attempts at its delivery (its event and subscriber) in flight when
// it arrived, from the drains' trace; it is explained when such an attempt
// failed after sending, or its own drain execution was killed, stopped or
// lost its lease, or exited with it still running, or PostgreSQL
// restarted, between the attempt's start (a kill: the copy) and the
// delivery's commit. One copy per delivery needs no explanation: the one
// the commit recorded. A fault of another task, or outside that window,
// explains nothing.
func (c *checker) duplicates(_ context.Context, f *findings) error {
	iv := f.invariant("duplicates: every extra copy of an email or webhook explained by a fault of the attempt that sent it")
	for _, cp := range c.copies {
		slices.SortFunc(cp.at, func(a, b time.Time) int { return a.Compare(b) })
		d := duplicate{What: cp.what, Copies: len(cp.at), First: cp.at[0], Last: cp.at[len(cp.at)-1]}
		var explained []string
		unexplained := 0
		for _, t := range cp.at {
			if why := c.explainCopy(cp.k, t, cp.committed); why != "" {
				explained = append(explained, t.Format("15:04:05.000")+": "+why)
			} else {
				unexplained++
			}
		}
		d.Explained = strings.Join(explained, "; ")
		d.Unexplained = max(0, unexplained-1)
		f.ExtraExplained += d.Copies - 1 - d.Unexplained
		f.ExtraUnexplained += d.Unexplained
		f.Duplicates = append(f.Duplicates, d)
		iv.Checked++
		if d.Unexplained > 0 {
			iv.fail("%s arrived %d times (%s to %s): %d extra copies sent by no attempt cut off from its commit",
				cp.what, d.Copies, d.First.Format("15:04:05.000"), d.Last.Format("15:04:05.000"), d.Unexplained)
		}
	}
	return nil
}

// explainCopy tells what cut the attempt that sent the copy of delivery k
// that arrived at t off from the delivery's commit at committed (zero:
// never), or "" when no attempt in flight at t was cut off.
func (c *checker) explainCopy(k deliveryKey, t, committed time.Time) string {
	attempts, exits := c.s.trace.of(k)
	until := committed.Add(copySlack)
	if committed.IsZero() {
		until = time.Now()
	}
	for _, a := range attempts {
		end := a.end
		if !a.ended {
			end = exits[a.exec] // its process ended first (zero: still runs)
		}
		if a.start.After(t.Add(copySlack)) || !end.IsZero() && end.Before(t.Add(-copySlack)) {
			continue // not in flight when the copy arrived
		}
		if a.ended && a.err != "" {
			return fmt.Sprintf("its attempt in %s failed after sending at %s: %s", a.exec, a.end.Format("15:04:05.000"), a.err)
		}
		for _, ft := range c.faults {
			ofTask := ft.Task == a.exec && (strings.HasPrefix(ft.Kind, "drain-") || strings.HasPrefix(ft.Kind, "lease lost"))
			restart := ft.Kind == "pg-restart" && !ft.End.Before(t.Add(-copySlack))
			if (ofTask || restart) && !ft.End.Before(a.start) && !ft.Start.After(until) {
				return fmt.Sprintf("%s of %s at %s, its attempt started %s", ft.Kind, cmp.Or(ft.Task, "the database"),
					ft.Start.Format("15:04:05.000"), a.start.Format("15:04:05.000"))
			}
		}
		if at := exits[a.exec]; !a.ended && !at.IsZero() && !at.After(until) {
			return fmt.Sprintf("%s exited at %s with its attempt still running", a.exec, at.Format("15:04:05.000"))
		}
	}
	return ""
}

// webhooks: every delivery was correctly signed; every event of a teacher
// reached that teacher's healthy endpoint, and was accepted; nothing for a
// phantom; the endpoint that answered 410 is disabled and got nothing
// accepted after. Copies of one webhook-id go to the duplicates check.
func (c *checker) webhooks(ctx context.Context, f *findings) error {
	iv := f.invariant("webhooks: signed, each consequence delivered, none for a phantom")
	accepted := map[string][]time.Time{} // endpoint name + " " + webhook-id
	rotating := 0
	var gone *receipt
	for _, r := range c.s.recv.receipts() {
		iv.Checked++
		switch {
		case r.Status == http.StatusServiceUnavailable:
			rotating++
		case !r.Verified:
			iv.fail("webhook %s to %s: no signature verifies with the endpoint's secrets", r.ID, r.Endpoint)
		}
		if r.Status == http.StatusGone && gone == nil {
			gone = &r
		}
		if r.Status >= 200 && r.Status < 300 {
			id, err := uuid.Parse(r.ID)
			if err != nil || c.byID[id] == nil {
				iv.fail("webhook %q to %s belongs to no committed event (phantom)", r.ID, r.Endpoint)
			}
			accepted[r.Endpoint+" "+r.ID] = append(accepted[r.Endpoint+" "+r.ID], r.At)
		}
	}
	endpoints := map[string]uuid.UUID{}
	for _, t := range c.w.teachers {
		for _, ep := range t.endpoints {
			endpoints[ep.name] = ep.id
		}
	}
	for k, at := range accepted {
		if len(at) > 1 {
			name, id, _ := strings.Cut(k, " ")
			var committed time.Time
			err := c.s.pool.QueryRow(ctx, `SELECT at FROM webhook_attempts WHERE endpoint_id = $1 AND event_id::text = $2 AND accepted`,
				endpoints[name], id).Scan(&committed)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			c.copies = append(c.copies, copies{"webhook " + k, deliveryKey{id, events.SubscriberWebhook}, at, committed})
		}
	}
	for _, t := range c.w.teachers {
		healthy := t.endpoints[0]
		var created time.Time
		var secret string
		if err := c.s.pool.QueryRow(ctx, `SELECT created_at, secret FROM webhook_endpoints WHERE id = $1`, healthy.id).Scan(&created, &secret); err != nil {
			return err
		}
		known := c.s.recv.secrets(healthy.name)
		iv.Checked++
		if len(known) == 0 || known[len(known)-1] != secret {
			iv.fail("endpoint %s: its secret is not the one the last rotation answered", healthy.name)
		}
		for _, topic := range []string{events.LearnerEnrolled, events.AssignmentCreated, events.AssignmentCompleted} {
			for _, e := range c.byTopic[topic] {
				var p struct {
					TeacherID uuid.UUID `json:"teacher_id"`
				}
				if err := json.Unmarshal(e.payload, &p); err != nil {
					return err
				}
				if p.TeacherID != t.id || e.created.Before(created) {
					continue
				}
				iv.Checked++
				if len(accepted[healthy.name+" "+e.id.String()]) == 0 {
					iv.fail("%s event %s never reached %s's endpoint", topic, e.id, t.id)
				}
			}
		}
		for _, ep := range t.endpoints[1:] {
			var disabled bool
			if err := c.s.pool.QueryRow(ctx, `SELECT disabled_at IS NOT NULL FROM webhook_endpoints WHERE id = $1`, ep.id).Scan(&disabled); err != nil {
				return err
			}
			iv.Checked++
			if gone != nil && !disabled {
				iv.fail("endpoint %s answered 410 Gone at %s but is not disabled", ep.name, gone.At.Format("15:04:05.000"))
			}
			for k, at := range accepted {
				if gone != nil && len(k) > len(ep.name) && k[:len(ep.name)] == ep.name && at[len(at)-1].After(gone.At) {
					iv.fail("endpoint %s accepted %s after its 410 Gone", ep.name, k)
				}
			}
		}
	}
	f.RotationRetries = rotating
	return nil
}

// order: each ordered subscriber saw each key's events in commit order
// (outbox id order within the key), read from two records of its handling
// order. The drains' trace: sorted by their start (each drain's clock, one
// machine), a key's attempts never go back to an event before one already
// attempted; every event the subscriber applied has a traced attempt (a
// trace that lost lines would prove nothing). The subscriber's dedup
// records, written by the transaction that applied each event: their times
// (the transaction's start) rise with the events' ids.
func (c *checker) order(ctx context.Context, f *findings) error {
	iv := f.invariant("order: ordered subscribers saw and applied each key's events in commit order")
	for _, sub := range orderedSubscribers() {
		traced := c.s.trace.bySubscriber(sub)
		c.tracedOrder(iv, sub, traced)
		rows, err := c.s.pool.Query(ctx, `SELECT e.ordering_key, e.id, e.event_id, p.processed_at
			FROM outbox_processed p JOIN outbox_events e ON e.event_id = p.event_id
			WHERE p.subscriber = $1 ORDER BY e.ordering_key, e.id`, sub)
		if err != nil {
			return err
		}
		var lastKey string
		var lastAt time.Time
		var lastID uuid.UUID
		for rows.Next() {
			var key string
			var seq int64
			var id uuid.UUID
			var at time.Time
			if err := rows.Scan(&key, &seq, &id, &at); err != nil {
				return err
			}
			iv.Checked++
			if key == lastKey && !at.After(lastAt) {
				iv.fail("%s applied event %s (id %d, key %s) at %s, not after event %s at %s", sub, id, seq, key,
					at.Format(time.RFC3339Nano), lastID, lastAt.Format(time.RFC3339Nano))
			}
			if len(traced[id.String()]) == 0 {
				iv.fail("%s applied event %s, but no attempt at it was traced", sub, id)
			}
			lastKey, lastAt, lastID = key, at, id
		}
		if err := rows.Err(); err != nil {
			return err
		}
	}
	return nil
}

// tracedOrder checks the traced attempts of ordered subscriber sub (by
// event id): within each key, in start order, no attempt is at an event
// committed before one an earlier attempt was at.
func (c *checker) tracedOrder(iv *invariant, sub string, traced map[string][]attempt) {
	type seen struct {
		e *event
		a attempt
	}
	byKey := map[string][]seen{}
	for id, as := range traced {
		u, err := uuid.Parse(id)
		e := c.byID[u]
		if err != nil || e == nil {
			iv.fail("%s attempted event %s, which was never committed", sub, id)
			continue
		}
		for _, a := range as {
			byKey[e.key] = append(byKey[e.key], seen{e, a})
		}
	}
	for key, ss := range byKey {
		slices.SortFunc(ss, func(x, y seen) int { return cmp.Or(x.a.start.Compare(y.a.start), cmp.Compare(x.e.seq, y.e.seq)) })
		latest := ss[0]
		for _, s := range ss {
			iv.Checked++
			if s.e.seq < latest.e.seq {
				iv.fail("%s started event %s (id %d, key %s) in %s at %s, after starting event %s (id %d) in %s at %s", sub,
					s.e.id, s.e.seq, key, s.a.exec, s.a.start.Format("15:04:05.000000"), latest.e.id, latest.e.seq,
					latest.a.exec, latest.a.start.Format("15:04:05.000000"))
				continue
			}
			latest = s
		}
	}
}

func orderedSubscribers() []string {
	var out []string
	for _, s := range events.Subscriptions {
		if s.Ordered && !slices.Contains(out, s.Subscriber) {
			out = append(out, s.Subscriber)
		}
	}
	return out
}

// fsrs: every card's state, and every logged review, equals what FSRS-6
// computes replaying the card's review log from a new card, without the
// undone reviews (those with a review_undo row): an undo restores the card
// to its state before the review, so the next review starts from there.
// An undone review itself must still be what FSRS computes from the state
// it started from.
func (c *checker) fsrs(ctx context.Context, f *findings) error {
	iv := f.invariant("FSRS: every card equals the replay of its review log without the undone reviews")
	rows, err := c.s.pool.Query(ctx, `SELECT r.card_id, r.rating, r.state_before, r.due_before, r.state_after, r.due_after,
		r.stability, r.difficulty, r.elapsed_days, r.scheduled_days, r.reviewed_at, u.timezone,
		EXISTS (SELECT 1 FROM review_undo x WHERE x.review_id = r.id)
		FROM review_log r JOIN users u ON u.id = r.learner_id ORDER BY r.card_id, r.id`)
	if err != nil {
		return err
	}
	type logged struct {
		card                          uuid.UUID
		rating, before, after         int
		dueBefore, dueAfter, reviewed time.Time
		stability, difficulty         float64
		elapsed, scheduled            int64
		zone                          string
		undone                        bool
	}
	logs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (logged, error) {
		var l logged
		return l, r.Scan(&l.card, &l.rating, &l.before, &l.dueBefore, &l.after, &l.dueAfter, &l.stability,
			&l.difficulty, &l.elapsed, &l.scheduled, &l.reviewed, &l.zone, &l.undone)
	})
	if err != nil {
		return err
	}
	cards := map[uuid.UUID]learning.Card{}
	// Each review is replayed at its logged instant (ReviewAt): the
	// scheduler's clock is never read.
	sched, err := learning.NewScheduler(learning.DefaultParams(), clock.System{})
	if err != nil {
		return err
	}
	// Each review is scheduled at its card's desired retention at that
	// instant (store.CardRetention's rule: the highest of the class decks of
	// the assignments that hold it, made by then; the default otherwise).
	type held struct {
		since     time.Time
		retention float64
	}
	holds := map[uuid.UUID][]held{}
	rrows, err := c.s.pool.Query(ctx, `SELECT c.id, a.created_at, cd.desired_retention::float8 FROM cards c
		JOIN assignments a ON a.learner_id = c.learner_id
		JOIN class_decks cd ON cd.class_id = a.class_id AND cd.deck_id = a.deck_id
		JOIN deck_items di ON di.deck_id = a.deck_id AND di.lexeme_id = c.lexeme_id`)
	if err != nil {
		return err
	}
	for rrows.Next() {
		var id uuid.UUID
		var h held
		if err := rrows.Scan(&id, &h.since, &h.retention); err != nil {
			rrows.Close()
			return err
		}
		holds[id] = append(holds[id], h)
	}
	rrows.Close()
	if err := rrows.Err(); err != nil {
		return err
	}
	retentionAt := func(card uuid.UUID, at time.Time) float64 {
		r := 0.0
		for _, h := range holds[card] {
			if !h.since.After(at) {
				r = max(r, h.retention)
			}
		}
		return cmp.Or(r, learning.DefaultDesiredRetention)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	for _, l := range logs {
		card, ok := cards[l.card]
		if !ok {
			card = learning.Card{State: learning.New, Due: l.dueBefore}
		}
		iv.Checked++
		if int(card.State) != l.before || !card.Due.Equal(l.dueBefore) {
			iv.fail("card %s: review at %s starts from state %d due %s, the replay from %d due %s", l.card,
				l.reviewed.Format(time.RFC3339Nano), l.before, l.dueBefore, card.State, card.Due)
		}
		at, err := sched.WithRetention(retentionAt(l.card, l.reviewed))
		if err != nil {
			return err
		}
		next, _, err := at.ReviewAt(card, learning.Rating(l.rating), learning.Zone(l.zone), l.reviewed)
		if err != nil {
			iv.fail("card %s: replay of the review at %s: %v", l.card, l.reviewed, err)
			continue
		}
		if int(next.State) != l.after || !next.Due.Equal(l.dueAfter) || !near(next.Stability, l.stability) ||
			!near(next.Difficulty, l.difficulty) || int64(next.ScheduledDays) != l.scheduled || int64(next.ElapsedDays) != l.elapsed {
			iv.fail("card %s: review at %s logged state %d due %s S %.6f D %.6f, the replay gives %d due %s S %.6f D %.6f",
				l.card, l.reviewed.Format(time.RFC3339Nano), l.after, l.dueAfter, l.stability, l.difficulty,
				next.State, next.Due, next.Stability, next.Difficulty)
		}
		if l.undone {
			f.Undone++
			next = card
		}
		cards[l.card] = next
	}
	rows, err = c.s.pool.Query(ctx, `SELECT id, state, due, stability, difficulty, reps, lapses, step FROM cards WHERE reps > 0 OR id = ANY($1)`, slices.Collect(maps.Keys(cards)))
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id uuid.UUID
		var state, step int
		var due time.Time
		var s, d float64
		var reps, lapses int64
		if err := rows.Scan(&id, &state, &due, &s, &d, &reps, &lapses, &step); err != nil {
			return err
		}
		want, ok := cards[id]
		iv.Checked++
		if !ok {
			iv.fail("card %s has %d reps but no review log", id, reps)
			continue
		}
		if int(want.State) != state || !want.Due.Equal(due) || !near(want.Stability, s) || !near(want.Difficulty, d) ||
			int64(want.Reps) != reps || int64(want.Lapses) != lapses || want.Step != step {
			iv.fail("card %s is state %d due %s reps %d lapses %d, its log replays to state %d due %s reps %d lapses %d",
				id, state, due, reps, lapses, want.State, want.Due, want.Reps, want.Lapses)
		}
	}
	return rows.Err()
}

// allMessages pages through every message mailpit holds.
func allMessages(ctx context.Context, mp mailpit.Client) ([]mailpit.Message, error) {
	var out []mailpit.Message
	for start := 0; ; start += 1000 {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, mp.URL+"/api/v1/messages?limit=1000&start="+strconv.Itoa(start), nil)
		if err != nil {
			return nil, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("mailpit: %w", err)
		}
		var page struct {
			Total    int               `json:"total"`
			Messages []mailpit.Message `json:"messages"`
		}
		err = json.NewDecoder(resp.Body).Decode(&page)
		if err = errors.Join(err, resp.Body.Close()); err != nil {
			return nil, fmt.Errorf("mailpit: %w", err)
		}
		out = append(out, page.Messages...)
		if len(page.Messages) == 0 || len(out) >= page.Total {
			sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
			return out, nil
		}
	}
}
