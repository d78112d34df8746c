package consumers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/clock"
	"github.com/lexora-app/lexora/pkg/store"
)

// Email sends the learner a welcome on learner.enrolled, the class's join
// code on learner.invited, the daily study
// reminder (reminder.daily: not when the learner already studied that study
// day, has nothing due, or the reminder is more than a few hours late; the
// next link of the chain is ReminderChain's), and the assignment emails: to the learner on assignment.created;
// on assignment.completed to the teacher (subscriber email) and the learner
// (subscriber congratulation-email); and the learner's reminder.due_soon,
// unless the assignment is complete by then (completion cancels it) or its
// due date changed.
//
// Each email's Message-ID is derived from the event id and the subscriber.
// Every email is sent outside any transaction: the consumer checks the
// dedup record (outbox.Processed), reads what the email says, sends it, and
// only once the SMTP server has accepted it writes the dedup record and the
// email_sends row in one short transaction, so no pooled connection waits
// on the SMTP server. If the process dies between the SMTP accept and the record, or two copies
// of a delivery run at once (a lost lease, whose handler the drain cancels),
// the same message with the same Message-ID is sent again: this errs
// towards a duplicate, which mail clients that thread by Message-ID (Gmail,
// Apple Mail, Thunderbird) show once, never towards a lost email. (The
// mailpit sink keeps both.)
type Email struct {
	pool  *pgxpool.Pool
	mail  mail.Sender
	clock clock.Clock
}

// MessageID is the Message-ID (without angle brackets) of the email that
// subscriber sends for event.
func MessageID(event outbox.Event, subscriber string) string {
	return fmt.Sprintf("%s.%s@lexora.app", event.ID, subscriber)
}

// Handle sends the email for one event. It returns a permanent error for a
// topic it does not handle, an undecodable payload or an assignment that no
// longer exists, and a retryable error when the SMTP server refuses.
func (e *Email) Handle(ctx context.Context, d outbox.Delivery) error {
	var assignmentID uuid.UUID
	var remindFor time.Time
	switch d.Event.Topic {
	case events.AssignmentCreated:
		p, err := decode[events.AssignmentCreatedPayload](d)
		if err != nil {
			return err
		}
		assignmentID = p.AssignmentID
	case events.AssignmentCompleted:
		p, err := decode[events.AssignmentCompletedPayload](d)
		if err != nil {
			return err
		}
		assignmentID = p.AssignmentID
	case events.ReminderDueSoon:
		p, err := decode[events.ReminderDueSoonPayload](d)
		if err != nil {
			return err
		}
		assignmentID, remindFor = p.AssignmentID, p.DueAt
	case events.LearnerEnrolled:
		p, err := decode[events.LearnerEnrolledPayload](d)
		if err != nil {
			return err
		}
		return e.welcome(ctx, d, p)
	case events.LearnerInvited:
		p, err := decode[events.LearnerInvitedPayload](d)
		if err != nil {
			return err
		}
		return e.invite(ctx, d, p)
	case events.ReminderDaily:
		p, err := decode[events.ReminderDailyPayload](d)
		if err != nil {
			return err
		}
		return e.daily(ctx, d, p)
	default:
		return unexpectedTopic(d)
	}
	return e.assignment(ctx, d, assignmentID, remindFor)
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
		return store.On(tx).RecordEmailSend(ctx, store.RecordEmailSendParams{Subscriber: d.Subscriber, EventID: d.Event.ID,
			MessageID: m.MessageID, Recipient: m.To, Subject: m.Subject})
	})
}

// assignment sends the email about the assignment for the delivery's topic
// and subscriber; a reminder.due_soon for remindFor is not sent once the
// assignment is complete or its due date changed. Nothing is sent about an
// assignment that no longer exists: its learner was removed from its class
// (classroom.RemoveLearner deletes the class's assignments to them), and a
// reminder queued days ahead must not become a dead letter.
func (e *Email) assignment(ctx context.Context, d outbox.Delivery, assignmentID uuid.UUID, remindFor time.Time) error {
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		a, err := store.On(e.pool).AssignmentMail(ctx, int16(learning.Review), assignmentID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil // the learner left the class with it
		}
		if err != nil {
			return nil, fmt.Errorf("load assignment %s: %w", assignmentID, err)
		}
		if d.Event.Topic == events.ReminderDueSoon && (a.Completed || !a.DueAt.Equal(remindFor)) {
			return nil, nil // completion cancels the reminder; a new due date would get its own
		}
		m := assignmentMessage(d, a)
		return &m, nil
	})
}

