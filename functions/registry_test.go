package functions

import (
	"maps"
	"os"
	"reflect"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// Every exported handler of Service is registered under its own name.
func TestEveryHandlerIsRegistered(t *testing.T) {
	t.Parallel()
	handler := reflect.TypeOf((*Service).GetSchedule)
	st := reflect.TypeOf(&Service{})
	var names []string
	for i := range st.NumMethod() {
		if m := st.Method(i); m.Type == handler {
			names = append(names, m.Name)
			require.Contains(t, Functions, m.Name)
		}
	}
	require.Len(t, Functions, len(names))
	for name, fn := range Functions {
		m, ok := st.MethodByName(name)
		require.True(t, ok, name)
		require.Equal(t, reflect.ValueOf(fn).Pointer(), m.Func.Pointer(), "%s is registered with its own handler", name)
	}
}

// The registry names exactly the operations of openapi.yaml, the one
// source of the HTTP contract: each path is /<operationId> with one method,
// and an operationId is a function's name. Terraform's list
// (terraform/functions.tf.json, checked against Functions by
// terraform.TestEveryFunctionHasAService) and the conformance test's calls
// (TestResponsesMatchTheOpenAPIDocument checks every function) follow from
// it.
func TestTheRegistryNamesTheDocumentsOperations(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("openapi.yaml")
	require.NoError(t, err)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `yaml:"operationId"`
		} `yaml:"paths"`
	}
	require.NoError(t, yaml.Unmarshal(raw, &doc))
	var ops []string
	for path, methods := range doc.Paths {
		require.Len(t, methods, 1, "%s has one method", path)
		for _, op := range methods {
			require.Equal(t, "/"+op.OperationID, path, "a function's path is its name")
			ops = append(ops, op.OperationID)
		}
	}
	require.ElementsMatch(t, slices.Collect(maps.Keys(Functions)), ops)
}
