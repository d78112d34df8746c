package database_test

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/database"
	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// The migrate job grants the workloads' group role DML on every table and
// sequence of the migrated schema, and nothing that changes the schema.
func TestGrantTablesGivesTheWorkloadRoleDMLOnly(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	role := "lexora_app_" + strings.ToLower(rand.Text()[:12])
	_, err := pool.Exec(ctx, "CREATE ROLE "+pgx.Identifier{role}.Sanitize()+" NOLOGIN")
	require.NoError(t, err)
	t.Cleanup(func() {
		_, err := pool.Exec(ctx, "DROP OWNED BY "+pgx.Identifier{role}.Sanitize()+"; DROP ROLE "+pgx.Identifier{role}.Sanitize())
		require.NoError(t, err)
	})

	var before bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT has_table_privilege($1, 'outbox_events', 'INSERT')", role).Scan(&before))
	require.False(t, before, "a new role has no rights on the tables")

	require.NoError(t, database.GrantTables(ctx, pool, role))

	rows, err := pool.Query(ctx, `
		SELECT c.relname,
		       has_table_privilege($1, c.oid, 'SELECT') AND has_table_privilege($1, c.oid, 'INSERT')
		         AND has_table_privilege($1, c.oid, 'UPDATE') AND has_table_privilege($1, c.oid, 'DELETE'),
		       has_table_privilege($1, c.oid, 'TRUNCATE') OR has_table_privilege($1, c.oid, 'REFERENCES')
		         OR has_table_privilege($1, c.oid, 'TRIGGER')
		  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')`, role)
	require.NoError(t, err)
	tables := 0
	for rows.Next() {
		var name string
		var dml, more bool
		require.NoError(t, rows.Scan(&name, &dml, &more))
		require.True(t, dml, "DML on %s", name)
		require.False(t, more, "nothing beyond DML on %s", name)
		tables++
	}
	require.NoError(t, rows.Err())
	require.Greater(t, tables, 10)

	var sequences, create bool
	require.NoError(t, pool.QueryRow(ctx, `
		SELECT coalesce(bool_and(has_sequence_privilege($1, c.oid, 'USAGE')), false),
		       has_schema_privilege($1, 'public', 'CREATE')
		  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		 WHERE n.nspname = 'public' AND c.relkind = 'S'`, role).Scan(&sequences, &create))
	require.True(t, sequences, "USAGE on every sequence")
	require.False(t, create, "no DDL in the schema")
}

func TestGrantTablesToAMissingRoleFails(t *testing.T) {
	t.Parallel()
	pool := pgtest.New(t)
	err := database.GrantTables(context.Background(), pool, "no_such_role_lexora")
	require.ErrorContains(t, err, "grant tables to no_such_role_lexora")
}
