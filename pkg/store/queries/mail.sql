-- What the emails say, and the record of each email sent (email_sends).

-- name: AssignmentMail :one
-- The assignment's learner, teacher and deck; cards is the deck's size,
-- left the deck's lexemes whose card is missing or not in learned_state
-- (learning.Review).
SELECT l.email AS learner_email, l.display_name AS learner_name, l.timezone,
       t.email AS teacher_email, t.display_name AS teacher_name, d.title AS deck, a.due_at,
       (SELECT count(*) FROM deck_items di WHERE di.deck_id = d.id) AS cards,
       (a.completed_at IS NOT NULL)::boolean AS completed,
       (SELECT count(*) FROM deck_items di LEFT JOIN cards c ON c.lexeme_id = di.lexeme_id AND c.learner_id = a.learner_id
        WHERE di.deck_id = d.id AND c.state IS DISTINCT FROM @learned_state::smallint) AS left_to_learn
FROM assignments a
JOIN users l ON l.id = a.learner_id
JOIN users t ON t.id = a.teacher_id
JOIN decks d ON d.id = a.deck_id
WHERE a.id = @assignment_id;

-- name: ClassMail :one
-- The learner, a class (the one they joined, or are invited to), its
-- teacher and join code, for the welcome and invitation emails.
SELECT l.email, l.display_name AS learner_name, t.display_name AS teacher_name, c.name AS class, c.join_code
FROM users l, classes c JOIN users t ON t.id = c.teacher_id
WHERE l.id = @learner_id AND c.id = @class_id;

-- name: DailyReminderMail :one
-- The learner and how many of their cards not suspended are due at at.
SELECT u.email, u.display_name, u.timezone,
       (SELECT count(*) FROM cards c WHERE c.learner_id = u.id AND c.due <= @at AND NOT c.suspended) AS due
FROM users u WHERE u.id = @learner_id;

-- name: RecordEmailSend :exec
INSERT INTO email_sends (subscriber, event_id, message_id, recipient, subject)
VALUES (@subscriber, @event_id, @message_id, @recipient, @subject);
