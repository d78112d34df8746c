package main

import (
	"context"
	"crypto/rand"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sethvargo/go-envconfig"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/testkit/pgtest"
)

// cloudSQL stands in for a Cloud SQL database in pool: a NOLOGIN role with
// CREATEROLE (cloudsqlsuperuser) that owns the database, and the login
// roles of three workloads (Cloud SQL's IAM database users). It returns
// their names; they are dropped when the test ends.
func cloudSQL(t *testing.T, ctx context.Context, pool *pgxpool.Pool) (admin, function, prune, migrate string) {
	t.Helper()
	suffix := "_" + strings.ToLower(rand.Text()[:10])
	admin, function, prune, migrate = "csu"+suffix, "fn"+suffix, "prune"+suffix, "migrate"+suffix
	_, err := pool.Exec(ctx, "CREATE ROLE "+admin+" NOLOGIN CREATEROLE;"+
		"CREATE ROLE "+function+" LOGIN; CREATE ROLE "+prune+" LOGIN; CREATE ROLE "+migrate+" LOGIN")
	require.NoError(t, err)
	var owner string
	require.NoError(t, pool.QueryRow(ctx, "SELECT format('ALTER DATABASE %I OWNER TO %I', current_database(), $1::text)", admin).Scan(&owner))
	_, err = pool.Exec(ctx, owner)
	require.NoError(t, err)
	t.Cleanup(func() {
		var back string
		require.NoError(t, pool.QueryRow(ctx, "SELECT format('ALTER DATABASE %I OWNER TO postgres', current_database())").Scan(&back))
		_, err := pool.Exec(ctx, back)
		require.NoError(t, err)
		var groups []string
		for _, g := range []string{"app" + suffix, "outbox" + suffix} {
			var exists bool
			require.NoError(t, pool.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", g).Scan(&exists))
			if exists {
				groups = append(groups, g)
			}
		}
		all := strings.Join(append(groups, function, prune, migrate, admin), ", ")
		_, err = pool.Exec(ctx, "DROP OWNED BY "+all+"; DROP ROLE "+all)
		require.NoError(t, err)
	})
	return admin, function, prune, migrate
}

// production is the provisioning terraform/jobs.tf asks for, with the
// stand-in's names.
func production(suffixOf, admin, function, prune, migrate string) roles {
	suffix := strings.TrimPrefix(suffixOf, "csu")
	return roles{
		As: admin,
		Groups: map[string][]string{
			"app" + suffix:    {function, prune},
			"outbox" + suffix: {migrate, prune},
		},
		SchemaCreate: []string{migrate, "outbox" + suffix},
		Settings:     map[string]string{"statement_timeout": "30s", "idle_in_transaction_session_timeout": "60s"},
	}
}

// databaseSettings answers the settings of pool's database for every role
// (ALTER DATABASE … SET), sorted.
func databaseSettings(t *testing.T, ctx context.Context, pool *pgxpool.Pool) []string {
	t.Helper()
	return pgtest.Column[string](t, pool, `
		SELECT s FROM pg_db_role_setting d, unnest(d.setconfig) s
		 WHERE d.setdatabase = (SELECT oid FROM pg_database WHERE datname = current_database()) AND d.setrole = 0
		 ORDER BY s`)
}

// Acting as the Cloud SQL administrator role, the job creates the group
// roles, their memberships, the schema rights and the database's settings;
// run again, and twice at once (two builds), it succeeds and changes
// nothing.
func TestProvisionMakesRolesMembershipsAndSettingsIdempotently(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	admin, function, prune, migrate := cloudSQL(t, ctx, pool)
	r := production(admin, admin, function, prune, migrate)
	app, outbox := "app"+strings.TrimPrefix(admin, "csu"), "outbox"+strings.TrimPrefix(admin, "csu")

	require.NoError(t, r.provision(ctx, pool))
	require.NoError(t, r.provision(ctx, pool), "a second run")
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() { errs[i] = r.provision(ctx, pool) })
	}
	wg.Wait()
	require.NoError(t, errs[0], "two runs at once")
	require.NoError(t, errs[1], "two runs at once")

	for _, c := range []struct {
		member, group string
		want          bool
	}{
		{function, app, true}, {prune, app, true}, {migrate, app, false},
		{migrate, outbox, true}, {prune, outbox, true}, {function, outbox, false},
	} {
		var member bool
		require.NoError(t, pool.QueryRow(ctx, "SELECT pg_has_role($1, $2, 'MEMBER')", c.member, c.group).Scan(&member))
		require.Equal(t, c.want, member, "%s in %s", c.member, c.group)
	}
	for _, g := range []string{app, outbox} {
		var login bool
		require.NoError(t, pool.QueryRow(ctx, "SELECT rolcanlogin FROM pg_roles WHERE rolname = $1", g).Scan(&login))
		require.False(t, login, "%s is a group, not a login", g)
	}
	memberships := pgtest.Column[int64](t, pool, "SELECT count(*) FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles r ON r.oid = m.member WHERE g.rolname IN ('"+app+"', '"+outbox+"') AND r.rolname <> '"+admin+"'")
	require.Equal(t, []int64{4}, memberships, "runs again add no membership")
	administered := pgtest.Column[int64](t, pool, "SELECT count(*) FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles r ON r.oid = m.member WHERE g.rolname IN ('"+app+"', '"+outbox+"') AND r.rolname = '"+admin+"' AND m.admin_option")
	require.Equal(t, []int64{2}, administered, "the acting role administers each group once, however often it runs")
	for _, c := range []struct {
		role, right string
		want        bool
	}{
		{migrate, "CREATE", true}, {outbox, "CREATE", true}, {app, "USAGE", true}, {app, "CREATE", false}, {function, "CREATE", false},
	} {
		var has bool
		require.NoError(t, pool.QueryRow(ctx, "SELECT has_schema_privilege($1, 'public', $2)", c.role, c.right).Scan(&has))
		require.Equal(t, c.want, has, "%s %s on schema public", c.role, c.right)
	}
	require.Equal(t, []string{"idle_in_transaction_session_timeout=60s", "statement_timeout=30s"}, databaseSettings(t, ctx, pool))
	var current string
	require.NoError(t, pool.QueryRow(ctx, "SELECT current_user").Scan(&current))
	require.Equal(t, "postgres", current, "the role is set for the transaction only")
}

