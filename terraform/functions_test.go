// Package terraform_test checks that the deployment (Terraform and
// cloudbuild.yaml) is in step with the code: every function has its Cloud Run
// service, and Cloud Build tests, builds, migrates and only then deploys.
package terraform_test

import (
	"encoding/json"
	"maps"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/functions"
)

// TestEveryFunctionHasAService checks the list Terraform makes one Cloud Run
// service of per function (functions.tf.json) against the functions the
// code registers: a function added in Go without its service, or a service
// left behind by a removed function, fails here.
func TestEveryFunctionHasAService(t *testing.T) {
	t.Parallel()
	tf := readFunctionsTF(t)

	want := slices.Sorted(maps.Keys(functions.Functions))
	require.Equal(t, want, tf.Functions, "terraform/functions.tf.json locals.functions must list functions.Functions, sorted")
	require.NotEmpty(t, tf.OperatorFunctions)
	for _, f := range tf.OperatorFunctions {
		require.Contains(t, want, f, "operator function %s is not a function", f)
	}
	for _, f := range tf.AuthoringFunctions {
		require.Contains(t, want, f, "authoring function %s is not a function", f)
		require.NotContains(t, tf.OperatorFunctions, f, "authoring function %s is public", f)
	}
}

// functionsTF is the locals of functions.tf.json: the functions Terraform
// makes a Cloud Run service of, and those kept off allUsers and the load
// balancer (operator_functions).
type functionsTF struct {
	Functions         []string `json:"functions"`
	OperatorFunctions []string `json:"operator_functions"`
	// AuthoringFunctions are the teachers' deck-authoring functions, public
	// with authoring_max_instances each (locals.tf).
	AuthoringFunctions []string `json:"authoring_functions"`
}

// readFunctionsTF reads the locals of functions.tf.json.
func readFunctionsTF(t *testing.T) functionsTF {
	t.Helper()
	raw, err := os.ReadFile("functions.tf.json")
	require.NoError(t, err)
	var tf struct {
		Locals functionsTF `json:"locals"`
	}
	require.NoError(t, json.Unmarshal(raw, &tf))
	return tf.Locals
}
