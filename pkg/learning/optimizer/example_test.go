package optimizer_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/learning/optimizer"
)

// A learner's log becomes items, the earlier items are fitted, and the new
// weights are kept only if they predict the later items better than the
// current ones. (This log is far too short: the outlier filter leaves no
// item, and the fit keeps the defaults.)
func Example() {
	paris := learning.Zone("Europe/Paris")
	day := func(d int) time.Time { return time.Date(2026, 3, d, 19, 0, 0, 0, paris) }
	log := []optimizer.Review{
		{Card: "card-1", Rating: learning.Good, At: day(1)},
		{Card: "card-1", Rating: learning.Good, At: day(3)},
		{Card: "card-2", Rating: learning.Again, At: day(1)},
		{Card: "card-2", Rating: learning.Good, At: day(1).Add(10 * time.Minute)},
		{Card: "card-2", Rating: learning.Hard, At: day(2)},
		{Card: "card-1", Rating: learning.Easy, At: day(9)},
	}
	items, err := optimizer.BuildItems(log, paris)
	if err != nil {
		panic(err)
	}
	fold := optimizer.TimeSeriesSplit(items, 1)[0]
	res, err := optimizer.Fit(context.Background(), fold.Train, optimizer.Options{})
	if err != nil {
		panic(err)
	}
	current := learning.DefaultParams().Weights
	fitted, _ := optimizer.Evaluate(res.Weights, fold.Test)
	before, _ := optimizer.Evaluate(current, fold.Test)
	fmt.Println(len(items), "items;", res.Outcome, "after", res.Items, "items; better:", fitted.LogLoss < before.LogLoss)
	// Output: 3 items; defaults after 0 items; better: false
}