// A run that fails part way (a member that does not exist, a setting
// PostgreSQL refuses, an administrator role the job may not act as) makes
// nothing: no role, no membership, no setting.
func TestProvisionThatFailsChangesNothing(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	admin, function, prune, migrate := cloudSQL(t, ctx, pool)
	app := "app" + strings.TrimPrefix(admin, "csu")

	missing := production(admin, admin, function, prune, migrate)
	missing.Groups[app] = append(missing.Groups[app], "nobody"+strings.TrimPrefix(admin, "csu"))
	require.ErrorContains(t, missing.provision(ctx, pool), "grant "+app+" to nobody")

	refused := production(admin, admin, function, prune, migrate)
	refused.Settings["statement_timeout"] = "soon"
	require.ErrorContains(t, refused.provision(ctx, pool), `setting statement_timeout = "soon"`)

	unknown := production(admin, admin, function, prune, migrate)
	unknown.Settings = map[string]string{"no_such_setting": "1"}
	require.ErrorContains(t, unknown.provision(ctx, pool), "setting no_such_setting")

	outsider := production(admin, "nobody"+strings.TrimPrefix(admin, "csu"), function, prune, migrate)
	require.ErrorContains(t, outsider.provision(ctx, pool), "act as nobody")

	groups := pgtest.Column[string](t, pool, "SELECT rolname::text FROM pg_roles WHERE rolname LIKE '%"+strings.TrimPrefix(admin, "csu")+"' AND NOT rolcanlogin AND rolname <> '"+admin+"'")
	require.Empty(t, groups, "no group role was created")
	require.Empty(t, databaseSettings(t, ctx, pool), "no setting was made")
	var create bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT has_schema_privilege($1, 'public', 'CREATE')", migrate).Scan(&create))
	require.False(t, create, "no schema right was given")
}

