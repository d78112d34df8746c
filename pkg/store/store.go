// Package store is the home of Lexora's application SQL. Each aggregate's
// statements are one file of pkg/store/queries (activity, assignment, card,
// class, deck, feed, mail, progress, reminder, user, webhook), compiled by sqlc
// v1.31.1 against the migrations in schema/ (see sqlc.yaml at the
// repository root) into the <aggregate>.sql.go beside this file: methods of
// Queries, which runs each statement on the DBTX it was made with
// (On(tx): the caller's pgx.Tx or pool). Card states, ratings and roles are
// the product's own types (learning.State, learning.Rating, account.Role),
// never literals. The event core's statements stay hand-tuned in
// pkg/outbox.
//
// This file holds the one reading of PostgreSQL's errors (SQLSTATE codes,
// by github.com/jackc/pgerrcode, and pgx.ErrNoRows) as errors the rest of
// the product can test with errors.Is, so that nothing above the store
// layer knows a SQLSTATE code or pgx's no-row error: every statement run
// through On answers its error classified (Classify).
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/jackc/pgerrcode"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// On returns the queries run on db (the caller's pgx.Tx, or a pool), each
// answering its error classified: a statement of one row that matched none
// answers an error wrapping ErrNotFound, a refused write ErrDuplicate or
// ErrInvalidData (see Classify). The generated New answers the driver's
// errors as they are; code outside this package uses On.
func On(db DBTX) *Queries {
	return New(classifying{db}) //nolint:forbidigo // the one use of the generated New: wrapped
}

// classifying is a DBTX that classifies the errors of the DBTX it wraps.
type classifying struct{ db DBTX }

func (c classifying) Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error) {
	tag, err := c.db.Exec(ctx, sql, args...)
	return tag, Classify(err)
}

func (c classifying) Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error) {
	rows, err := c.db.Query(ctx, sql, args...)
	if err != nil {
		return rows, Classify(err)
	}
	return classifiedRows{rows}, nil
}

func (c classifying) QueryRow(ctx context.Context, sql string, args ...any) pgx.Row {
	return classifiedRow{c.db.QueryRow(ctx, sql, args...)}
}

// classifiedRow and classifiedRows classify the errors of their Scan (and
// Err): where a statement's error surfaces in pgx.
type classifiedRow struct{ row pgx.Row }

func (r classifiedRow) Scan(dest ...any) error { return Classify(r.row.Scan(dest...)) }

type classifiedRows struct{ pgx.Rows }

func (r classifiedRows) Scan(dest ...any) error { return Classify(r.Rows.Scan(dest...)) }

func (r classifiedRows) Err() error { return Classify(r.Rows.Err()) }

// The errors Classify returns, each wrapping the database's own error.
var (
	// ErrNotFound: the statement matched no row (pgx.ErrNoRows).
	ErrNotFound = errors.New("no such row")
	// ErrDuplicate: a unique constraint refused the write (23505).
	ErrDuplicate = errors.New("duplicate row")
	// ErrInvalidData: a foreign key, check, length, range or format rule of
	// the data refused the write (23503, 23514, 22001, 22003, 22007, 22008,
	// 22P02).
	ErrInvalidData = errors.New("data rule broken")
	// ErrUnavailable: the database could not be reached or went away
	// (connection errors, timeouts, SQLSTATE classes 08 and 57P).
	ErrUnavailable = errors.New("database unavailable")
)

// Classify returns err wrapped with the error above it matches, or err
// unchanged (nil for nil). errors.Is(Classify(err), ErrNotFound) and
// errors.As for the driver's error both keep working.
func Classify(err error) error {
	if err == nil {
		return nil
	}
	var kind error
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	var netErr net.Error
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		kind = ErrNotFound
	case errors.As(err, &pgErr):
		kind = classifyCode(pgErr.Code)
	case errors.As(err, &connErr), errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), pgconn.Timeout(err):
		kind = ErrUnavailable
	}
	if kind == nil || errors.Is(err, kind) {
		return err
	}
	return fmt.Errorf("%w: %w", kind, err)
}

func classifyCode(code string) error {
	switch {
	case code == pgerrcode.UniqueViolation:
		return ErrDuplicate
	case code == pgerrcode.ForeignKeyViolation, code == pgerrcode.CheckViolation,
		code == pgerrcode.StringDataRightTruncationDataException, code == pgerrcode.NumericValueOutOfRange,
		code == pgerrcode.InvalidDatetimeFormat, code == pgerrcode.DatetimeFieldOverflow,
		code == pgerrcode.InvalidTextRepresentation:
		return ErrInvalidData
	case pgerrcode.IsConnectionException(code), code == pgerrcode.AdminShutdown, code == pgerrcode.CrashShutdown,
		code == pgerrcode.CannotConnectNow, code == pgerrcode.DatabaseDropped, code == pgerrcode.IdleSessionTimeout:
		return ErrUnavailable
	}
	return nil
}
