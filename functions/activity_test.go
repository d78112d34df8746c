package functions

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
)

// Streaks follow the learner's own study days (local time, rolling over at
// 04:00), whichever side of UTC the learner lives on.
func TestStreakRollsOverInTheLearnersTimeZone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		zone    string
		reviews []string // UTC instants
		streaks []int    // streak after each review
	}{
		{"Pacific/Honolulu", // UTC-10
			[]string{"2026-03-02T09:30:00Z", "2026-03-02T13:30:00Z", "2026-03-02T14:30:00Z", "2026-03-04T15:00:00Z"},
			//         23:30 Mar 1            03:30 Mar 2 (still Mar 1)  04:30 Mar 2            05:00 Mar 4 (gap)
			[]int{1, 1, 2, 1}},
		{"Pacific/Tongatapu", // UTC+13
			[]string{"2026-03-02T10:30:00Z", "2026-03-02T14:30:00Z", "2026-03-02T15:30:00Z", "2026-03-03T15:10:00Z"},
			//         23:30 Mar 2            03:30 Mar 3 (still Mar 2)  04:30 Mar 3            04:10 Mar 4
			[]int{1, 1, 2, 3}},
	} {
		t.Run(tc.zone, func(t *testing.T) {
			ctx, f := setup(t)
			_, err := f.pool.Exec(ctx, "UPDATE users SET timezone = $1 WHERE id = $2", tc.zone, f.learner)
			require.NoError(t, err)
			f.clock.Set(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
			f.assign(t)
			card := f.cards(t)[0]
			d := f.drainer(t, events.SubscriberActivity, events.SubscriberFeed, events.SubscriberProgress)

			for i, at := range tc.reviews {
				now, err := time.Parse(time.RFC3339, at)
				require.NoError(t, err)
				f.clock.Set(now)
				f.review(t, card, 3)
				_, err = d.Run(ctx)
				require.NoError(t, err)
				var current int
				require.NoError(t, f.pool.QueryRow(ctx, "SELECT current FROM learner_streaks WHERE learner_id = $1", f.learner).Scan(&current))
				require.Equal(t, tc.streaks[i], current, "after review %d at %s", i+1, at)
			}
			// One streak.extended per new study day, one first-review achievement,
			// and a feed item for each.
			extended := 0
			for i, s := range tc.streaks {
				if i == 0 || s != tc.streaks[i-1] {
					extended++
				}
			}
			require.Equal(t, extended, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.StreakExtended))
			require.Equal(t, 1, f.count(t, "SELECT count(*) FROM learner_achievements WHERE code = $1", events.AchievementFirstReview))
			require.Equal(t, extended+1, f.count(t, "SELECT count(*) FROM learner_feed WHERE learner_id = $1", f.learner))

			code, body := f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress", f.learner, "")
			require.Equal(t, http.StatusOK, code, body)
			require.EqualValues(t, tc.streaks[len(tc.streaks)-1], body["streak"].(map[string]any)["current"])
			require.Len(t, body["achievements"], 1)
			require.Len(t, body["feed"], extended+1)
			require.EqualValues(t, len(tc.reviews), body["assignments"].([]any)[0].(map[string]any)["reviews"])
			code, _ = f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress?learner_id="+f.learner.String(), f.otherTeacher, "")
			require.Equal(t, http.StatusNotFound, code)

			f.clock.Set(f.clock.Now().Add(72 * time.Hour)) // two study days missed
			code, body = f.call(t, (*Service).GetProgress, http.MethodGet, "/GetProgress", f.learner, "")
			require.Equal(t, http.StatusOK, code)
			require.EqualValues(t, 0, body["streak"].(map[string]any)["current"], "a missed day ends the streak")
			require.EqualValues(t, slices.Max(tc.streaks), body["streak"].(map[string]any)["longest"])
		})
	}
}

// A card forgotten learning.LeechLapses times is suspended at once, announced
// once in the feed, refuses further reviews, leaves the schedule, and does not
// hold its assignment open.
func TestLeechIsSuspendedAfterEightLapses(t *testing.T) {
	ctx, f := setup(t)
	assignment := f.assign(t)
	cards := f.cards(t)
	card := cards[0]
	d := f.drainer(t, events.SubscriberFeed)

	f.review(t, card, 4) // New -> Review
	for lapse := 1; lapse <= learning.LeechLapses; lapse++ {
		f.clock.Set(f.clock.Now().Add(time.Hour))
		body := f.review(t, card, 1) // a lapse
		suspended := f.count(t, "SELECT count(*) FROM cards WHERE id = $1 AND suspended", card)
		require.Equal(t, lapse == learning.LeechLapses, suspended == 1, "after lapse %d", lapse)
		require.Equal(t, lapse == learning.LeechLapses, body["card"].(map[string]any)["suspended"])
		if lapse < learning.LeechLapses {
			f.clock.Set(f.clock.Now().Add(time.Hour))
			f.review(t, card, 4) // relearned
		}
	}
	before := f.snapshot(t)
	code, _ := f.call(t, (*Service).SubmitReview, http.MethodPost, "/SubmitReview", f.learner,
		`{"card_id":"`+card.String()+`","rating":3}`)
	require.Equal(t, http.StatusConflict, code, "a suspended card takes no review")
	require.Equal(t, before, f.snapshot(t))
	_, err := d.Run(ctx)
	require.NoError(t, err)
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM outbox_events WHERE topic = $1", events.CardLeeched))
	require.Equal(t, 1, f.count(t, "SELECT count(*) FROM learner_feed WHERE kind = 'leech'"))

	// The other two cards learned: the leech does not hold the assignment open.
	f.review(t, cards[1], 4)
	done := f.review(t, cards[2], 4)
	require.Equal(t, []any{assignment.String()}, done["completed_assignments"])

	f.clock.Set(f.clock.Now().Add(400 * 24 * time.Hour)) // every card is due by now
	code, body := f.call(t, (*Service).GetSchedule, http.MethodGet, "/GetSchedule", f.learner, "")
	require.Equal(t, http.StatusOK, code)
	for _, c := range body["due"].([]any) {
		require.NotEqual(t, card.String(), c.(map[string]any)["card_id"], "a suspended card is not scheduled")
	}
	require.EqualValues(t, 2, body["due_count"])
}
