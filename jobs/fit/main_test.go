package main

import (
	"context"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/fitting"
	"github.com/lexora-app/lexora/pkg/platform/jobrun"
)

// A run that kept fits and had one fail exits 1 saying what it did, not
// that it could not run (on main: "fit could not run: 1 of 4 fits
// failed").
func TestARunWithAFailedFitSaysWhatItKeptAndWhatFailed(t *testing.T) {
	t.Parallel()
	require.NoError(t, outcome(fitting.Report{Selected: 3, Kept: 3}))

	learner := uuid.New()
	err := outcome(fitting.Report{Selected: 4, Kept: 3, Failed: 1, Errors: map[uuid.UUID]error{
		learner: &fitting.FitError{Learner: learner, Cause: "timeout after 45s", Recorded: true, Err: context.DeadlineExceeded},
	}})
	require.EqualError(t, err, "kept 3, refused 0, failed 1: timeout after 45s")
	require.Equal(t, "fit ran, some of its work failed", jobrun.FailureMessage("fit", err))
	require.Equal(t, "fit could not run", jobrun.FailureMessage("fit", errors.New("select learners: connection refused")))
}
