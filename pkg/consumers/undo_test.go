package consumers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
)

func TestStreakOfStudyDays(t *testing.T) {
	t.Parallel()
	day := func(t *testing.T, s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		require.NoError(t, err)
		return d
	}
	for _, c := range []struct {
		name             string
		days             []string
		current, longest int32
		last             string
	}{
		{"no study day", nil, 0, 0, "0001-01-01"},
		{"one day", []string{"2026-03-01"}, 1, 1, "2026-03-01"},
		{"a gap restarts it", []string{"2026-03-01", "2026-03-02", "2026-03-03", "2026-03-05"}, 1, 3, "2026-03-05"},
		{"February 28 missed", []string{"2026-02-27", "2026-03-01", "2026-03-02"}, 2, 2, "2026-03-02"},
		{"the longest streak outlives a gap", []string{"2026-02-28", "2026-03-01", "2026-03-02", "2026-03-04", "2026-03-05"}, 2, 3, "2026-03-05"},
	} {
		t.Run(c.name, func(t *testing.T) {
			days := make([]time.Time, 0, len(c.days))
			for _, d := range c.days {
				days = append(days, day(t, d))
			}
			s := streakOf(days)
			require.Equal(t, []any{c.current, c.longest, c.last}, []any{s.Current, s.Longest, s.LastDay.Format(time.DateOnly)}, "%v", c.days)
		})
	}
}

// An undo delivered to the activity subscriber takes its review's study
// day back, recomputes the streak and revokes exactly the achievements no
// longer true; each delivery is handled twice.
func TestUndoRevokesOnlyAchievementsNoLongerTrue(t *testing.T) {
	ctx, b := setup(t)
	learner := b.learner.ID
	// Seven study days in a row, the achievements they earned (words_100
	// with review 42), and one review in the log.
	_, err := b.pool.Exec(ctx, `
		WITH d AS (INSERT INTO learner_daily_activity (learner_id, day, reviews)
		           SELECT $1, day, CASE WHEN day = '2026-03-07' THEN 2 ELSE 1 END
		           FROM generate_series('2026-03-01'::date, '2026-03-07', '1 day') day),
		     s AS (INSERT INTO learner_streaks (learner_id, current, longest, last_day) VALUES ($1, 7, 7, '2026-03-07')),
		     a AS (INSERT INTO learner_achievements (learner_id, code, earned_at, event_id, review_id)
		           VALUES ($1, 'first_review', now(), gen_random_uuid(), NULL), ($1, 'streak_7', now(), gen_random_uuid(), NULL),
		                  ($1, 'words_100', now(), gen_random_uuid(), 42)),
		     c AS (INSERT INTO cards (learner_id, lexeme_id, due) SELECT $1, id, now() FROM lexemes LIMIT 1 RETURNING id)
		INSERT INTO review_log (card_id, learner_id, rating, state_before, due_before, state_after, due_after, stability,
		    difficulty, elapsed_days, scheduled_days, reviewed_at)
		SELECT c.id, $1, 3, 0, now(), 1, now(), 1, 5, 0, 0, now() FROM c`, learner)
	require.NoError(t, err)
	state := func() string {
		var s string
		require.NoError(t, b.pool.QueryRow(ctx, `SELECT concat_ws(' | ',
			(SELECT string_agg(to_char(day, 'DD') || '=' || reviews, ',' ORDER BY day) FROM learner_daily_activity WHERE learner_id = $1),
			(SELECT concat_ws(',', current, longest, last_day) FROM learner_streaks WHERE learner_id = $1),
			(SELECT string_agg(code, ',' ORDER BY code) FROM learner_achievements WHERE learner_id = $1))`, learner).Scan(&s))
		return s
	}
	h := b.handlers[events.SubscriberActivity]
	undo := func(review int64, day string) {
		t.Helper()
		d := delivery(t, events.ReviewUndone, events.SubscriberActivity, events.ReviewUndonePayload{Review: events.Review{ReviewID: review, LearnerID: learner, StateBefore: int(learning.Review), StateAfter: int(learning.Relearning), StudyDay: day}})
		require.NoError(t, h.Handle(ctx, d))
		require.NoError(t, h.Handle(ctx, d), "a redelivery changes nothing")
	}

	undo(41, "2026-03-07")
	require.Equal(t, "01=1,02=1,03=1,04=1,05=1,06=1,07=1 | 7,7,2026-03-07 | first_review,streak_7,words_100", state(),
		"a day with a review left stays a study day")
	undo(40, "2026-03-07")
	require.Equal(t, "01=1,02=1,03=1,04=1,05=1,06=1 | 6,6,2026-03-06 | first_review,words_100", state(),
		"the seven-day streak is gone; words_100 was earned by another review and stays")
	undo(42, "2026-03-03")
	require.Equal(t, "01=1,02=1,04=1,05=1,06=1 | 3,3,2026-03-06 | first_review", state(),
		"words_100 was earned by this review, and fewer than 100 words are learned")
	_, err = b.pool.Exec(ctx, `INSERT INTO review_undo (review_id, card_id, learner_id, undone_at)
		SELECT id, card_id, learner_id, now() FROM review_log WHERE learner_id = $1`, learner)
	require.NoError(t, err)
	undo(43, "2026-03-01")
	require.Equal(t, "02=1,04=1,05=1,06=1 | 3,3,2026-03-06", state(), "no review left: first_review is revoked")
	for _, day := range []string{"2026-03-02", "2026-03-04", "2026-03-05", "2026-03-06"} {
		undo(44, day)
	}
	require.Empty(t, state(), "no study day left: no streak")

	err = h.Handle(ctx, delivery(t, events.ReviewUndone, events.SubscriberActivity, events.ReviewUndonePayload{Review: events.Review{LearnerID: learner, StudyDay: "03/07/2026"}}))
	require.True(t, outbox.IsPermanent(err), "a malformed study day never parses: %v", err)
}
