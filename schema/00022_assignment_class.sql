-- An assignment belongs to the class it was made through, so that a class's
-- progress grid, its hardest words and the decks a newcomer to the class
-- gets are that class's alone: before, they were computed from everything
-- the teacher had assigned the class's members through any class.
--
-- Backfill: an existing assignment goes to the earliest class (created_at,
-- then id) of its teacher that its learner belongs to, the class the
-- learner most likely got it through (every assignment was made to a
-- member of one of the teacher's classes, and members are never removed);
-- failing that (rows edited by hand), the teacher's earliest class. A row
-- still without a class makes SET NOT NULL fail: it needs a person.
--
-- Uniqueness is per class: the same deck assigned by the same teacher
-- through two classes is two assignments (two due dates, two cells, one
-- set of cards, since cards are the learner's per lexeme). The unique key
-- leads with (class_id, learner_id), which is the progress grid's join
-- (class_members to assignments), so it is also the grid's index.
-- (class_id, teacher_id) references the class with its teacher, so an
-- assignment's teacher is always its class's.

-- +goose Up
ALTER TABLE classes ADD CONSTRAINT classes_id_teacher_id_key UNIQUE (id, teacher_id);

ALTER TABLE assignments ADD COLUMN class_id uuid;

UPDATE assignments a SET class_id = coalesce(
    (SELECT c.id FROM classes c JOIN class_members m ON m.class_id = c.id
     WHERE c.teacher_id = a.teacher_id AND m.learner_id = a.learner_id
     ORDER BY c.created_at, c.id LIMIT 1),
    (SELECT c.id FROM classes c WHERE c.teacher_id = a.teacher_id ORDER BY c.created_at, c.id LIMIT 1));

ALTER TABLE assignments ALTER COLUMN class_id SET NOT NULL,
    ADD CONSTRAINT assignments_class_id_teacher_id_fkey
        FOREIGN KEY (class_id, teacher_id) REFERENCES classes (id, teacher_id),
    DROP CONSTRAINT assignments_deck_id_learner_id_teacher_id_key,
    ADD CONSTRAINT assignments_class_id_learner_id_deck_id_key UNIQUE (class_id, learner_id, deck_id);

-- +goose Down
-- The teacher's second assignment of a deck to a learner (through another
-- class) has no place in the old key: the later one is deleted, with its
-- progress rows (ON DELETE CASCADE).
DELETE FROM assignments a USING assignments b
WHERE a.deck_id = b.deck_id AND a.learner_id = b.learner_id AND a.teacher_id = b.teacher_id
  AND (a.created_at, a.id) > (b.created_at, b.id);
ALTER TABLE assignments DROP CONSTRAINT assignments_class_id_learner_id_deck_id_key,
    ADD CONSTRAINT assignments_deck_id_learner_id_teacher_id_key UNIQUE (deck_id, learner_id, teacher_id),
    DROP CONSTRAINT assignments_class_id_teacher_id_fkey,
    DROP COLUMN class_id;
ALTER TABLE classes DROP CONSTRAINT classes_id_teacher_id_key;
