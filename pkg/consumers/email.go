package consumers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/mail"
	"github.com/lexora-app/lexora/pkg/outbox"
)

// Email sends the learner an email on assignment.created and the teacher one
// on assignment.completed.
//
// Each email's Message-ID is derived from the event id and the subscriber.
// The send happens inside the consumer's transaction, after the dedup record
// and before the email_sends row; the transaction commits only once the SMTP
// server has accepted the message. If the process dies between the SMTP
// accept and the commit, the delivery is retried and the same message, with
// the same Message-ID, is sent again: this errs towards a duplicate, which
// mail clients that thread by Message-ID (Gmail, Apple Mail, Thunderbird)
// show once, never towards a lost email. (The mailpit sink keeps both.)
type Email struct {
	pool *pgxpool.Pool
	mail mail.Sender
}

// MessageID is the Message-ID (without angle brackets) of the email that
// subscriber sends for event.
func MessageID(event outbox.Event, subscriber string) string {
	return fmt.Sprintf("%s.%s@lexora.app", event.ID, subscriber)
}

const assignmentMailSQL = `
SELECT l.email, l.display_name, l.timezone, t.email, t.display_name, d.title, a.due_at,
       (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id)
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
	default:
		return unexpectedTopic(d)
	}
	return outbox.HandleOnce(ctx, e.pool, d, func(tx pgx.Tx) error {
		var learnerEmail, learnerName, tz, teacherEmail, teacherName, deck string
		var due time.Time
		var cards int
		err := tx.QueryRow(ctx, assignmentMailSQL, assignmentID).Scan(&learnerEmail, &learnerName, &tz, &teacherEmail, &teacherName, &deck, &due, &cards)
		if errors.Is(err, pgx.ErrNoRows) {
			return outbox.Permanent(fmt.Errorf("assignment %s no longer exists", assignmentID))
		}
		if err != nil {
			return fmt.Errorf("load assignment %s: %w", assignmentID, err)
		}
		loc, err := time.LoadLocation(tz)
		if err != nil {
			loc = time.UTC
		}
		m := mail.Message{MessageID: MessageID(d.Event, d.Subscriber)}
		if d.Event.Topic == events.AssignmentCreated {
			m.To = learnerEmail
			m.Subject = fmt.Sprintf("New assignment: %s", deck)
			m.Body = fmt.Sprintf("Hello %s,\n\n%s assigned you the deck %q: %d words, due %s.\n\nYour first cards are ready to review now.\n",
				learnerName, teacherName, deck, cards, due.In(loc).Format("Monday 2 January 2006, 15:04 MST"))
		} else {
			m.To = teacherEmail
			m.Subject = fmt.Sprintf("%s finished %s", learnerName, deck)
			m.Body = fmt.Sprintf("Hello %s,\n\n%s has learned every word of %q (%d words).\n",
				teacherName, learnerName, deck, cards)
		}
		if err := e.mail.Send(ctx, m); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, recordSendSQL, d.Subscriber, d.Event.ID, m.MessageID, m.To, m.Subject)
		return err
	})
}
