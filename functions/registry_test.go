package functions

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
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
