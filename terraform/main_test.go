package terraform_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's tests when they leave goroutines running.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
