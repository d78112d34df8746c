package events

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/outbox"
)

func TestRoutingIsValid(t *testing.T) {
	t.Parallel()
	_, err := outbox.New(Subscriptions...)
	require.NoError(t, err)
}
