package store

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// TestDueCardsReadTheIndexes: DueCards reads a learner's due reviews as a
// range of cards_learner_due (due <= now in the Index Cond) and only the
// first new_left of their due new cards, a range of cards_learner_state_due
// that stops there, in a custom and in a generic plan (pgx prepares). The
// learner has 40 due reviews and 300 due new cards (a big deck started),
// among 60,000 cards of 200 learners; 10 new cards are left today.
func TestDueCardsReadTheIndexes(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	_, err := pool.Exec(ctx, `
		INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		SELECT 'w' || n, 'noun', 'd' || n, 'test' FROM generate_series(1, 300) n;
		INSERT INTO users (email, display_name, role)
		SELECT 'l' || n || '@example.com', 'l' || n, 'learner' FROM generate_series(1, 200) n;`)
	require.NoError(t, err)
	var learner uuid.UUID
	require.NoError(t, pool.QueryRow(ctx, `SELECT id FROM users WHERE email = 'l1@example.com'`).Scan(&learner))
	// Learner l1: every card due, 40 reviews (k <= 40) and 260 new; the
	// others: 10 due reviews, 10 due new cards, the rest due next month.
	_, err = pool.Exec(ctx, `
		INSERT INTO cards (learner_id, lexeme_id, state, due, stability, difficulty, reps, last_review)
		SELECT u.id, x.id, CASE WHEN x.review THEN 2 ELSE 0 END,
		       CASE WHEN u.id = $1 OR x.k <= 20 THEN $2::timestamptz - make_interval(mins => x.k::int)
		            ELSE $2::timestamptz + make_interval(days => 30, mins => x.k::int) END,
		       CASE WHEN x.review THEN 5 ELSE 0 END, CASE WHEN x.review THEN 5 ELSE 0 END,
		       CASE WHEN x.review THEN 3 ELSE 0 END, CASE WHEN x.review THEN $2::timestamptz - interval '10 days' END
		FROM users u
		CROSS JOIN LATERAL (SELECT id, k, (u.id = $1 AND k <= 40) OR (u.id <> $1 AND k > 10) AS review
		                    FROM (SELECT id, row_number() OVER (ORDER BY id) AS k FROM lexemes) n) x
		ORDER BY random()`, learner, now)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ANALYZE cards`)
	require.NoError(t, err)

	const newState, newLeft, maxCards = 0, 10, 30
	rows, err := On(pool).DueCards(ctx, DueCardsParams{LearnerID: learner, Now: now, NewState: newState,
		NewLeft: newLeft, MaxCards: maxCards, DefaultRetention: 0.9})
	require.NoError(t, err)
	require.Len(t, rows, maxCards)
	require.Equal(t, int64(40+newLeft), rows[0].Total, "every due review and new_left new cards")
	require.Equal(t, int64(newLeft), rows[0].NewTotal)
	for i := 1; i < len(rows); i++ {
		require.True(t, rows[i-1].Due.Before(rows[i].Due), "most overdue first")
	}

	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	_, err = conn.Exec(ctx, `PREPARE due_cards AS `+dueCards)
	require.NoError(t, err)
	newScan := regexp.MustCompile(`Index Scan using cards_learner_state_due on cards .*rows=` + "10" + ` loops=1\)\n\s+Index Cond: \(\(learner_id = \S+\) AND \(state = \S+\) AND \(due <= `)
	reviewScan := regexp.MustCompile(`cards_learner_due .*\n\s+Index Cond: \(\(learner_id = \S+\) AND \(due <= `)
	for _, mode := range []string{"force_custom_plan", "force_generic_plan"} {
		_, err = conn.Exec(ctx, `SET plan_cache_mode = `+mode)
		require.NoError(t, err)
		plan := explain(t, conn, fmt.Sprintf(`EXPLAIN (ANALYZE, BUFFERS, FORMAT TEXT) EXECUTE due_cards(0.9, %d, '%s', NULL, NULL, '%s', %d, %d)`,
			newState, learner, now.Format(time.RFC3339), newLeft, maxCards))
		t.Log(mode, "\n", plan)
		require.NotContains(t, plan, "Seq Scan on cards", mode)
		require.Regexp(t, newScan, plan, "%s: the new cards, new_left of them, on cards_learner_state_due", mode)
		require.Regexp(t, reviewScan, plan, "%s: the due reviews on cards_learner_due", mode)
	}
}
