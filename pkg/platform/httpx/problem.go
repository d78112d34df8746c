// Package httpx holds what every Lexora HTTP function shares: strict JSON
// decoding and validation (go-playground/validator/v10), RFC 9457 problem
// documents for errors, and JSON responses.
package httpx

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Problem type URIs. They are stable: clients may switch on them.
const (
	TypeBadRequest          = "https://lexora.app/problems/bad-request"
	TypeValidation          = "https://lexora.app/problems/validation-failed"
	TypeUnauthenticated     = "https://lexora.app/problems/unauthenticated"
	TypeNotFound            = "https://lexora.app/problems/not-found"
	TypeConflict            = "https://lexora.app/problems/conflict"
	TypeMethodNotAllowed    = "https://lexora.app/problems/method-not-allowed"
	TypeUnsupportedMedia    = "https://lexora.app/problems/unsupported-media-type"
	TypeInternal            = "https://lexora.app/problems/internal"
	TypeRequestTooLarge     = "https://lexora.app/problems/request-too-large"
	TypeUnavailable         = "https://lexora.app/problems/unavailable"
	TypeIdempotencyMismatch = "https://lexora.app/problems/idempotency-key-mismatch"
	TypeUnprocessable       = "https://lexora.app/problems/unprocessable"
	TypeForbiddenOrigin     = "https://lexora.app/problems/forbidden-origin"
)

// FieldError names one invalid field of a request, by its JSON name.
type FieldError struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// Problem is an RFC 9457 problem document. It is also an error, so request
// code can return it and have it written as is.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`
}

func (p *Problem) Error() string {
	if p.Detail != "" {
		return p.Title + ": " + p.Detail
	}
	return p.Title
}

// NewProblem returns a problem with the given status, type and title, and
// an optional detail.
func NewProblem(status int, typ, title, detail string) *Problem {
	return &Problem{Type: typ, Title: title, Status: status, Detail: detail}
}

// NotFound is the problem for a resource that does not exist or that the
// caller may not see: both answer the same, so ids cannot be probed.
func NotFound(what string) *Problem {
	return NewProblem(http.StatusNotFound, TypeNotFound, "Not found", what+" not found")
}

// WriteProblem writes p as application/problem+json.
func WriteProblem(w http.ResponseWriter, p *Problem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// WriteError writes err as a problem document: a *Problem as it is; a
// database error a client can cause as 409 (unique violation) or 422
// (foreign key, check, invalid value); a lost or refused database connection
// as 503 with Retry-After; anything else as a 500 whose detail is logged, not
// shown to the client. No SQL or stack trace reaches the client.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if p, ok := err.(*Problem); ok {
		WriteProblem(w, p)
		return
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		// Errors a client can cause: a conflicting or dangling reference.
		switch pgErr.Code {
		case "23505":
			WriteProblem(w, NewProblem(http.StatusConflict, TypeConflict, "Conflict", "the request conflicts with existing data"))
			return
		case "23503", "23514", "22001", "22003", "22007", "22008", "22P02":
			WriteProblem(w, NewProblem(http.StatusUnprocessableEntity, TypeUnprocessable, "Unprocessable request",
				"the request refers to something that does not exist or breaks a rule of the data"))
			return
		}
	}
	log.ErrorContext(r.Context(), "request failed", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	if unavailable(err) {
		w.Header().Set("Retry-After", "5")
		WriteProblem(w, NewProblem(http.StatusServiceUnavailable, TypeUnavailable, "Service unavailable",
			"the database cannot be reached; retry in a few seconds"))
		return
	}
	WriteProblem(w, NewProblem(http.StatusInternalServerError, TypeInternal, "Internal error",
		"the request could not be completed"))
}

// unavailable reports whether err means the database could not be reached
// or went away (connection exceptions, class 08, and shutdowns, class 57P).
func unavailable(err error) bool {
	var connErr *pgconn.ConnectError
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.As(err, &connErr), errors.As(err, &netErr), errors.Is(err, io.ErrUnexpectedEOF), pgconn.Timeout(err):
		return true
	case errors.As(err, &pgErr):
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P")
	}
	return false
}

// WriteJSON writes v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
