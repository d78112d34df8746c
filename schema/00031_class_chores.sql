-- A teacher's daily chores on a class (functions RemoveLearner,
-- UpdateClass, NewJoinCode, SetLearnerName) and the health of their
-- webhook endpoints (ListWebhookEndpoints).
--
-- classes.archived_at: an archived class keeps its members, their
-- assignments and its progress grid, and can be renamed, have learners
-- removed and be taken out of the archive; it takes no new learner (its
-- join code answers as an unknown one, an enrolment by email is a 409) and
-- no new deck (CreateAssignment is a 409), so it cannot grow by accident.
--
-- class_members.display_name: the name the class's teacher gives the
-- learner, shown on the class's screens instead of the account's
-- display_name (which a learner added without a name has as the email's
-- local part); null until the teacher sets one. It is the class's, not the
-- account's: another teacher of the same learner keeps their own.
--
-- webhook_attempts_accepted and _rejected: an endpoint's health
-- (ListWebhookEndpoints, store.EndpointHealth) reads its latest accepted and
-- latest rejected attempt, and counts the rejections since that acceptance
-- (at most webhooks.FailuresCounted), each an index range scan by endpoint,
-- newest first; the primary key (endpoint_id, event_id) gives no order by
-- time, and one index on (endpoint_id, at) would scan every rejection of an
-- endpoint that never accepted to find it has no acceptance.

-- +goose Up
ALTER TABLE classes ADD COLUMN archived_at timestamptz;
ALTER TABLE class_members ADD COLUMN display_name text
    CHECK (display_name IS NULL OR length(display_name) BETWEEN 1 AND 200);
CREATE INDEX webhook_attempts_accepted ON webhook_attempts (endpoint_id, at DESC) WHERE accepted;
CREATE INDEX webhook_attempts_rejected ON webhook_attempts (endpoint_id, at DESC) WHERE NOT accepted;

-- +goose Down
DROP INDEX webhook_attempts_rejected;
DROP INDEX webhook_attempts_accepted;
ALTER TABLE class_members DROP COLUMN display_name;
ALTER TABLE classes DROP COLUMN archived_at;
