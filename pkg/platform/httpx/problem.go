// Package httpx holds what every Lexora HTTP function shares: strict JSON
// decoding and validation (go-playground/validator/v10), RFC 9457 problem
// documents for errors, and JSON responses.
package httpx

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"maps"
	"net/http"
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
	// TypeNoAccount: a valid sign-in whose identity has no Lexora account
	// yet (Me answers it, with 404, so that the client can offer the way in).
	TypeNoAccount = "https://lexora.app/problems/no-account"
	// TypeWebhookURLTaken: the teacher has an active webhook endpoint at
	// that URL already (409; RegisterWebhookEndpoint, EnableWebhookEndpoint).
	TypeWebhookURLTaken = "https://lexora.app/problems/webhook-url-taken"
	// TypeEmailOfTeacher: a teacher tried to add a teacher's email as a
	// learner (409; EnrollLearner).
	TypeEmailOfTeacher = "https://lexora.app/problems/email-belongs-to-teacher"
	// TypeTeacherCannotJoin: a teacher gave a join code; only learners join
	// classes (403; EnrollLearner).
	TypeTeacherCannotJoin = "https://lexora.app/problems/teacher-cannot-join"
	// TypeEmailLookalike: a new account's email looks like another
	// account's address (one UTS #39 skeleton; 409, naming the field email;
	// EnrollLearner, CreateClass).
	TypeEmailLookalike = "https://lexora.app/problems/email-lookalike"
	// TypeStaleVersion: a deck or an entry changed since the version the
	// edit was based on; nothing was written (409; UpdateDeck,
	// EditDeckEntries, ReorderDeckEntries, ImportDeckEntries).
	TypeStaleVersion = "https://lexora.app/problems/stale-version"
	// TypeDeckInUse: a deck a learner has or had cannot be deleted (409;
	// DeleteDeck): archive it.
	TypeDeckInUse = "https://lexora.app/problems/deck-in-use"
	// TypeImportRefused: lines of a list to import are refused, one
	// FieldError per refusal naming its line and field (400;
	// ImportDeckEntries).
	TypeImportRefused = "https://lexora.app/problems/import-refused"
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
	// header holds response header fields that WriteProblem sends besides
	// its own (Accept-Encoding on the 415 for a content coding); nil for
	// most problems.
	header http.Header
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

// WriteProblem writes p as application/problem+json, with the header
// fields p carries (mediaProblem's Accept-Encoding).
func WriteProblem(w http.ResponseWriter, p *Problem) {
	maps.Copy(w.Header(), p.header)
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

// WriteError writes err as a problem document: a *Problem as it is; an
// error wrapping ErrUnavailable as 503 with Retry-After; anything else as a
// 500. The detail of both is logged (as an ERROR, or as an INFO when the
// client has gone: its context is canceled), not shown to the client: no SQL or
// stack trace reaches it. It knows nothing of the database: the caller maps
// the store's errors to problems first.
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	if p, ok := err.(*Problem); ok {
		WriteProblem(w, p)
		return
	}
	if errors.Is(r.Context().Err(), context.Canceled) {
		// The client went away (a closed tab, a navigation, a timeout of
		// its own): whatever failed failed because of that, and nobody
		// reads the answer. Not an ERROR, which pages someone.
		log.InfoContext(r.Context(), "request abandoned by the client", slog.String("path", r.URL.Path),
			slog.String("error", err.Error()))
	} else {
		log.ErrorContext(r.Context(), "request failed", slog.String("path", r.URL.Path), slog.String("error", err.Error()))
	}
	if errors.Is(err, ErrUnavailable) {
		w.Header().Set("Retry-After", "5")
		WriteProblem(w, NewProblem(http.StatusServiceUnavailable, TypeUnavailable, "Service unavailable",
			"the database cannot be reached; retry in a few seconds"))
		return
	}
	WriteProblem(w, NewProblem(http.StatusInternalServerError, TypeInternal, "Internal error",
		"the request could not be completed"))
}

// ErrUnavailable marks an error that means a dependency (the database)
// could not be reached or went away: WriteError answers it 503 with
// Retry-After. The caller decides what is unavailable (for the database:
// store.Classify).
var ErrUnavailable = errors.New("service unavailable")

// WriteJSON writes v as JSON with the given status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
