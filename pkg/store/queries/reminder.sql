-- Each learner's daily reminder chain: the learner_reminders row names the
-- chain's current link (a reminder.daily event). The learner's zone is
-- user.sql's Timezone.

-- name: StartReminderChain :execrows
-- Names the chain's first link; 0 rows when the learner already has a chain.
INSERT INTO learner_reminders (learner_id, event_id, next_at) VALUES (@learner_id, @event_id, @next_at)
ON CONFLICT (learner_id) DO NOTHING;

-- name: ContinueReminderChain :execrows
-- Moves the chain from the link current to the link next; 0 rows when
-- current is not the chain's current link.
UPDATE learner_reminders SET event_id = @next_event_id, next_at = @next_at
WHERE learner_id = @learner_id AND event_id = @current_event_id;
