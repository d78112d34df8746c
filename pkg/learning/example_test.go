package learning_test

import (
	"fmt"
	"time"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/platform/clock/clocktest"
)

// The Usage block of the package documentation: a new card, due at once,
// reviewed Good by a learner in Paris, then stored column by column. The
// clock is a clocktest.Stub in place of clock.System, and fuzz is off, so
// that the instants and intervals printed are FSRS-6's own.
func Example() {
	clk := clocktest.New(time.Date(2026, 3, 2, 9, 30, 0, 0, time.UTC))
	params := learning.DefaultParams()
	params.EnableFuzz = false
	s, err := learning.NewScheduler(params, clk)
	if err != nil {
		panic(err)
	}
	learnerZone := learning.Zone("Europe/Paris")

	card := s.NewCard() // due immediately
	fmt.Println(card.State, "due", card.Due.Format(time.RFC3339))

	card, log, err := s.Review(card, learning.Good, learnerZone)
	if err != nil {
		panic(err)
	}
	fmt.Println(log.Rating, "on a", log.State, "card:", card.State, "step", card.Step, "due", card.Due.Format(time.RFC3339))

	// The learner comes back when the step is due, and again rates it Good.
	clk.Set(card.Due)
	card, _, err = s.Review(card, learning.Good, learnerZone)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: due in %d days, stability %.2f days, difficulty %.2f\n",
		card.State, card.ScheduledDays, card.Stability, card.Difficulty)
	// Output:
	// new due 2026-03-02T09:30:00Z
	// good on a new card: learning step 1 due 2026-03-02T09:40:00Z
	// review: due in 2 days, stability 2.31 days, difficulty 2.11
}
