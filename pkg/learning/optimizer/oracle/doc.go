// Package oracle checks pkg/learning/optimizer against fsrs-rs, the
// reference FSRS optimizer, on review logs of simulated learners. It is a
// test tool, not part of the product.
//
// The oracle is fsrs-rs 6.5 through the npm package
// @open-spaced-repetition/binding 0.5.0, pinned in this folder's
// package.json and package-lock.json and installed by run.sh (npm ci) when
// node_modules is missing; [Start] runs it as a child process (oracle.mjs,
// one JSON request and answer per line). [Simulate] makes the logs:
// learners with drawn true FSRS-6 weights who review on the schedule the
// product's scheduler (learning.Scheduler, default parameters) gives them,
// with recall drawn from their true model, and the habits of [Habit].
//
// The package's tests compare, on each log, the log loss and RMSE(bins)
// that the oracle measures for Lexora's fitted weights and for fsrs-rs's,
// on all of a log's items and on held-out later ones; its benchmark adds
// the timing of both fits and Lexora's memory per fit (docs/benchmarks.md).
package oracle
