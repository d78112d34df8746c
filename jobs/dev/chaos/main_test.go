package main

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
)

// TestMain fails the package's tests when they leave goroutines running,
// except toxiproxy's for a connection whose peer died while a chunk was on
// its way to it: the toxic holding the chunk, and those before it, wait
// for good (toxiproxy's own toxics do the same; TestProxyFaultsNeverWedge
// makes such connections).
func TestMain(m *testing.M) {
	leaktest.Main(m,
		goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2/toxics.(*ToxicStub).Run"),
		goleak.IgnoreAnyFunction("github.com/Shopify/toxiproxy/v2.(*ToxicLink).read"))
}
