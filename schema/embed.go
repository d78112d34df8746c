// Package schema holds Lexora's versioned PostgreSQL migrations, embedded so
// that every binary carries the schema it was built against.
//
// Files are goose migrations (github.com/pressly/goose/v3) named
// NNNNN_description.sql; each has an Up and a Down section. Apply them with
// the jobs/migrate binary or with Migrate from pkg/platform/database.
package schema

import "embed"

// FS is the embedded set of migration files, at its root.
//
//go:embed *.sql
var FS embed.FS
