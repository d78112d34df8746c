-- What each feed item concerns, so that a teacher of a learner shared with
-- other teachers sees only the items of their own relation to the learner
-- (functions.GetProgress): the assignment an achievement was earned with,
-- the lexeme of a leech (seen by every teacher who assigned a deck holding
-- it), or the learner as a whole (streaks, the other achievements).

-- +goose Up
ALTER TABLE learner_feed
    ADD COLUMN assignment_id uuid,
    ADD COLUMN lexeme_id     uuid,
    ADD COLUMN learner_wide  boolean NOT NULL DEFAULT false;

-- Existing items: a leech's lexeme from its event, where the outbox still
-- holds it; streaks and achievements not tied to an assignment are
-- learner-wide. An item whose relation cannot be recovered (a leech whose
-- event is gone, an "Assignment finished early" before this migration)
-- stays hidden from teachers; the learner still sees it.
UPDATE learner_feed f SET lexeme_id = c.lexeme_id
FROM outbox_events e JOIN cards c ON c.id = (e.payload ->> 'card_id')::uuid
WHERE f.kind = 'leech' AND e.event_id = f.event_id;
UPDATE learner_feed SET learner_wide = true
WHERE kind = 'streak' OR (kind = 'achievement' AND message <> 'Achievement: Assignment finished early');

-- +goose Down
ALTER TABLE learner_feed DROP COLUMN learner_wide, DROP COLUMN lexeme_id, DROP COLUMN assignment_id;
