package faultproxy

import (
	"testing"

	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
)

// TestMain fails the package's tests when they leave goroutines running,
// except toxiproxy's for connections whose peer died while a chunk was on
// its way to it (IgnoreLeaks; TestProxyFaultsNeverWedge makes such
// connections).
func TestMain(m *testing.M) { leaktest.Main(m, IgnoreLeaks()...) }