// PostgreSQL 16's rule, held on 15 too: the acting role (no superuser, only
// CREATEROLE) grants membership only in groups it administers. The groups it
// creates it administers (16 gives the creator ADMIN OPTION; on 15 the job
// takes it), and a group another role made is refused, naming the fix, with
// nothing changed, until that role gives it ADMIN OPTION.
func TestProvisionGrantsOnlyGroupsItAdministers(t *testing.T) {
	ctx, pool := pgtest.Setup(t)
	admin, function, prune, migrate := cloudSQL(t, ctx, pool)
	suffix := strings.TrimPrefix(admin, "csu")
	app, outbox := "app"+suffix, "outbox"+suffix
	var super, createrole bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT rolsuper, rolcreaterole FROM pg_roles WHERE rolname = $1", admin).Scan(&super, &createrole))
	require.False(t, super, "the stand-in for cloudsqlsuperuser is no superuser")
	require.True(t, createrole)

	// A group made by another role (postgres here): PostgreSQL 16 refuses
	// its grants to the acting role, and so does the job, on 15 as well.
	_, err := pool.Exec(ctx, "CREATE ROLE "+app+" NOLOGIN")
	require.NoError(t, err)
	r := production(admin, admin, function, prune, migrate)
	require.ErrorContains(t, r.provision(ctx, pool), "provision: role "+app+" exists but "+admin+" has no ADMIN OPTION on it")
	members := pgtest.Column[int64](t, pool, "SELECT count(*) FROM pg_auth_members m JOIN pg_roles g ON g.oid = m.roleid WHERE g.rolname IN ('"+app+"', '"+outbox+"')")
	require.Equal(t, []int64{0}, members, "nothing granted")
	var outboxExists bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", outbox).Scan(&outboxExists))
	require.False(t, outboxExists, "nothing created")

	_, err = pool.Exec(ctx, "GRANT "+app+" TO "+admin+" WITH ADMIN OPTION")
	require.NoError(t, err)
	require.NoError(t, r.provision(ctx, pool), "once its creator gives the acting role ADMIN OPTION")
	for _, g := range []string{app, outbox} {
		admins := pgtest.Column[bool](t, pool, "SELECT m.admin_option FROM pg_auth_members m WHERE m.roleid = (SELECT oid FROM pg_roles WHERE rolname = '"+g+"') AND m.member = (SELECT oid FROM pg_roles WHERE rolname = '"+admin+"')")
		require.Equal(t, []bool{true}, admins, "the acting role administers %s, as PostgreSQL 16 makes a role's creator", g)
	}
	var member bool
	require.NoError(t, pool.QueryRow(ctx, "SELECT pg_has_role($1, $2, 'MEMBER')", function, app).Scan(&member))
	require.True(t, member)
}

// The job's environment, as terraform/jobs.tf writes it, becomes the
// provisioning; with none of it set (local runs) the job makes nothing.
func TestConfigReadsTheProvisioningFromTheEnvironment(t *testing.T) {
	t.Parallel()
	var cfg config
	require.NoError(t, envconfig.ProcessWith(context.Background(), &envconfig.Config{Target: &cfg, Lookuper: envconfig.MapLookuper(map[string]string{
		"MIGRATE_GRANT_ROLE":        "lexora_app",
		"MIGRATE_OUTBOX_OWNER":      "lexora_outbox_owner",
		"MIGRATE_PROVISION_AS":      "cloudsqlsuperuser",
		"MIGRATE_APP_MEMBERS":       "fn-a@p.iam,job-prune@p.iam,admin@example.com",
		"MIGRATE_OUTBOX_MEMBERS":    "job-migrate@p.iam,job-prune@p.iam",
		"MIGRATE_SCHEMA_CREATE":     "job-migrate@p.iam,lexora_outbox_owner",
		"MIGRATE_DATABASE_SETTINGS": "idle_in_transaction_session_timeout:60s,statement_timeout:30s",
	})}))
	require.Equal(t, roles{
		As: "cloudsqlsuperuser",
		Groups: map[string][]string{
			"lexora_app":          {"fn-a@p.iam", "job-prune@p.iam", "admin@example.com"},
			"lexora_outbox_owner": {"job-migrate@p.iam", "job-prune@p.iam"},
		},
		SchemaCreate: []string{"job-migrate@p.iam", "lexora_outbox_owner"},
		Settings:     map[string]string{"statement_timeout": "30s", "idle_in_transaction_session_timeout": "60s"},
	}, cfg.roles())

	var local config
	require.NoError(t, envconfig.ProcessWith(context.Background(), &envconfig.Config{Target: &local, Lookuper: envconfig.MapLookuper(map[string]string{})}))
	require.True(t, local.roles().empty())
}
