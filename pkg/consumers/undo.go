package consumers

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/store"
)

// What a review.undone takes back (docs/architecture.md, "Undoing a
// review"): the progress subscriber's counts of the review, and the
// activity subscriber's study day, streak and achievements.

// stateChange is what a review from state before to state after adds to an
// assignment's progress: seen is 1 when it took the card out of New;
// learned is +1 when it brought the card into Review, -1 when it took the
// card out of it.
func stateChange(before, after learning.State) (seen, learned int32) {
	if before == learning.New {
		seen = 1
	}
	switch {
	case after == learning.Review && before != learning.Review:
		learned = 1
	case before == learning.Review && after != learning.Review:
		learned = -1
	}
	return seen, learned
}

// studyDay parses a payload's study day; a malformed one is a permanent
// error.
func studyDay(s string) (time.Time, error) {
	day, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, outbox.Permanent(fmt.Errorf("study day %q: %w", s, err))
	}
	return day, nil
}

// takeBack applies a review.undone to the progress projection: each
// assignment that counted the review loses it (and its study day's count),
// and every assignment of the lexeme gives back the card's change of state.
// The increments commute with the review's own, so an undo delivered before
// its review leaves the right totals once both are applied.
func (p *Progress) takeBack(ctx context.Context, d outbox.Delivery) error {
	e, err := decode[events.ReviewUndonePayload](d)
	if err != nil {
		return err
	}
	day, err := studyDay(e.StudyDay)
	if err != nil {
		return err
	}
	if len(e.AssignmentIDs)+len(e.LaterAssignmentIDs) == 0 {
		return nil
	}
	seen, learned := stateChange(learning.State(e.StateBefore), learning.State(e.StateAfter))
	return outbox.HandleOnce(ctx, p.pool, d, func(tx pgx.Tx) error {
		q := store.On(tx)
		for _, a := range []struct {
			ids     []uuid.UUID
			reviews int32
		}{{e.AssignmentIDs, -1}, {e.LaterAssignmentIDs, 0}} {
			if len(a.ids) == 0 {
				continue
			}
			if err := q.AddToProgress(ctx, store.AddToProgressParams{AssignmentIds: a.ids, LearnerID: e.LearnerID,
				Seen: -seen, Learned: -learned, Reviews: a.reviews, Day: day, Now: p.clock.NowOrNil()}); err != nil {
				return fmt.Errorf("take back review %d: %w", e.ReviewID, err)
			}
		}
		return nil
	})
}

// takeBack applies a review.undone to the learner's activity: the review's
// study day loses it (a day left with none is no longer a study day), the
// streak is recomputed from the study days left, and the achievements that
// are no longer true are revoked (see revoked).
func (a *Activity) takeBack(ctx context.Context, tx pgx.Tx, p events.ReviewUndonePayload, day time.Time) error {
	q := store.On(tx)
	if err := q.UncountStudyDay(ctx, p.LearnerID, day); err != nil {
		return fmt.Errorf("uncount study day: %w", err)
	}
	days, err := q.StudyDays(ctx, p.LearnerID)
	if err != nil {
		return fmt.Errorf("load study days: %w", err)
	}
	s := streakOf(days)
	if len(days) == 0 {
		err = q.DeleteStreak(ctx, p.LearnerID)
	} else {
		err = q.SaveStreak(ctx, p.LearnerID, s.Current, s.Longest, s.LastDay)
	}
	if err != nil {
		return fmt.Errorf("save streak: %w", err)
	}
	return a.revoke(ctx, q, p, s)
}

// revoke removes the learner's achievements that the undo made untrue:
// first_review when no review is left that is not undone; streak_7 when the
// longest streak s is now under streakAchievementDays; words_100 when this
// review earned it and fewer than wordsForAchievement cards are in Review.
// An assignment the review completed stays completed, and so does
// assignment_finished_early.
func (a *Activity) revoke(ctx context.Context, q *store.Queries, p events.ReviewUndonePayload, s streak) error {
	left, err := q.ReviewedBetween(ctx, p.LearnerID, nil, nil)
	if err != nil {
		return fmt.Errorf("count reviews left: %w", err)
	}
	learned, err := q.CountCardsInState(ctx, p.LearnerID, learning.Review)
	if err != nil {
		return fmt.Errorf("count learned words: %w", err)
	}
	for _, r := range []struct {
		code   string
		untrue bool
		review *int64
	}{
		{events.AchievementFirstReview, !left, nil},
		{events.AchievementStreak7, s.Longest < streakAchievementDays, nil},
		{events.AchievementWords100, learned < wordsForAchievement, &p.ReviewID},
	} {
		if !r.untrue {
			continue
		}
		if err := q.RevokeAchievement(ctx, p.LearnerID, r.code, r.review); err != nil {
			return fmt.Errorf("revoke achievement %s: %w", r.code, err)
		}
	}
	return nil
}

// streak is a learner's streak as learner_streaks keeps it.
type streak struct {
	// Current is the number of consecutive study days ending at LastDay;
	// Longest the longest such run.
	Current, Longest int32
	LastDay          time.Time
}

// streakOf is the streak of the study days days (dates, ascending, each
// once): the zero streak when there are none.
func streakOf(days []time.Time) streak {
	var s streak
	for i, day := range days {
		if i > 0 && day.Equal(days[i-1].AddDate(0, 0, 1)) {
			s.Current++
		} else {
			s.Current = 1
		}
		s.Longest, s.LastDay = max(s.Longest, s.Current), day
	}
	return s
}
