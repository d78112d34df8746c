-- schedule_cards(learner, assignment, teacher) is the scope of a learner's
-- schedule, in one place for the two reads of it (store.DueCards and
-- store.Forecast): the learner's cards that are not suspended; with
-- assignment, only those of that assignment's deck; with teacher, only those
-- of the decks that teacher assigned to the learner (a teacher does not see
-- the cards of another teacher's decks of a learner they share). Both set:
-- the assignment's deck if that teacher made it, else none (the schedule
-- checks first that it did: store.IsAssignmentVisible).
--
-- A LANGUAGE sql STABLE function of one SELECT, not STRICT: the planner
-- inlines it into the calling query (inline_set_returning_function), so
-- the caller's conditions (due <= now, ORDER BY due LIMIT n) plan together
-- with it as before, an Index Scan on cards_learner_due (EXPLAIN of
-- DueCards on the seeded database). The body is parsed at each call, so
-- c.* follows the cards table's columns.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION schedule_cards(learner uuid, assignment uuid, teacher uuid) RETURNS SETOF cards
LANGUAGE sql STABLE AS $$
    SELECT c.* FROM cards c
    WHERE c.learner_id = learner AND NOT c.suspended
      AND (assignment IS NULL AND teacher IS NULL OR c.lexeme_id IN (
          SELECT di.lexeme_id FROM assignments a JOIN deck_items di ON di.deck_id = a.deck_id
          WHERE a.learner_id = learner AND (assignment IS NULL OR a.id = assignment)
            AND (teacher IS NULL OR a.teacher_id = teacher)))
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION schedule_cards(uuid, uuid, uuid);
