package fitting

import (
	"testing"

	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
)

// TestMain fails the package's tests when they leave goroutines running.
func TestMain(m *testing.M) { leaktest.Main(m) }
