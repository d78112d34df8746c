-- The daily reminder chain gets its own subscriber (reminder-chain), so that
-- the chain goes on when the reminder's email fails and the email goes out
-- when the chain fails. Deliveries are created when an event is enqueued,
-- so the links already waiting would reach only the email subscriber, which
-- no longer schedules the next link, and every chain would end. Each
-- chain's current link gets its reminder-chain delivery here, available
-- when the link is due.

-- +goose Up
INSERT INTO outbox_deliveries (event_id, subscriber, ordering_key, ordered, available_at)
SELECT e.id, 'reminder-chain', e.ordering_key, false, greatest(coalesce(e.not_before, now()), now())
FROM learner_reminders r JOIN outbox_events e ON e.event_id = r.event_id
ON CONFLICT (event_id, subscriber) DO NOTHING;

-- +goose Down
DELETE FROM outbox_deliveries WHERE subscriber = 'reminder-chain';
