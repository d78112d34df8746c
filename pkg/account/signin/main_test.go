package signin

import (
	"testing"

	"github.com/lexora-app/lexora/pkg/testkit/leaktest"
)

func TestMain(m *testing.M) { leaktest.Main(m) }
