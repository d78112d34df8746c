package consumers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
)

// Activity maintains study days, streaks and achievements from
// review.submitted and assignment.completed. It is an ordered subscriber
// (keyed by learner), so a learner's study days arrive in commit order.
// Consequences that are events themselves (streak.extended,
// achievement.earned) are enqueued in the consumer's own transaction, through
// the same outbox, so they exist exactly when the projection changed.
type Activity struct {
	pool   *pgxpool.Pool
	outbox *outbox.Outbox
}

// WordsForAchievement is how many cards in the Review state earn
// AchievementWords100.
const WordsForAchievement = 100

// StreakAchievementDays is the streak that earns AchievementStreak7.
const StreakAchievementDays = 7

const countStudyDaySQL = `
INSERT INTO learner_daily_activity (learner_id, day, reviews) VALUES ($1, $2, 1)
ON CONFLICT (learner_id, day) DO UPDATE SET reviews = learner_daily_activity.reviews + 1
RETURNING reviews`

const earnSQL = `
INSERT INTO learner_achievements (learner_id, code, earned_at, event_id) VALUES ($1, $2, $3, $4)
ON CONFLICT (learner_id, code) DO NOTHING
RETURNING code`

// Handle applies one event. It returns a permanent error for an unexpected
// topic, an undecodable payload or a malformed study day.
func (a *Activity) Handle(ctx context.Context, d outbox.Delivery) error {
	switch d.Event.Topic {
	case events.ReviewSubmitted:
		var p events.ReviewSubmittedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		day, err := time.Parse(time.DateOnly, p.StudyDay)
		if err != nil {
			return outbox.Permanent(fmt.Errorf("study day %q: %w", p.StudyDay, err))
		}
		return outbox.HandleOnce(ctx, a.pool, d, func(tx pgx.Tx) error {
			return a.review(ctx, tx, d, p, day)
		})
	case events.AssignmentCompleted:
		var p events.AssignmentCompletedPayload
		if err := decode(d, &p); err != nil {
			return err
		}
		if !p.CompletedAt.Before(p.DueAt) {
			return nil
		}
		return outbox.HandleOnce(ctx, a.pool, d, func(tx pgx.Tx) error {
			return a.earn(ctx, tx, d, p.LearnerID, &p.AssignmentID, p.CompletedAt, events.AchievementFinishedEarly)
		})
	default:
		return unexpectedTopic(d)
	}
}

func (a *Activity) review(ctx context.Context, tx pgx.Tx, d outbox.Delivery, p events.ReviewSubmittedPayload, day time.Time) error {
	var reviewsToday int
	if err := tx.QueryRow(ctx, countStudyDaySQL, p.LearnerID, day).Scan(&reviewsToday); err != nil {
		return fmt.Errorf("count study day: %w", err)
	}
	codes := []string{events.AchievementFirstReview}
	if reviewsToday == 1 {
		streak, err := a.extendStreak(ctx, tx, d, p.LearnerID, day)
		if err != nil {
			return err
		}
		if streak >= StreakAchievementDays {
			codes = append(codes, events.AchievementStreak7)
		}
	}
	if learning.State(p.StateAfter) == learning.Review && learning.State(p.StateBefore) != learning.Review {
		var learned int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM cards WHERE learner_id = $1 AND state = 2", p.LearnerID).Scan(&learned); err != nil {
			return fmt.Errorf("count learned words: %w", err)
		}
		if learned >= WordsForAchievement {
			codes = append(codes, events.AchievementWords100)
		}
	}
	return a.earn(ctx, tx, d, p.LearnerID, nil, p.ReviewedAt, codes...)
}

// extendStreak records a new study day and returns the current streak:
// the day after the last one extends it, a gap restarts it at 1. It
// enqueues streak.extended.
func (a *Activity) extendStreak(ctx context.Context, tx pgx.Tx, d outbox.Delivery, learner uuid.UUID, day time.Time) (int, error) {
	var current, longest int
	var last time.Time
	err := tx.QueryRow(ctx, "SELECT current, longest, last_day FROM learner_streaks WHERE learner_id = $1 FOR UPDATE",
		learner).Scan(&current, &longest, &last)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		current = 1
	case err != nil:
		return 0, fmt.Errorf("load streak: %w", err)
	case !day.After(last):
		return current, nil // a day already counted
	case day.Equal(last.AddDate(0, 0, 1)):
		current++
	default:
		current = 1
	}
	longest = max(longest, current)
	if _, err := tx.Exec(ctx, `INSERT INTO learner_streaks (learner_id, current, longest, last_day) VALUES ($1, $2, $3, $4)
		ON CONFLICT (learner_id) DO UPDATE SET current = $2, longest = $3, last_day = $4`, learner, current, longest, day); err != nil {
		return 0, fmt.Errorf("save streak: %w", err)
	}
	ev, err := outbox.NewEvent(events.StreakExtended, learner.String(), events.StreakExtendedPayload{
		LearnerID: learner, Day: day.Format(time.DateOnly), Current: current, Longest: longest})
	if err != nil {
		return 0, err
	}
	return current, a.outbox.Enqueue(ctx, tx, ev)
}

// earn records each achievement the learner does not have yet and enqueues
// achievement.earned for each, naming assignment when it was earned with one.
func (a *Activity) earn(ctx context.Context, tx pgx.Tx, d outbox.Delivery, learner uuid.UUID, assignment *uuid.UUID, at time.Time, codes ...string) error {
	var evs []outbox.Event
	for _, code := range codes {
		err := tx.QueryRow(ctx, earnSQL, learner, code, at, d.Event.ID).Scan(new(string))
		if errors.Is(err, pgx.ErrNoRows) {
			continue // already earned
		}
		if err != nil {
			return fmt.Errorf("record achievement %s: %w", code, err)
		}
		ev, err := outbox.NewEvent(events.AchievementEarned, learner.String(), events.AchievementEarnedPayload{
			LearnerID: learner, Code: code, EarnedAt: at, AssignmentID: assignment})
		if err != nil {
			return err
		}
		evs = append(evs, ev)
	}
	return a.outbox.Enqueue(ctx, tx, evs...)
}
