package events

import (
	"time"

	"github.com/google/uuid"
)

// LearnerParametersChanged: the fit job (pkg/fitting) kept a fit of the
// learner's FSRS-6 parameters, which schedule the learner's reviews from
// now on. Enqueued in the fit's record transaction, under the learner's id
// as ordering key.
const LearnerParametersChanged = "learner.parameters_changed"

// LearnerParametersChangedPayload is the payload of
// LearnerParametersChanged. Ordering key: learner id. The metrics are
// fsrs-rs's (optimizer.Metrics) on the same held-out later reviews, for
// the new parameters and for those they replace.
type LearnerParametersChangedPayload struct {
	LearnerID uuid.UUID `json:"learner_id"`
	// TeacherIDs are the teachers of the learner's classes at the fit,
	// the receivers of its webhooks (empty: a self-study learner).
	TeacherIDs []uuid.UUID `json:"teacher_ids"`
	// FitID is the parameter_fits row; ParametersID the new
	// learner_parameters row; PreviousParametersID the one replaced,
	// absent when it was the defaults.
	FitID                int64  `json:"fit_id"`
	ParametersID         int64  `json:"parameters_id"`
	PreviousParametersID *int64 `json:"previous_parameters_id,omitempty"`
	// Reviews is the number of the learner's reviews the fit saw.
	Reviews          int       `json:"reviews"`
	LogLoss          float64   `json:"log_loss"`
	RMSEBins         float64   `json:"rmse_bins"`
	PreviousLogLoss  float64   `json:"previous_log_loss"`
	PreviousRMSEBins float64   `json:"previous_rmse_bins"`
	OptimizerVersion string    `json:"optimizer_version"`
	FittedAt         time.Time `json:"fitted_at"`
}
