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
	"github.com/lexora-app/lexora/pkg/store"
)

// Activity maintains study days, streaks and achievements from
// review.submitted, review.undone and assignment.completed. It is an ordered subscriber
// (keyed by learner), so a learner's study days arrive in commit order.
// Consequences that are events themselves (streak.extended,
// achievement.earned) are enqueued in the consumer's own transaction, through
// the same outbox, so they exist exactly when the projection changed.
type Activity struct {
	pool   *pgxpool.Pool
	outbox *outbox.Outbox
}

// wordsForAchievement is how many cards in the Review state earn
// AchievementWords100.
const wordsForAchievement = 100

// streakAchievementDays is the streak that earns AchievementStreak7.
const streakAchievementDays = 7

// Handle applies one event. It returns a permanent error for an unexpected
// topic, an undecodable payload or a malformed study day.
func (a *Activity) Handle(ctx context.Context, d outbox.Delivery) error {
	switch d.Event.Topic {
	case events.ReviewSubmitted:
		return onStudyDay(ctx, a, d, func(p events.ReviewSubmittedPayload) string { return p.StudyDay },
			func(tx pgx.Tx, p events.ReviewSubmittedPayload, day time.Time) error {
				return a.review(ctx, tx, d, p, day)
			})
	case events.ReviewUndone:
		return onStudyDay(ctx, a, d, func(p events.ReviewUndonePayload) string { return p.StudyDay },
			func(tx pgx.Tx, p events.ReviewUndonePayload, day time.Time) error { return a.takeBack(ctx, tx, p, day) })
	case events.AssignmentCompleted:
		p, err := decode[events.AssignmentCompletedPayload](d)
		if err != nil {
			return err
		}
		if !p.CompletedAt.Before(p.DueAt) {
			return nil
		}
		return outbox.HandleOnce(ctx, a.pool, d, func(tx pgx.Tx) error {
			return a.earn(ctx, tx, d, p.LearnerID, &p.AssignmentID, nil, p.CompletedAt, events.AchievementFinishedEarly)
		})
	default:
		return unexpectedTopic(d)
	}
}

// onStudyDay decodes d's payload as a P, parses the study day dayOf reads
// from it (YYYY-MM-DD), and applies it once (outbox.HandleOnce). A payload
// that does not decode or a malformed day is a permanent error.
func onStudyDay[P events.Payload](ctx context.Context, a *Activity, d outbox.Delivery, dayOf func(P) string,
	apply func(pgx.Tx, P, time.Time) error) error {
	p, err := decode[P](d)
	if err != nil {
		return err
	}
	day, err := studyDay(dayOf(p))
	if err != nil {
		return err
	}
	return outbox.HandleOnce(ctx, a.pool, d, func(tx pgx.Tx) error { return apply(tx, p, day) })
}

func (a *Activity) review(ctx context.Context, tx pgx.Tx, d outbox.Delivery, p events.ReviewSubmittedPayload, day time.Time) error {
	q := store.On(tx)
	reviewsToday, err := q.CountStudyDay(ctx, p.LearnerID, day)
	if err != nil {
		return fmt.Errorf("count study day: %w", err)
	}
	codes := []string{events.AchievementFirstReview}
	if reviewsToday == 1 {
		streak, err := a.extendStreak(ctx, tx, p.LearnerID, day)
		if err != nil {
			return err
		}
		if streak >= streakAchievementDays {
			codes = append(codes, events.AchievementStreak7)
		}
	}
	if learning.State(p.StateAfter) == learning.Review && learning.State(p.StateBefore) != learning.Review {
		learned, err := q.CountCardsInState(ctx, p.LearnerID, learning.Review)
		if err != nil {
			return fmt.Errorf("count learned words: %w", err)
		}
		if learned >= wordsForAchievement {
			codes = append(codes, events.AchievementWords100)
		}
	}
	return a.earn(ctx, tx, d, p.LearnerID, nil, &p.ReviewID, p.ReviewedAt, codes...)
}

// extendStreak records a new study day and returns the current streak:
// the day after the last one extends it, a gap restarts it at 1. It
// enqueues streak.extended.
func (a *Activity) extendStreak(ctx context.Context, tx pgx.Tx, learner uuid.UUID, day time.Time) (int, error) {
	q := store.On(tx)
	s, err := q.LockStreak(ctx, learner)
	switch {
	case errors.Is(err, store.ErrNotFound):
		s.Current = 1
	case err != nil:
		return 0, fmt.Errorf("load streak: %w", err)
	case !day.After(s.LastDay):
		return int(s.Current), nil // a day already counted
	case day.Equal(s.LastDay.AddDate(0, 0, 1)):
		s.Current++
	default:
		s.Current = 1
	}
	s.Longest = max(s.Longest, s.Current)
	if err := q.SaveStreak(ctx, learner, s.Current, s.Longest, day); err != nil {
		return 0, fmt.Errorf("save streak: %w", err)
	}
	ev, err := events.New(learner.String(), events.StreakExtendedPayload{
		LearnerID: learner, Day: day.Format(time.DateOnly), Current: int(s.Current), Longest: int(s.Longest)})
	if err != nil {
		return 0, err
	}
	return int(s.Current), a.outbox.Enqueue(ctx, tx, ev)
}

// earn records each achievement the learner does not have yet, with the
// review that earned it (nil when none did: an undo of that review may
// revoke it), and enqueues achievement.earned for each, naming assignment
// when it was earned with one.
func (a *Activity) earn(ctx context.Context, tx pgx.Tx, d outbox.Delivery, learner uuid.UUID, assignment *uuid.UUID, review *int64,
	at time.Time, codes ...string) error {
	var evs []outbox.Event
	q := store.On(tx)
	for _, code := range codes {
		earned, err := q.EarnAchievement(ctx, store.EarnAchievementParams{LearnerID: learner, Code: code, EarnedAt: at,
			EventID: d.Event.ID, ReviewID: review})
		if err != nil {
			return fmt.Errorf("record achievement %s: %w", code, err)
		}
		if earned == 0 {
			continue // already earned
		}
		ev, err := events.New(learner.String(), events.AchievementEarnedPayload{
			LearnerID: learner, Code: code, EarnedAt: at, AssignmentID: assignment})
		if err != nil {
			return err
		}
		evs = append(evs, ev)
	}
	return a.outbox.Enqueue(ctx, tx, evs...)
}