// assignmentMessage writes the email about assignment a for the delivery's
// topic and subscriber.
func assignmentMessage(d outbox.Delivery, a store.AssignmentMailRow) mail.Message {
	due := a.DueAt.In(learning.Zone(a.Timezone)).Format("Monday 2 January 2006, 15:04 MST")
	switch {
	case d.Event.Topic == events.AssignmentCreated:
		return mail.Message{To: a.LearnerEmail, Subject: "New assignment: " + a.Deck,
			Body: fmt.Sprintf("Hello %s,\n\n%s assigned you the deck %q: %d words, due %s.\n\nYour first cards are ready to review now.\n",
				a.LearnerName, a.TeacherName, a.Deck, a.Cards, due)}
	case d.Event.Topic == events.ReminderDueSoon:
		return mail.Message{To: a.LearnerEmail, Subject: "Due tomorrow: " + a.Deck,
			Body: fmt.Sprintf("Hello %s,\n\n%q is due %s, and %d of its %d words are still to learn.\n",
				a.LearnerName, a.Deck, due, a.LeftToLearn, a.Cards)}
	case d.Subscriber == events.SubscriberCongratulation:
		return mail.Message{To: a.LearnerEmail, Subject: "Well done: you finished " + a.Deck,
			Body: fmt.Sprintf("Hello %s,\n\nYou have learned every word of %q (%d words). %s will be told.\n",
				a.LearnerName, a.Deck, a.Cards, a.TeacherName)}
	default:
		return mail.Message{To: a.TeacherEmail, Subject: fmt.Sprintf("%s finished %s", a.LearnerName, a.Deck),
			Body: fmt.Sprintf("Hello %s,\n\n%s has learned every word of %q (%d words).\n",
				a.TeacherName, a.LearnerName, a.Deck, a.Cards)}
	}
}

// welcome emails a newly enrolled learner.
func (e *Email) welcome(ctx context.Context, d outbox.Delivery, p events.LearnerEnrolledPayload) error {
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		w, err := e.classMail(ctx, p.LearnerID, p.ClassID)
		if err != nil {
			return nil, err
		}
		return &mail.Message{To: w.Email, Subject: "Welcome to " + w.Class,
			Body: fmt.Sprintf("Hello %s,\n\n%s added you to %q on Lexora. You have %d assignment(s) waiting.\n",
				w.LearnerName, w.TeacherName, w.Class, len(p.Assignments))}, nil
	})
}

// classMail is what the welcome and invitation emails say of the learner
// and the class; a permanent error when either no longer exists.
func (e *Email) classMail(ctx context.Context, learnerID, classID uuid.UUID) (store.ClassMailRow, error) {
	row, err := store.On(e.pool).ClassMail(ctx, learnerID, classID)
	if errors.Is(err, store.ErrNotFound) {
		return row, outbox.Permanent(fmt.Errorf("learner %s or class %s no longer exists", learnerID, classID))
	}
	if err != nil {
		return row, fmt.Errorf("load learner %s and class %s: %w", learnerID, classID, err)
	}
	return row, nil
}

// invite emails a learner the join code of the class a teacher invited them
// to; joining is the learner's choice.
func (e *Email) invite(ctx context.Context, d outbox.Delivery, p events.LearnerInvitedPayload) error {
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		inv, err := e.classMail(ctx, p.LearnerID, p.ClassID)
		if err != nil {
			return nil, err
		}
		join := "Ask " + inv.TeacherName + " for the class code to join."
		if inv.JoinCode != nil {
			join = "To join, sign in to Lexora and enter the class code " + *inv.JoinCode + "."
		}
		return &mail.Message{To: inv.Email, Subject: "Invitation to " + inv.Class,
			Body: fmt.Sprintf("Hello %s,\n\n%s invited you to %q on Lexora. %s\nIf you do not want to join, ignore this email: nothing is shared until you do.\n",
				inv.LearnerName, inv.TeacherName, inv.Class, join)}, nil
	})
}

// daily sends the learner's daily reminder unless it is more than
// staleReminder late (after an outage), the learner studied on its study
// day or has nothing due.
func (e *Email) daily(ctx context.Context, d outbox.Delivery, p events.ReminderDailyPayload) error {
	return e.sendOnce(ctx, d, func() (*mail.Message, error) {
		q := store.On(e.pool)
		l, err := q.DailyReminderMail(ctx, p.At, p.LearnerID)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil // the learner is gone
		}
		if err != nil {
			return nil, fmt.Errorf("load learner: %w", err)
		}
		if e.clock.Now().Sub(p.At) > staleReminder || l.Due == 0 {
			return nil, nil
		}
		// Whether the learner studied is read from the review log, written
		// in the review's own transaction, not from learner_daily_activity:
		// that projection lags while the activity subscriber is behind or
		// blocked by a dead letter, and a learner who studied would be told
		// they did not.
		start, end := learning.StudyDayBounds(p.At, learning.Zone(l.Timezone))
		studied, err := q.ReviewedBetween(ctx, p.LearnerID, &start, &end)
		if err != nil || studied {
			return nil, err
		}
		return &mail.Message{To: l.Email, Subject: fmt.Sprintf("%d words are waiting for you", l.Due),
			Body: fmt.Sprintf("Hello %s,\n\nYou have not studied today yet: %d cards are due. A few minutes keep your streak alive.\n", l.DisplayName, l.Due)}, nil
	})
}

// staleReminder is how late a daily reminder may be and still be sent.
const staleReminder = 3 * time.Hour
