// Package fitting fits each learner's own FSRS-6 parameters from their
// review log in the background (the fit job, jobs/fit) and keeps a fit only
// when it predicts the learner's recall better than the parameters they
// have (issue 27; Anki keeps the old parameters when the new ones are
// worse).
//
// # A fit
//
// [Load] reads, in a transaction, the learner's zone, current parameters
// (store.CurrentParameters; none: the FSRS-6 defaults) and reviews that are
// not undone. [Decide], database-free, turns them into items
// (optimizer.BuildItems, study days in the learner's zone), splits them in
// time (optimizer.TimeSeriesSplit with [Splits] splits, the last fold: the
// earlier 5/6 train, the later 1/6 is held out), fits on the earlier items
// (optimizer.Fit, fsrs-rs's defaults) and evaluates both the fitted and the
// current weights on the held-out later ones (optimizer.Evaluate). [Record]
// writes the fit to parameter_fits, kept or refused with its reason, and,
// when kept, adopts the weights (a new learner_parameters row) and returns
// learner.parameters_changed.
//
// # The rule
//
// A fit is kept when, on the held-out reviews, its log loss is lower than
// the current parameters' and its RMSE(bins) is not higher by more than
// [RMSEMargin]. Log loss is the criterion fsrs-rs minimises and a proper
// scoring rule, so it decides; RMSE(bins) guards calibration, with a
// margin because on a few hundred held-out reviews it moves by about that
// much between two equally good weight sets (its bins hold a handful of
// reviews each), and a fit that is better in log loss should not be
// refused for noise. 0.005 is a fifth of the gain per-user fits give on
// the srs-benchmark (0.0716 to 0.0462).
//
// A learner's first fit needs [MinFirstItems] items (cross-day reviews,
// the labels of optimizer.BuildItems): the earlier 5/6 are then over 300
// items, well past the 64 below which optimizer.Fit fits only the initial
// stabilities, and the held-out 1/6 over 60 labels, the fewest on which
// the two metrics still tell apart the defaults and a fit for simulated
// learners whose parameters differ from the defaults (pkg/learning/optimizer/oracle).
// Below it the defaults stay and the fit is recorded as refused. A later
// fit needs [MinNewItems] cross-day reviews after the last fit's last
// review (store.LearnersDueForFit).
//
// # Races
//
// A fit runs in one transaction that holds the learner's advisory fit lock
// (store.TryLockFit: a second, overlapping execution skips the learner)
// but not their row, so their reviews go on while they are fitted. [Record]
// then locks the learner's row, as a review does, and refuses the fit
// (reason "superseded") when the current parameters changed since [Load]:
// a review is scheduled by the parameters current when it commits
// (study.Review reads them under the same lock) and records which.
// Adopting parameters reschedules no card: each card's next review uses
// them.
package fitting
