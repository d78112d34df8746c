// Package optimizer fits the 21 FSRS-6 weights of [learning.Params] to one
// learner's review log, and measures how well a set of weights predicts
// that learner's recall.
//
// # Method
//
// It follows the reference optimizer fsrs-rs 6.5
// (github.com/open-spaced-repetition/fsrs-rs: src/training.rs,
// src/dataset.rs, src/parameter_initialization.rs,
// src/parameter_clipper.rs, src/model.rs, src/inference.rs), written anew
// here in float64:
//
//   - [BuildItems] turns the log into items: for each card, every review
//     after the first on a later study day than the review before it
//     (04:00 rollover in the learner's zone, [learning.StudyDaysBetween])
//     is a label, predicted from all the card's earlier reviews, same-day
//     ones included. Items are ordered by the instant of their label.
//   - [Fit] drops outliers (rare first intervals per first rating), fits
//     the four initial stabilities w0..w3 to the recall after the first
//     interval (a ternary search per first rating, then kept increasing
//     from Again to Easy), then minimises the recency-weighted binary
//     cross-entropy of recall (rating > Again) against the predicted
//     retrievability plus fsrs-rs's L2 pull toward the starting weights,
//     with Adam and a cosine-annealed learning rate (5 epochs, batches of
//     512 items sorted by length, rate 0.04), clamping every weight after
//     every step and keeping the epoch with the lowest loss.
//   - The batches of each epoch are visited in the order fsrs-rs's random
//     generator gives them (Rust rand 0.10's StdRng, ChaCha12, and its
//     shuffle, ported in shuffle.go), so with the same seed a fit follows
//     fsrs-rs's path: the weights agree with fsrs-rs's to its float32
//     rounding (checked in ./oracle).
//   - Gradients are analytic: reverse-mode derivatives of the FSRS-6
//     forward formulas (forgetting curve, success, failure and short-term
//     stability, difficulty with linear damping and mean reversion), with
//     the clamps' gradients passed or stopped as in fsrs-rs. No numerical
//     differentiation is used; a test checks them against central finite
//     differences.
//   - With too few reviews the defaults are returned (fewer than 8 items),
//     or the defaults with pre-trained initial stabilities only (fewer than
//     64 items, or no item beyond the first interval), as fsrs-rs does; see
//     [Outcome].
//
// A batch keeps its items' histories as a trie, so a fit runs each
// distinct history prefix of a batch forward and backward once per epoch
// (on simulated logs about a quarter of the items' total length); its
// memory is proportional to the number of items (items of one card share
// their reviews).
//
// [Evaluate] computes fsrs-rs's log loss and RMSE(bins); [TimeSeriesSplit]
// is fsrs-rs's split of a time-ordered log into earlier training and later
// test items, so a caller can fit on the earlier items and keep the new
// weights only when they predict the later ones better than the current
// weights. A fit is deterministic for a given log and [Options.Seed];
// [Version] names the method, for records of fits.
//
// [InitialState], [NextState] and [Retrievability] run the same FSRS-6
// model forward (predicted recall, workload simulation), and [Clamp] bounds
// weights as a fit does.
package optimizer
