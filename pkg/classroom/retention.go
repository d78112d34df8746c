package classroom

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/pkg/events"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/store"
)

// DeckRetention is a class deck's desired retention after a change.
type DeckRetention struct {
	ClassID, DeckID uuid.UUID
	// DesiredRetention is the recall probability at which the deck's cards
	// come due, in [learning.MinDesiredRetention, MaxDesiredRetention];
	// Previous the one it replaced.
	DesiredRetention, Previous float64
	// Changed is false when the deck already had that retention.
	Changed bool
}

// SetDeckRetention sets, in tx, the desired retention of the teacher's
// class deck (class_decks) to retention. The class's learners' cards of
// the deck come due at it from their next review on (no card is
// rescheduled; a card of decks with several retentions comes due at the
// highest, store.CardRetention). The batch holds deck.retention_changed
// (ordering key: the class) when the retention changed, nothing when the
// deck already had it.
//
// Errors: ErrRetentionOutOfRange for a retention outside [0.80, 0.95] (or
// NaN); ErrClassDeckNotFound when the class is not the teacher's or does
// not have the deck.
func SetDeckRetention(ctx context.Context, tx pgx.Tx, teacherID, classID, deckID uuid.UUID, retention float64) (DeckRetention, events.Batch, error) {
	if !learning.ValidDesiredRetention(retention) {
		return DeckRetention{}, events.Batch{}, ErrRetentionOutOfRange
	}
	q := store.On(tx)
	previous, err := q.LockClassDeck(ctx, classID, deckID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return DeckRetention{}, events.Batch{}, ErrClassDeckNotFound
	}
	if err != nil {
		return DeckRetention{}, events.Batch{}, fmt.Errorf("lock class deck: %w", err)
	}
	out := DeckRetention{ClassID: classID, DeckID: deckID, DesiredRetention: retention, Previous: previous,
		Changed: retention != previous}
	batch := events.NewBatch(classID.String())
	if !out.Changed {
		return out, batch, nil
	}
	if err := q.SetClassDeckRetention(ctx, retention, classID, deckID); err != nil {
		return DeckRetention{}, events.Batch{}, fmt.Errorf("set desired retention: %w", err)
	}
	batch.Add(events.DeckRetentionChangedPayload{ClassID: classID, DeckID: deckID, TeacherID: teacherID,
		DesiredRetention: retention, PreviousRetention: previous})
	return out, batch, nil
}

// WorkloadRetentions are the desired retentions a workload compares; a
// deck whose retention is none of them is simulated at its own as well
// (workloadRetentions).
var WorkloadRetentions = []float64{0.80, 0.85, 0.90, 0.95}

// workloadRetentions is WorkloadRetentions with current among them, in
// ascending order, so that a teacher who chose 0.92 sees what 0.92 asks.
func workloadRetentions(current float64) []float64 {
	out := slices.Clone(WorkloadRetentions)
	if !slices.Contains(out, current) {
		out = append(out, current)
		slices.Sort(out)
	}
	return out
}

// Workload settings: the horizon in study days, the new cards a learner
// learns a day (Anki's default new-card limit), and the seed that makes the
// simulation deterministic.
const (
	WorkloadDays      = 30
	WorkloadNewPerDay = 20
	workloadSeed      = 27
)

// Workload is the expected reviews per learner per day of one class deck
// over the next WorkloadDays study days, at each of WorkloadRetentions and
// at the deck's own retention when it is none of them.
type Workload struct {
	ClassID, DeckID uuid.UUID
	// DesiredRetention is the deck's retention now.
	DesiredRetention float64
	// Learners is how many of the class's learners have the deck; Cards
	// their cards of it (suspended ones left out); Fitted how many of
	// those learners are simulated with their own fitted parameters (the
	// others with the defaults).
	Learners, Cards, Fitted int
	// Days are the simulated days' dates (YYYY-MM-DD), today first, from
	// now's UTC date (each learner's study days are counted in their own
	// zone).
	Days   []string
	Curves []WorkloadCurve
}

// WorkloadCurve is the workload at one desired retention.
type WorkloadCurve struct {
	DesiredRetention float64
	// ReviewsPerDay is the expected reviews per learner on each of the
	// workload's days; MeanPerDay their mean over the days.
	ReviewsPerDay []float64
	MeanPerDay    float64
}

