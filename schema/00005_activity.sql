-- Learner activity: study days, streaks, achievements and the learner's feed,
-- all projections written by consumers (pkg/consumers).

-- +goose Up
-- Reviews per study day. A study day is the learner's local date, starting at
-- the rollover hour (04:00, as Anki does), so a session past midnight counts
-- for the evening it began in.
CREATE TABLE learner_daily_activity (
    learner_id uuid NOT NULL REFERENCES users (id),
    day        date NOT NULL,
    reviews    integer NOT NULL,
    PRIMARY KEY (learner_id, day)
);

CREATE TABLE learner_streaks (
    learner_id uuid PRIMARY KEY REFERENCES users (id),
    current    integer NOT NULL,
    longest    integer NOT NULL,
    last_day   date NOT NULL
);

CREATE TABLE learner_achievements (
    learner_id uuid NOT NULL REFERENCES users (id),
    code       text NOT NULL,
    earned_at  timestamptz NOT NULL,
    event_id   uuid NOT NULL,
    PRIMARY KEY (learner_id, code)
);

-- What the learner sees happen: streaks extended, achievements earned.
CREATE TABLE learner_feed (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    learner_id uuid NOT NULL REFERENCES users (id),
    event_id   uuid NOT NULL UNIQUE,
    kind       text NOT NULL,
    message    text NOT NULL,
    at         timestamptz NOT NULL
);
CREATE INDEX learner_feed_learner ON learner_feed (learner_id, id DESC);

-- +goose Down
DROP TABLE learner_feed;
DROP TABLE learner_achievements;
DROP TABLE learner_streaks;
DROP TABLE learner_daily_activity;
