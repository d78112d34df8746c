-- A deck assigned to a class is the class's own record, apart from the
-- assignments it gave its members: a teacher sets up a class's decks before
-- anyone joins, and a learner who joins later gets each of the class's decks
-- that is not yet due (classroom.Enroll), with its due date. Before, an
-- assignment to a class without members was refused (it would have given
-- the deck to nobody), and a newcomer's decks were read back from the
-- members' assignments.
--
-- One row per class and deck: assigning the deck to the class again while
-- it is not yet due changes nothing; once due, a new assignment renews it
-- (new due date). An assignment to one learner of the class
-- (CreateAssignment's learner_id) is that learner's and has no row here.
--
-- Backfill: each (class, deck) of the existing assignments, with the latest
-- due date among them and the first creation, which is what a newcomer got
-- before (ActiveDecks read max(due_at) of the class's assignments).

-- +goose Up
CREATE TABLE class_decks (
    class_id    uuid NOT NULL REFERENCES classes (id),
    deck_id     uuid NOT NULL REFERENCES decks (id),
    due_at      timestamptz NOT NULL,
    assigned_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (class_id, deck_id)
);

INSERT INTO class_decks (class_id, deck_id, due_at, assigned_at)
SELECT class_id, deck_id, max(due_at), min(created_at) FROM assignments GROUP BY class_id, deck_id;

-- +goose Down
DROP TABLE class_decks;
