// Package idempotency stores the responses of requests made with an
// Idempotency-Key, so that a client retrying over a bad network gets the
// first response back instead of a second effect.
//
// Begin is the first statement of the request's transaction: it inserts the
// (scope, key) record, or finds the one a previous request committed. A
// concurrent duplicate blocks on the record's unique index until the first
// transaction ends, then sees its response (or, if it rolled back, goes
// ahead itself). Finish stores the response in the same transaction, so the
// state, the events and the stored response commit together. Keys expire
// after Retention (Prune, run by jobs/prune).
//
// Its four statements are written here, beside the Go that relies on them,
// as pkg/outbox's are, and not in pkg/store: idempotency_keys is the keyed
// write's own table, shared by every function and part of no aggregate, and
// Begin is correct only through one statement's locking (the insert that
// waits on the unique index for a concurrent duplicate), said where it runs;
// Prune deletes by ctid in batches, as outbox.Prune does.
package idempotency

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Retention is how long a key is remembered.
const Retention = 24 * time.Hour

// ErrMismatch is returned by Begin when the key was used before with a
// different request.
var ErrMismatch = errors.New("idempotency key reused with a different request")

// Response is a stored response.
type Response struct {
	Status int
	Body   []byte
}

// Hash returns the SHA-256 of req encoded as JSON: the request's identity.
func Hash(req any) ([]byte, error) {
	b, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("hash request: %w", err)
	}
	h := sha256.Sum256(b)
	return h[:], nil
}

// Begin records (scope, key) for a request whose identity is hash, in tx.
// It returns nil when this request is the first with the key (the caller
// goes on and calls Finish), the stored response when a previous request
// with the same key and hash committed, and ErrMismatch when the hash
// differs.
func Begin(ctx context.Context, tx pgx.Tx, scope, key string, hash []byte) (*Response, error) {
	// A concurrent request with the same key waits here, on the unique
	// index, until the first one's transaction ends: then it finds the
	// committed record (and reads its response), or inserts its own.
	tag, err := tx.Exec(ctx, `INSERT INTO idempotency_keys (scope, key, request_hash) VALUES ($1, $2, $3)
		ON CONFLICT (scope, key) DO NOTHING`, scope, key, hash)
	if err != nil {
		return nil, fmt.Errorf("record idempotency key: %w", err)
	}
	if tag.RowsAffected() == 1 {
		return nil, nil //nolint:nilnil // no stored response: the documented "first with the key"
	}
	var stored []byte
	var r Response
	if err := tx.QueryRow(ctx, "SELECT request_hash, status, response FROM idempotency_keys WHERE scope = $1 AND key = $2",
		scope, key).Scan(&stored, &r.Status, &r.Body); err != nil {
		return nil, fmt.Errorf("load idempotency key: %w", err)
	}
	if !bytes.Equal(stored, hash) {
		return nil, ErrMismatch
	}
	return &r, nil
}

// Finish stores the response of the request that Begin let through.
func Finish(ctx context.Context, tx pgx.Tx, scope, key string, r Response) error {
	if _, err := tx.Exec(ctx, "UPDATE idempotency_keys SET status = $3, response = $4 WHERE scope = $1 AND key = $2",
		scope, key, r.Status, r.Body); err != nil {
		return fmt.Errorf("store idempotent response: %w", err)
	}
	return nil
}

// Prune deletes keys older than Retention in batches of batch rows, until
// none is left, and returns how many it deleted.
func Prune(ctx context.Context, pool *pgxpool.Pool, batch int) (int64, error) {
	var total int64
	for {
		tag, err := pool.Exec(ctx, `DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(
			SELECT ctid FROM idempotency_keys WHERE created_at < now() - make_interval(secs => $1) LIMIT $2))`,
			Retention.Seconds(), batch)
		if err != nil {
			return total, fmt.Errorf("prune idempotency keys: %w", err)
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < int64(batch) {
			return total, nil
		}
	}
}
