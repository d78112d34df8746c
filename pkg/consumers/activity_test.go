package consumers

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

func TestSevenDayStreakAndHundredWordsAreAchievements(t *testing.T) {
	ctx, b := setup(t)
	h := b.handlers[events.SubscriberActivity]
	review := func(day string, before, after int) {
		t.Helper()
		require.NoError(t, h.Handle(ctx, delivery(t, events.ReviewSubmitted, events.SubscriberActivity, events.ReviewSubmittedPayload{Review: events.Review{LearnerID: b.learner.ID, Rating: 3, StateBefore: before, StateAfter: after, ReviewedAt: time.Now(), StudyDay: day}})))
	}
	earned := func() []string {
		return pgtest.Column[string](t, b.pool, "SELECT code FROM learner_achievements WHERE learner_id = $1 ORDER BY code", b.learner.ID)
	}
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range 6 { // six days in a row
		review(start.AddDate(0, 0, i).Format(time.DateOnly), 1, 1)
	}
	require.Equal(t, []string{events.AchievementFirstReview}, earned())
	review(start.AddDate(0, 0, 6).Format(time.DateOnly), 1, 1) // the seventh
	require.Equal(t, []string{events.AchievementFirstReview, events.AchievementStreak7}, earned())

	// 99 learned cards, then the hundredth reaches Review.
	_, err := b.pool.Exec(ctx, `INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		SELECT 'w' || g, 'noun', 'test word', 'test' FROM generate_series(1, 100) g`)
	require.NoError(t, err)
	_, err = b.pool.Exec(ctx, `INSERT INTO cards (learner_id, lexeme_id, due, state)
		SELECT $1, id, now(), 2 FROM lexemes WHERE source = 'test' ORDER BY lemma LIMIT 99`, b.learner.ID)
	require.NoError(t, err)
	review(start.AddDate(0, 0, 7).Format(time.DateOnly), 1, 2)
	require.NotContains(t, earned(), events.AchievementWords100, "99 words")
	_, err = b.pool.Exec(ctx, `INSERT INTO cards (learner_id, lexeme_id, due, state)
		SELECT $1, id, now(), 2 FROM lexemes WHERE source = 'test' AND lemma = 'w99'`, b.learner.ID)
	require.NoError(t, err)
	review(start.AddDate(0, 0, 7).Format(time.DateOnly), 1, 2)
	require.Contains(t, earned(), events.AchievementWords100)

	var streak int
	require.NoError(t, b.pool.QueryRow(ctx, "SELECT current FROM learner_streaks WHERE learner_id = $1", b.learner.ID).Scan(&streak))
	require.Equal(t, 8, streak)
	require.Equal(t, 3, countRows(t, b, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.AchievementEarned),
		"one achievement.earned per achievement")
}
