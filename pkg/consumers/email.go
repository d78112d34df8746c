package consumers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/reminders"
)

// Email sends the learner a welcome on learner.enrolled, the class's join
// code on learner.invited, the daily study
// reminder (reminder.daily: not when the learner already studied that study
// day; each schedules the next), and the assignment emails: to the learner on assignment.created;
// on assignment.completed to the teacher (subscriber email) and the learner
// (subscriber congratulation-email); and the learner's reminder.due_soon,
// unless the assignment is complete by then (completion cancels it) or its
// due date changed.
//
// Each email's Message-ID is derived from the event id and the subscriber.
// The assignment, welcome and invitation emails are sent outside any
// transaction: the consumer checks the dedup record (outbox.Processed),
// reads what the email says, sends it, and only once the SMTP server has
// accepted it writes the dedup record and the email_sends row in one short
// transaction, so no pooled connection waits on the SMTP server. The daily
// reminder still sends inside its transaction, because whether it is sent
// and the next link of the learner's reminder chain must commit together.
// If the process dies between the SMTP accept and the record, or two copies
// of a delivery run at once (a lost lease, whose handler the drain cancels),
// the same message with the same Message-ID is sent again: this errs
// towards a duplicate, which mail clients that thread by Message-ID (Gmail,
// Apple Mail, Thunderbird) show once, never towards a lost email. (The
// mailpit sink keeps both.)
type Email struct {
	pool   *pgxpool.Pool
	mail   mail.Sender
	outbox *outbox.Outbox // for the next daily reminder
	now    func() time.Time
}

// MessageID is the Message-ID (without angle brackets) of the email that
// subscriber sends for event.
func MessageID(event outbox.Event, subscriber string) string {
	return fmt.Sprintf("%s.%s@lexora.app", event.ID, subscriber)
}

const assignmentMailSQL = `
SELECT l.email, l.display_name, l.timezone, t.email, t.display_name, d.title, a.due_at,
       (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id),
       a.completed_at IS NOT NULL,
       (SELECT count(*) FROM deck_items di LEFT JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = a.learner_id
        WHERE di.deck_id = d.id AND c.state IS DISTINCT FROM 2)
FROM assignments a
JOIN users l ON l.id = a.learner_id
JOIN users t ON t.id = a.teacher_id
JOIN decks d ON d.id = a.deck_id
WHERE a.id = $1`

const recordSendSQL = `
INSERT INTO email_sends (subscriber, event_id, message_id, recipient, subject)
VALUES ($1, $2, $3, $4, $5)`

// Handle sends the email for one event. It returns a permanent error for a
// topic it does not handle, an undecodable payload or an assignment that no
// longer exists, and a retryable error when the SMTP server refuses.
func (e *Email) Handle(ctx context.Context, d outbox.Delivery) error {
	var assignmentID string
	var remindFor time.Time
	switch d.Event.Topic {
	case events.AssignmentCreated:
		var p events.AssignmentCreatedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		assignmentID = p.AssignmentID.String()
	case events.AssignmentCompleted:
		var p events.AssignmentCompletedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		assignmentID = p.AssignmentID.String()
	case events.ReminderDueSoon:
		var p events.ReminderDueSoonPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		assignmentID, remindFor = p.AssignmentID.String(), p.DueAt
	case events.LearnerEnrolled:
		var p events.LearnerEnrolledPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		return e.welcome(ctx, d, p)
	case events.LearnerInvited:
		var p events.LearnerInvitedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		return e.invite(ctx, d, p)
	case events.ReminderDaily:
		var p events.ReminderDailyPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		return e.daily(ctx, d, p)
	default:
		return unexpectedTopic(d)
	}
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		var a assignmentMail
		err := e.pool.QueryRow(ctx, assignmentMailSQL, assignmentID).Scan(&a.learnerEmail, &a.learnerName, &a.tz,
			&a.teacherEmail, &a.teacherName, &a.deck, &a.due, &a.cards, &a.completed, &a.left)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, outbox.Permanent(fmt.Errorf("assignment %s no longer exists", assignmentID))
		}
		if err != nil {
			return nil, fmt.Errorf("load assignment %s: %w", assignmentID, err)
		}
		if d.Event.Topic == events.ReminderDueSoon && (a.completed || !a.due.Equal(remindFor)) {
			return nil, nil // completion cancels the reminder; a new due date would get its own
		}
		m := a.message(d)
		return &m, nil
	})
}

