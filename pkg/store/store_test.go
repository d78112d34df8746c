package store

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestOnClassifiesErrors: the queries of On answer a row that is not
// there, a duplicate and a broken reference as the store's errors, each
// still wrapping the driver's.
func TestOnClassifiesErrors(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	q := On(pool)

	_, err := q.Timezone(ctx, uuid.New())
	require.ErrorIs(t, err, ErrNotFound)

	var teacher, class uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO users (email, display_name, role) VALUES ('t@example.com', 't', 'teacher') RETURNING id`).Scan(&teacher))
	require.NoError(t, pool.QueryRow(ctx, `INSERT INTO classes (teacher_id, name, join_code) VALUES ($1, 'c', 'CODE1234') RETURNING id`, teacher).Scan(&class))
	require.NoError(t, q.AddClassMember(ctx, class, teacher))
	require.ErrorIs(t, q.AddClassMember(ctx, class, teacher), ErrDuplicate)
	require.ErrorIs(t, q.AddClassMember(ctx, uuid.New(), teacher), ErrInvalidData)

	days, err := q.StudyDays(ctx, teacher)
	require.NoError(t, err)
	require.Empty(t, days)
}
