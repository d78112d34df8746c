package functions

import (
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/platform/text"
)

// noQuery answers 400 to a request with query parameters, which a function
// without any does not read; it reports whether to go on.
func (s *Service) noQuery(w http.ResponseWriter, r *http.Request) bool {
	if err := newQueryParams(r).err(); err != nil {
		s.fail(w, r, err)
		return false
	}
	return true
}

// queryParams reads a request's query parameters and collects a field
// error for each malformed one, each one given more than once, and each one
// the function does not read; err reports them all as one 400 problem.
type queryParams struct {
	values url.Values
	read   map[string]bool
	errs   []httpx.FieldError
}

// QueryField is the FieldError.Field of a query string that does not parse.
const QueryField = "(query)"

func newQueryParams(r *http.Request) *queryParams {
	q := &queryParams{read: map[string]bool{}}
	var err error
	if q.values, err = url.ParseQuery(r.URL.RawQuery); err != nil {
		q.invalid(QueryField, "must be a well-formed query string (percent-encoding, no semicolons)")
	}
	return q
}

// get returns the parameter name's value, "" when absent; a parameter given
// more than once is invalid (which one would count is a guess).
func (q *queryParams) get(name string) string {
	q.read[name] = true
	if len(q.values[name]) > 1 {
		q.invalid(name, "must be given once")
		return ""
	}
	return q.values.Get(name)
}

func (q *queryParams) invalid(name, reason string) {
	q.errs = append(q.errs, httpx.FieldError{Field: name, Reason: reason})
}

// int returns the parameter name, def when absent; it must be an integer
// from lo to hi.
func (q *queryParams) int(name string, def, lo, hi int) int {
	raw := q.get(name)
	if raw == "" {
		return def
	}
	n, err := strconv.Atoi(raw)
	if err != nil || n < lo || n > hi {
		q.invalid(name, fmt.Sprintf("must be an integer from %d to %d", lo, hi))
	}
	return n
}

// uuid returns the parameter name, nil when absent; it must be a UUID in
// canonical form (parseUUID).
func (q *queryParams) uuid(name string) *uuid.UUID {
	raw := q.get(name)
	if raw == "" {
		return nil
	}
	id, err := parseUUID(raw)
	if err != nil {
		q.invalid(name, "must be a UUID")
	}
	return &id
}

// requiredUUID is uuid for a parameter that must be given: absent or empty
// it is invalid ("required") and uuid.Nil; given more than once or
// malformed it has only uuid's one error, not "required" as well.
func (q *queryParams) requiredUUID(name string) uuid.UUID {
	id := q.uuid(name)
	if id == nil {
		if len(q.values[name]) <= 1 {
			q.invalid(name, "required")
		}
		return uuid.Nil
	}
	return *id
}

// boolean returns the parameter name, false when absent; it must be true
// or false.
func (q *queryParams) boolean(name string) bool {
	switch raw := q.get(name); raw {
	case "", "false":
		return false
	case "true":
		return true
	}
	q.invalid(name, "must be true or false")
	return false
}

// text returns the parameter name, which must be given: one line of 1 to
// maxRunes characters (text.CheckSingleLine), else invalid and "".
func (q *queryParams) text(name string, maxRunes int) string {
	raw := q.get(name)
	switch {
	case raw == "" && len(q.values[name]) <= 1:
		q.invalid(name, "required")
	case utf8.RuneCountInString(raw) > maxRunes:
		q.invalid(name, fmt.Sprintf("must be at most %d characters", maxRunes))
	case text.CheckSingleLine(raw) != nil:
		q.invalid(name, text.CheckSingleLine(raw).Error())
	default:
		return raw
	}
	return ""
}

// time returns the parameter name, the zero time when absent; it must be
// an RFC 3339 time.
func (q *queryParams) time(name string) time.Time {
	raw := q.get(name)
	if raw == "" {
		return time.Time{}
	}
	t, err := text.ParseTime(raw)
	if err != nil {
		q.invalid(name, "must be an RFC 3339 time")
	}
	return t
}

// err is nil when every parameter given was read once and well-formed, else a 400 problem
// listing the malformed ones.
func (q *queryParams) err() error {
	for _, name := range slices.Sorted(maps.Keys(q.values)) {
		if !q.read[name] {
			q.invalid(name, "unknown parameter")
		}
	}
	if len(q.errs) == 0 {
		return nil
	}
	return invalid("one or more query parameters are invalid", q.errs...)
}