// DeckWorkload simulates, in tx, the reviews that the teacher's class deck
// asks of its learners over the next WorkloadDays study days at each of
// WorkloadRetentions and at its own retention (learning.SimulateWorkload): each learner with their
// current parameters (the defaults until a fit is kept) and their cards of
// the deck, a card's days counted in the learner's study days (its last
// review and due instant, from now). Days are labelled from now's UTC date.
// Errors: ErrClassDeckNotFound.
func DeckWorkload(ctx context.Context, tx pgx.Tx, teacherID, classID, deckID uuid.UUID, now time.Time) (Workload, error) {
	q := store.On(tx)
	retention, err := q.ClassDeckRetention(ctx, classID, deckID, teacherID)
	if errors.Is(err, store.ErrNotFound) {
		return Workload{}, ErrClassDeckNotFound
	}
	if err != nil {
		return Workload{}, fmt.Errorf("load class deck: %w", err)
	}
	rows, err := q.WorkloadCards(ctx, classID, deckID)
	if err != nil {
		return Workload{}, fmt.Errorf("load the learners' cards: %w", err)
	}
	learners, ids := workloadLearners(rows, now)
	params, err := q.CurrentParametersOf(ctx, ids)
	if err != nil {
		return Workload{}, fmt.Errorf("load the learners' parameters: %w", err)
	}
	out := Workload{ClassID: classID, DeckID: deckID, DesiredRetention: retention, Learners: len(learners),
		Cards: len(rows), Fitted: len(params), Days: make([]string, WorkloadDays)}
	index := make(map[uuid.UUID]int, len(ids))
	for i, id := range ids {
		index[id] = i
	}
	for _, p := range params {
		if len(p.Weights) != 21 {
			return Workload{}, fmt.Errorf("learner %s: %d weights, want 21", p.LearnerID, len(p.Weights))
		}
		learners[index[p.LearnerID]].Weights = [21]float64(p.Weights)
	}
	retentions := workloadRetentions(retention)
	curves, err := learning.SimulateWorkload(learning.Workload{Retentions: retentions, Days: WorkloadDays,
		NewPerDay: WorkloadNewPerDay, MaximumInterval: learning.DefaultParams().MaximumInterval, Seed: workloadSeed},
		learners)
	if err != nil {
		return Workload{}, err
	}
	today := now.UTC()
	for i := range out.Days {
		out.Days[i] = today.AddDate(0, 0, i).Format(time.DateOnly)
	}
	out.Curves = make([]WorkloadCurve, len(curves))
	for i, perDay := range curves {
		mean := 0.0
		for _, n := range perDay {
			mean += n
		}
		out.Curves[i] = WorkloadCurve{DesiredRetention: retentions[i], ReviewsPerDay: perDay,
			MeanPerDay: mean / float64(len(perDay))}
	}
	return out, nil
}

// workloadLearners groups rows (ordered by learner) into the simulation's
// learners, with the default weights, and returns their ids in the same
// order. A card's days are study days in its learner's zone from now's.
func workloadLearners(rows []store.WorkloadCardsRow, now time.Time) ([]learning.LearnerCards, []uuid.UUID) {
	defaults := learning.DefaultParams().Weights
	var learners []learning.LearnerCards
	ids := []uuid.UUID{}
	var zone *time.Location // the learner's, loaded once per learner
	for _, r := range rows {
		if len(ids) == 0 || ids[len(ids)-1] != r.LearnerID {
			ids = append(ids, r.LearnerID)
			learners = append(learners, learning.LearnerCards{Weights: defaults})
			zone = learning.Zone(r.Timezone)
		}
		l := &learners[len(learners)-1]
		c := learning.SimCard{New: r.State == learning.New || r.LastReview == nil}
		if !c.New {
			c.Stability, c.Difficulty = r.Stability, r.Difficulty
			c.LastReviewDay = -int(learning.StudyDaysBetween(*r.LastReview, now, zone))
			c.DueDay = int(learning.StudyDaysBetween(now, r.Due, zone))
		}
		l.Cards = append(l.Cards, c)
	}
	return learners, ids
}
