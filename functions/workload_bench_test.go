package functions

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// BenchmarkGetDeckWorkload measures GetDeckWorkload for a class of 35
// learners with a deck of 60 words: each learner's 60 cards (40 reviewed,
// in Review with various stabilities and due days, 20 new), a third of
// the learners with fitted parameters. One op is one request through the
// handler (token check, the reads, the simulation at four retentions over
// 30 days, the JSON answer); docs/benchmarks.md quotes it.
func BenchmarkGetDeckWorkload(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	_, err := f.pool.Exec(ctx, `
		WITH l AS (INSERT INTO lexemes (lemma, part_of_speech, definition, source)
		           SELECT 'word' || i, 'noun', 'a word', 'bench' FROM generate_series(1, 57) i RETURNING id)
		INSERT INTO deck_items (deck_id, lexeme_id, position)
		SELECT $1, id, 3 + row_number() OVER (ORDER BY id) FROM l`, f.deck)
	require.NoError(b, err)
	_, err = f.pool.Exec(ctx, `
		WITH u AS (INSERT INTO users (email, display_name, role, timezone)
		           SELECT 'b' || i || '@example.com', 'B' || i, 'learner', 'Europe/Paris' FROM generate_series(1, 34) i RETURNING id)
		INSERT INTO class_members (class_id, learner_id) SELECT $1, id FROM u`, f.class)
	require.NoError(b, err)
	code, body := f.call(b, (*Service).CreateAssignment, http.MethodPost, "/CreateAssignment", f.teacher,
		`{"class_id":"`+f.class.String()+`","deck_id":"`+f.deck.String()+`","due_at":"2026-03-20T18:00:00Z"}`)
	require.Equal(b, http.StatusCreated, code, body)
	_, err = f.pool.Exec(ctx, `
		WITH n AS (SELECT id, row_number() OVER (PARTITION BY learner_id ORDER BY id) AS k FROM cards)
		UPDATE cards c SET state = 2, reps = 3, stability = 0.5 + (n.k % 17), difficulty = 1 + (n.k % 9),
		       last_review = $1::timestamptz - make_interval(days => (n.k % 5)::int),
		       due = $1::timestamptz + make_interval(days => (n.k % 7)::int - 2), scheduled_days = 3
		FROM n WHERE n.id = c.id AND n.k <= 40`, f.clock.Now())
	require.NoError(b, err)
	_, err = f.pool.Exec(ctx, `
		INSERT INTO learner_parameters (learner_id, weights, optimizer_version)
		SELECT m.learner_id, ARRAY[0.3,1.2,3.1,15.7,7.2,0.53,1.46,0.005,1.55,0.12,1.01,1.9,0.11,0.29,2.27,0.23,2.99,0.52,0.37,0.1,0.25],
		       'bench'
		FROM (SELECT learner_id, row_number() OVER (ORDER BY learner_id) AS k FROM class_members WHERE class_id = $1) m
		WHERE m.k % 3 = 0`, f.class)
	require.NoError(b, err)
	target := "/GetDeckWorkload?class_id=" + f.class.String() + "&deck_id=" + f.deck.String()
	authz := bearer(b, f.teacher)
	b.ReportAllocs()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", authz)
		rec := httptest.NewRecorder()
		f.svc.GetDeckWorkload(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GetDeckWorkload: %d %s", rec.Code, rec.Body)
		}
	}
}