// sendOnce sends the email compose writes (none when it returns nil)
// unless the delivery was already processed, then records the delivery and
// the send in one short transaction (see Email).
func (e *Email) sendOnce(ctx context.Context, d outbox.Delivery, compose func() (*mail.Message, error)) error {
	if done, err := outbox.Processed(ctx, e.pool, d); err != nil || done {
		return err
	}
	m, err := compose()
	if err != nil {
		return err
	}
	if m != nil {
		m.MessageID = MessageID(d.Event, d.Subscriber)
		if err := e.mail.Send(ctx, *m); err != nil {
			return err
		}
	}
	return outbox.HandleOnce(ctx, e.pool, d, func(tx pgx.Tx) error {
		if m == nil {
			return nil
		}
		return recordSend(ctx, tx, d, *m)
	})
}

// assignmentMail is what the emails about one assignment say.
type assignmentMail struct {
	learnerEmail, learnerName, tz, teacherEmail, teacherName, deck string
	due                                                            time.Time
	cards, left                                                    int
	completed                                                      bool
}

// message writes the email for the delivery's topic and subscriber.
func (a assignmentMail) message(d outbox.Delivery) mail.Message {
	due := a.due.In(learning.Zone(a.tz)).Format("Monday 2 January 2006, 15:04 MST")
	switch {
	case d.Event.Topic == events.AssignmentCreated:
		return mail.Message{To: a.learnerEmail, Subject: "New assignment: " + a.deck,
			Body: fmt.Sprintf("Hello %s,\n\n%s assigned you the deck %q: %d words, due %s.\n\nYour first cards are ready to review now.\n",
				a.learnerName, a.teacherName, a.deck, a.cards, due)}
	case d.Event.Topic == events.ReminderDueSoon:
		return mail.Message{To: a.learnerEmail, Subject: "Due tomorrow: " + a.deck,
			Body: fmt.Sprintf("Hello %s,\n\n%q is due %s, and %d of its %d words are still to learn.\n",
				a.learnerName, a.deck, due, a.left, a.cards)}
	case d.Subscriber == events.SubscriberCongratulation:
		return mail.Message{To: a.learnerEmail, Subject: "Well done: you finished " + a.deck,
			Body: fmt.Sprintf("Hello %s,\n\nYou have learned every word of %q (%d words). %s will be told.\n",
				a.learnerName, a.deck, a.cards, a.teacherName)}
	default:
		return mail.Message{To: a.teacherEmail, Subject: fmt.Sprintf("%s finished %s", a.learnerName, a.deck),
			Body: fmt.Sprintf("Hello %s,\n\n%s has learned every word of %q (%d words).\n",
				a.teacherName, a.learnerName, a.deck, a.cards)}
	}
}

const welcomeSQL = `
SELECT l.email, l.display_name, t.display_name, c.name
FROM users l, users t, classes c
WHERE l.id = $1 AND c.id = $2 AND t.id = c.teacher_id`

// welcome emails a newly enrolled learner.
func (e *Email) welcome(ctx context.Context, d outbox.Delivery, p events.LearnerEnrolledPayload) error {
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		var email, name, teacher, class string
		err := e.pool.QueryRow(ctx, welcomeSQL, p.LearnerID, p.ClassID).Scan(&email, &name, &teacher, &class)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, outbox.Permanent(fmt.Errorf("learner %s or class %s no longer exists", p.LearnerID, p.ClassID))
		}
		if err != nil {
			return nil, fmt.Errorf("load enrolment: %w", err)
		}
		return &mail.Message{To: email, Subject: "Welcome to " + class,
			Body: fmt.Sprintf("Hello %s,\n\n%s added you to %q on Lexora. You have %d assignment(s) waiting.\n",
				name, teacher, class, len(p.Assignments))}, nil
	})
}

const inviteSQL = `
SELECT l.email, l.display_name, t.display_name, c.name, c.join_code
FROM users l, classes c JOIN users t ON t.id = c.teacher_id
WHERE l.id = $1 AND c.id = $2`

