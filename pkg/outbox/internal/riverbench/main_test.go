package riverbench

import (
	"testing"

	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
)

// TestMain fails the benchmark's run when River's client, a drainer or a pool
// leaves goroutines running after it.
func TestMain(m *testing.M) { leaktest.Main(m) }
