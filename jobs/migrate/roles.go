package main

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// roles is what the migrate job makes in the database before it migrates:
// the workloads' group roles, their memberships, the schema rights and the
// database's settings. On Cloud SQL, Terraform sets each field from the
// workloads' database users (terraform/jobs.tf), and the instance denies the
// Data API, so no other path exists for this SQL.
type roles struct {
	// As is the role the statements run as (SET LOCAL ROLE): on Cloud SQL
	// cloudsqlsuperuser, of which the migrate job's IAM user is a member
	// (terraform/sql.tf). Its attributes (CREATEROLE) are not inherited by
	// its members, so the job must act as it. Empty runs them as the
	// session's user.
	//
	// On PostgreSQL 16 CREATEROLE no longer lets a role grant membership in
	// any role: it needs ADMIN OPTION on the group, which the creator of a
	// role gets automatically. So the job grants only groups it administers:
	// one it creates (on 15, where the creator gets nothing, it gives itself
	// ADMIN OPTION, which 15's CREATEROLE allows), or one it was given ADMIN
	// OPTION on; a group made by another role is an error naming it, on 15
	// as on 16.
	As string
	// Groups maps each group role (NOLOGIN, created when missing, e.g.
	// lexora_app) to the login roles granted membership in it. A member
	// must exist: Cloud SQL creates them from the IAM database users.
	Groups map[string][]string
	// SchemaCreate are the roles given USAGE and CREATE on schema public
	// (the migrate job's user, which owns the tables, and
	// lexora_outbox_owner, which is given the outbox tables); every group
	// role gets USAGE.
	SchemaCreate []string
	// Settings are the database's settings (ALTER DATABASE … SET name =
	// value, e.g. statement_timeout 30s): the floor under what the code
	// sets at connect. A name or value PostgreSQL refuses is an error.
	Settings map[string]string
}

// provisionLock is the advisory lock key that keeps two migrate jobs'
// provisioning apart (their CREATE ROLE and GRANT would otherwise collide);
// goose's own lock covers only the migration.
const provisionLock = 0x6c65786f72610001

// empty answers whether r makes nothing (local runs and tests, where
// everything connects as postgres).
func (r roles) empty() bool {
	return len(r.Groups) == 0 && len(r.SchemaCreate) == 0 && len(r.Settings) == 0
}

// administers answers whether the current role may grant membership in
// group under PostgreSQL 16's rule, the same on 15 and 16: it is a
// superuser (local runs, as postgres), or holds ADMIN OPTION on group
// directly (pg_auth_members).
func administers(ctx context.Context, tx pgx.Tx, group string) (bool, error) {
	var admin bool
	err := tx.QueryRow(ctx, `SELECT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)
		OR EXISTS (SELECT FROM pg_auth_members m
		 WHERE m.roleid = (SELECT oid FROM pg_roles WHERE rolname = $1)
		   AND m.member = (SELECT oid FROM pg_roles WHERE rolname = current_user)
		   AND m.admin_option)`, group).Scan(&admin)
	if err != nil {
		return false, fmt.Errorf("provision: admin option on %s: %w", group, err)
	}
	return admin, nil
}

// provision makes r in pool's database in one transaction, so a run that
// fails (a missing member, a refused setting, missing rights) changes
// nothing. It is idempotent: a role that exists is kept, and a membership,
// right or setting given again stays as it is. It returns the first
// statement's error, naming what it was for.
func (r roles) provision(ctx context.Context, pool *pgxpool.Pool) error {
	return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(provisionLock)); err != nil {
			return fmt.Errorf("provision: lock: %w", err)
		}
		if r.As != "" {
			if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{r.As}.Sanitize()); err != nil {
				return fmt.Errorf("provision: act as %s: %w", r.As, err)
			}
		}
		for _, group := range slices.Sorted(maps.Keys(r.Groups)) {
			if err := provisionGroup(ctx, tx, group, r.Groups[group]); err != nil {
				return err
			}
		}
		for _, role := range r.SchemaCreate {
			if _, err := tx.Exec(ctx, "GRANT USAGE, CREATE ON SCHEMA public TO "+pgx.Identifier{role}.Sanitize()); err != nil {
				return fmt.Errorf("provision: schema create for %s: %w", role, err)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(r.Settings)) {
			// A utility statement takes no parameters: PostgreSQL's format
			// quotes the setting's name and value.
			var stmt string
			if err := tx.QueryRow(ctx, "SELECT format('ALTER DATABASE %I SET %I = %L', current_database(), $1::text, $2::text)",
				name, r.Settings[name]).Scan(&stmt); err != nil {
				return fmt.Errorf("provision: setting %s: %w", name, err)
			}
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("provision: setting %s = %q: %w", name, r.Settings[name], err)
			}
		}
		return nil
	})
}

// provisionGroup makes the NOLOGIN role group in tx unless it exists,
// makes sure the acting role administers it (PostgreSQL 16 grants only
// roles one holds ADMIN OPTION on), gives it USAGE on schema public, and
// grants it to members. An existing group made by another role is an
// error naming the GRANT that mends it.
func provisionGroup(ctx context.Context, tx pgx.Tx, group string, members []string) error {
	g := pgx.Identifier{group}.Sanitize()
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", group).Scan(&exists); err != nil {
		return fmt.Errorf("provision: look up role %s: %w", group, err)
	}
	if !exists {
		if _, err := tx.Exec(ctx, "CREATE ROLE "+g+" NOLOGIN"); err != nil {
			return fmt.Errorf("provision: create role %s: %w", group, err)
		}
	}
	admin, err := administers(ctx, tx, group)
	if err != nil {
		return err
	}
	if !admin && !exists {
		// PostgreSQL 15: the creator is not made a member.
		if _, err := tx.Exec(ctx, "GRANT "+g+" TO CURRENT_USER WITH ADMIN OPTION"); err != nil {
			return fmt.Errorf("provision: administer role %s: %w", group, err)
		}
	} else if !admin {
		var creator string
		if err := tx.QueryRow(ctx, "SELECT current_user").Scan(&creator); err != nil {
			return fmt.Errorf("provision: current user: %w", err)
		}
		return fmt.Errorf("provision: role %s exists but %s has no ADMIN OPTION on it (it was made by another role), so PostgreSQL 16 refuses its grants: GRANT %s TO %s WITH ADMIN OPTION as its creator, or drop it", group, creator, group, creator)
	}
	if _, err := tx.Exec(ctx, "GRANT USAGE ON SCHEMA public TO "+g); err != nil {
		return fmt.Errorf("provision: schema usage for %s: %w", group, err)
	}
	for _, member := range members {
		if _, err := tx.Exec(ctx, "GRANT "+g+" TO "+pgx.Identifier{member}.Sanitize()); err != nil {
			return fmt.Errorf("provision: grant %s to %s: %w", group, member, err)
		}
	}
	return nil
}