// invite emails a learner the join code of the class a teacher invited them
// to; joining is the learner's choice.
func (e *Email) invite(ctx context.Context, d outbox.Delivery, p events.LearnerInvitedPayload) error {
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		var email, name, teacher, class string
		var code *string
		err := e.pool.QueryRow(ctx, inviteSQL, p.LearnerID, p.ClassID).Scan(&email, &name, &teacher, &class, &code)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, outbox.Permanent(fmt.Errorf("learner %s or class %s no longer exists", p.LearnerID, p.ClassID))
		}
		if err != nil {
			return nil, fmt.Errorf("load invitation: %w", err)
		}
		join := "Ask " + teacher + " for the class code to join."
		if code != nil {
			join = "To join, sign in to Lexora and enter the class code " + *code + "."
		}
		return &mail.Message{To: email, Subject: "Invitation to " + class,
			Body: fmt.Sprintf("Hello %s,\n\n%s invited you to %q on Lexora. %s\nIf you do not want to join, ignore this email: nothing is shared until you do.\n",
				name, teacher, class, join)}, nil
	})
}

const dailySQL = `
SELECT u.email, u.display_name, u.timezone,
       (SELECT count(*) FROM cards c WHERE c.learner_id = u.id AND c.due <= $2 AND NOT c.suspended)
FROM users u WHERE u.id = $1`

// studiedSQL: did learner $1 review between $2 and $3 (a study day's
// bounds)? Served by review_log_learner_reviewed.
const studiedSQL = `SELECT EXISTS (SELECT 1 FROM review_log WHERE learner_id = $1 AND reviewed_at >= $2 AND reviewed_at < $3)`

// daily sends the learner's daily reminder unless they studied on its study
// day or have nothing due, and schedules the next one.
func (e *Email) daily(ctx context.Context, d outbox.Delivery, p events.ReminderDailyPayload) error {
	return outbox.HandleOnce(ctx, e.pool, d, func(tx pgx.Tx) error {
		var email, name, tz string
		var due int
		err := tx.QueryRow(ctx, dailySQL, p.LearnerID, p.At).Scan(&email, &name, &tz, &due)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // the learner is gone: the chain ends
		}
		if err != nil {
			return fmt.Errorf("load learner: %w", err)
		}
		// After an outage the chain resumes from now, and a reminder that is
		// more than a few hours late is not worth sending.
		now := e.now()
		current, err := reminders.Continue(ctx, tx, e.outbox, p.LearnerID, tz, d.Event.ID, maxTime(p.At, now))
		if err != nil || !current || now.Sub(p.At) > staleReminder {
			return err
		}
		// Whether the learner studied is read from the review log, written
		// in the review's own transaction, not from learner_daily_activity:
		// that projection lags while the activity subscriber is behind or
		// blocked by a dead letter, and a learner who studied would be told
		// they did not.
		start, end := learning.StudyDayBounds(p.At, learning.Zone(tz))
		var studied bool
		if err := tx.QueryRow(ctx, studiedSQL, p.LearnerID, start, end).Scan(&studied); err != nil {
			return fmt.Errorf("check today's study: %w", err)
		}
		if studied || due == 0 {
			return nil
		}
		m := mail.Message{MessageID: MessageID(d.Event, d.Subscriber), To: email, Subject: fmt.Sprintf("%d words are waiting for you", due),
			Body: fmt.Sprintf("Hello %s,\n\nYou have not studied today yet: %d cards are due. A few minutes keep your streak alive.\n", name, due)}
		if err := e.mail.Send(ctx, m); err != nil {
			return err
		}
		return recordSend(ctx, tx, d, m)
	})
}

// staleReminder is how late a daily reminder may be and still be sent.
const staleReminder = 3 * time.Hour

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// recordSend records the sent email m in email_sends, inside tx.
func recordSend(ctx context.Context, tx pgx.Tx, d outbox.Delivery, m mail.Message) error {
	_, err := tx.Exec(ctx, recordSendSQL, d.Subscriber, d.Event.ID, m.MessageID, m.To, m.Subject)
	return err
}
