package optimizer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lexora-app/lexora/pkg/learning"
)

// ErrInvalidLog is wrapped by the errors of [BuildItems], [Fit] and
// [Evaluate] for input they cannot use: a rating outside Again..Easy, an
// item with fewer than two reviews, whose first review has a non-zero
// interval or whose last (labelled) review has a zero one.
var ErrInvalidLog = errors.New("optimizer: invalid review log")

// Review is one review of a learner's log as the optimizer reads it. The
// caller passes only reviews that count: an undone review is not a review
// and must be left out.
type Review struct {
	// Card identifies the card reviewed (the cards table's id); reviews of
	// one card form its history.
	Card string
	// Rating is the grade given, Again..Easy.
	Rating learning.Rating
	// At is the instant of the review.
	At time.Time
}

// Step is one review inside an [Item]: its rating and the number of the
// learner's study days since the card's previous review (0 for the first
// review, and for a review on the same study day as the one before).
type Step struct {
	Rating learning.Rating
	DeltaT uint32
}

// Item is one label of the training data: the card's reviews up to and
// including the labelled one, the last, whose DeltaT is > 0 (fsrs-rs's
// FSRSItem). The items of one card share Card and the backing array of
// Reviews; Reviews must not be modified.
type Item struct {
	// Card numbers the card among the log's cards (0, 1, ...), in the order
	// of the cards' first reviews.
	Card int
	// Reviews are the card's first len(Reviews) reviews.
	Reviews []Step
}

// label returns the labelled (last) review.
func (it Item) label() Step { return it.Reviews[len(it.Reviews)-1] }

// longTermCount counts the reviews on a later study day than the one
// before (fsrs-rs long_term_review_cnt).
func (it Item) longTermCount() int {
	n := 0
	for _, s := range it.Reviews {
		if s.DeltaT > 0 {
			n++
		}
	}
	return n
}

// firstLongTerm returns the first review on a later study day than the one
// before. Every item has one: its label.
func (it Item) firstLongTerm() Step {
	for _, s := range it.Reviews {
		if s.DeltaT > 0 {
			return s
		}
	}
	return it.label()
}

// BuildItems turns a learner's reviews (in any order) into items, ordered
// by the instant of their labelled review (ties by card, then position),
// counting days as study days in the learner's zone tz (04:00 rollover,
// [learning.StudyDaysBetween]). A card's reviews are ordered by At (ties
// keep the input order). A review on the same study day as the card's
// previous review is history, never a label. Errors: a rating outside
// Again..Easy wraps [ErrInvalidLog].
func BuildItems(reviews []Review, tz *time.Location) ([]Item, error) {
	byCard := map[string]int{}
	var cards [][]int // review indices per card
	for i, r := range reviews {
		if !r.Rating.Valid() {
			return nil, fmt.Errorf("%w: review %d has rating %d", ErrInvalidLog, i, int(r.Rating))
		}
		c, ok := byCard[r.Card]
		if !ok {
			c = len(cards)
			byCard[r.Card] = c
			cards = append(cards, nil)
		}
		cards[c] = append(cards[c], i)
	}
	for _, idx := range cards {
		slices.SortStableFunc(idx, func(a, b int) int { return reviews[a].At.Compare(reviews[b].At) })
	}
	// Number cards by their first review, so the numbering does not depend
	// on the input order.
	slices.SortStableFunc(cards, func(a, b []int) int { return reviews[a[0]].At.Compare(reviews[b[0]].At) })
	type labelled struct {
		item Item
		at   time.Time
	}
	var out []labelled
	for c, idx := range cards {
		steps := make([]Step, len(idx))
		for k, i := range idx {
			steps[k].Rating = reviews[i].Rating
			if k > 0 {
				steps[k].DeltaT = uint32(learning.StudyDaysBetween(reviews[idx[k-1]].At, reviews[i].At, tz))
			}
			if k > 0 && steps[k].DeltaT > 0 {
				out = append(out, labelled{Item{Card: c, Reviews: steps[: k+1 : k+1]}, reviews[i].At})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b labelled) int {
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.item.Card, b.item.Card))
	})
	items := make([]Item, len(out))
	for i, l := range out {
		items[i] = l.item
	}
	return items, nil
}

// validate reports the first item [Fit] or [Evaluate] cannot use.
func validate(items []Item) error {
	for i, it := range items {
		if len(it.Reviews) < 2 {
			return fmt.Errorf("%w: item %d has %d reviews, needs at least 2", ErrInvalidLog, i, len(it.Reviews))
		}
		if it.label().DeltaT == 0 {
			return fmt.Errorf("%w: item %d: the labelled review is on the same study day as the one before", ErrInvalidLog, i)
		}
		if it.Reviews[0].DeltaT != 0 {
			return fmt.Errorf("%w: item %d: first review has DeltaT %d, must be 0", ErrInvalidLog, i, it.Reviews[0].DeltaT)
		}
		for k, s := range it.Reviews {
			if !s.Rating.Valid() {
				return fmt.Errorf("%w: item %d review %d has rating %d", ErrInvalidLog, i, k, int(s.Rating))
			}
		}
	}
	return nil
}
