package httpx

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/lexora-app/lexora/pkg/platform/text"
)

// MaxBodyBytes caps a request body (DecodeJSON; DecodeJSONUpTo takes a
// larger cap for a function whose body is a list or a file).
const MaxBodyBytes = 64 << 10

var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			return ""
		}
		return name
	})
	// singleline: no control, format, line or paragraph separator
	// character but joiners inside text (text.CheckSingleLine, whose message
	// names the character becomes the field error's reason), for every text
	// a user gives that ends up in an email or on another user's screen.
	// rfc3339: a time text.ParseTime takes (offsets -23:59 to +23:59).
	for tag, ok := range map[string]func(string) bool{
		"singleline": text.SingleLine,
		"rfc3339":    func(s string) bool { _, err := text.ParseTime(s); return err == nil },
	} {
		if err := v.RegisterValidation(tag, func(fl validator.FieldLevel) bool { return ok(fl.Field().String()) }); err != nil {
			panic(err)
		}
	}
	return v
}

// DecodeJSON reads one JSON object from r's body into dst and validates it
// with dst's `validate` tags. It returns a *Problem for a body that is not
// plain UTF-8 JSON (415, mediaProblem), a body over MaxBodyBytes (413),
// malformed JSON, a wrong type, an
// unknown field, trailing data or a NUL character in a string (400; the
// database cannot store one), fields given as null, "" or [] (400 with one
// FieldError per field: a field is given a value or left out), and failed
// validation (400 with one FieldError per field).
func DecodeJSON(r *http.Request, dst any) error {
	return DecodeJSONUpTo(r, dst, MaxBodyBytes)
}

// DecodeJSONUpTo is DecodeJSON with a body of at most maxBytes bytes
// instead of MaxBodyBytes (413 beyond).
func DecodeJSONUpTo(r *http.Request, dst any, maxBytes int64) error {
	if p := mediaProblem(r); p != nil {
		return p
	}
	var body bytes.Buffer
	dec := json.NewDecoder(io.TeeReader(http.MaxBytesReader(nil, r.Body, maxBytes), &body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return decodeProblem(err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return NewProblem(http.StatusBadRequest, TypeBadRequest, "Malformed JSON", "the body must hold exactly one JSON object")
	}
	if bytes.Equal(bytes.TrimSpace(body.Bytes()), []byte("null")) {
		return wrongBody("object")
	}
	if p := exactKeys(body.Bytes(), dst); p != nil {
		return p
	}
	if bytes.Contains(bytes.ToLower(body.Bytes()), []byte(`\u0000`)) {
		return NewProblem(http.StatusBadRequest, TypeBadRequest, "Malformed JSON", "strings must not contain NUL characters")
	}
	return Validate(dst)
}

// mediaProblem is the 415 problem of a request whose body is not plain
// UTF-8 JSON, nil for one that is: a Content-Type other than
// application/json; a charset parameter other than utf-8 (any case), since
// JSON exchanged between systems is UTF-8 (RFC 8259 section 8.1) and a body
// in another charset would be misread; a Content-Encoding other than
// identity (gzip, br, ...), since no body is decompressed. The last one
// carries Accept-Encoding: identity, the codings a body may have, as RFC
// 9110 asks of a 415 caused by a content coding (sections 15.5.16 and
// 12.5.3); the others must not carry it (12.5.3).
func mediaProblem(r *http.Request) *Problem {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	charset, hasCharset := params["charset"]
	coding := strings.TrimSpace(strings.Join(r.Header.Values("Content-Encoding"), ","))
	unsupported := func(detail string) *Problem {
		return NewProblem(http.StatusUnsupportedMediaType, TypeUnsupportedMedia, "Unsupported media type", detail)
	}
	switch {
	case err != nil || mt != "application/json":
		return unsupported("send the body as application/json")
	case hasCharset && !strings.EqualFold(charset, "utf-8"):
		return unsupported("send the body in UTF-8: the charset parameter, if any, must be utf-8")
	case coding != "" && !strings.EqualFold(coding, "identity"):
		p := unsupported("send the body uncompressed: no Content-Encoding but identity is accepted")
		p.header = http.Header{"Accept-Encoding": {"identity"}}
		return p
	}
	return nil
}

// BodyField is the FieldError.Field that names the request body itself,
// when the body as a whole is wrong (an array or a string where an object
// belongs).
const BodyField = "(body)"

// wrongBody is the problem of a body that is not a JSON kind.
func wrongBody(kind string) *Problem {
	p := NewProblem(http.StatusBadRequest, TypeValidation, "Invalid request", "the body has the wrong type")
	p.Errors = []FieldError{{Field: BodyField, Reason: "must be a JSON " + kind}}
	return p
}

func decodeProblem(err error) *Problem {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var tooLarge *http.MaxBytesError
	bad := func(detail string) *Problem {
		return NewProblem(http.StatusBadRequest, TypeBadRequest, "Malformed JSON", detail)
	}
	switch {
	case errors.As(err, &tooLarge):
		return NewProblem(http.StatusRequestEntityTooLarge, TypeRequestTooLarge, "Request too large",
			fmt.Sprintf("the body must not exceed %d bytes", tooLarge.Limit))
	case errors.As(err, &syntax):
		return bad(fmt.Sprintf("invalid JSON at byte %d", syntax.Offset))
	case errors.Is(err, io.EOF):
		return bad("the body is empty")
	case errors.Is(err, io.ErrUnexpectedEOF):
		return bad("the body ends in the middle of a JSON value")
	case errors.As(err, &typ) && typ.Field == "":
		return wrongBody(jsonKind(typ.Type))
	case errors.As(err, &typ):
		p := NewProblem(http.StatusBadRequest, TypeValidation, "Invalid request", "a field has the wrong type")
		p.Errors = []FieldError{{Field: typ.Field, Reason: fmt.Sprintf("must be a JSON %s", jsonKind(typ.Type))}}
		return p
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		p := NewProblem(http.StatusBadRequest, TypeValidation, "Invalid request", "the body has a field this function does not accept")
		p.Errors = []FieldError{{Field: field, Reason: "unknown field"}}
		return p
	default:
		return bad(err.Error())
	}
}

func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer in range"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		if t.String() == "time.Time" {
			return "string (RFC 3339 time)"
		}
		return "object"
	case reflect.String:
		return "string"
	default:
		return t.String()
	}
}

// Validate checks v's `validate` tags and returns a 400 *Problem listing
// every failing field by its JSON name, or nil.
func Validate(v any) error {
	err := validate.Struct(v)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return fmt.Errorf("validate request: %w", err)
	}
	p := NewProblem(http.StatusBadRequest, TypeValidation, "Invalid request", "one or more fields are invalid")
	for _, fe := range verrs {
		// The field's path below the body ("change[0].id"), not its name
		// alone ("id"), which a list of objects repeats.
		field := fe.Field()
		if _, path, ok := strings.Cut(fe.Namespace(), "."); ok {
			field = path
		}
		p.Errors = append(p.Errors, FieldError{Field: field, Reason: reason(fe)})
	}
	return p
}

// reason says what a field must be, in words a caller can act on.
func reason(fe validator.FieldError) string {
	unit := ""
	switch fe.Kind() {
	case reflect.String:
		unit = " characters"
	case reflect.Slice:
		unit = " items"
	}
	switch fe.Tag() {
	case "required":
		return "is required"
	case "min":
		return "must be at least " + fe.Param() + unit
	case "max":
		return "must be at most " + fe.Param() + unit
	case "oneof":
		return "must be one of " + fe.Param()
	case "uuid", "uuid4":
		return "must be a UUID"
	case "email":
		return "must be an email address"
	case "timezone":
		return "must be an IANA time zone such as Europe/Berlin"
	case "rfc3339":
		return "must be an RFC 3339 time such as 2026-05-01T18:00:00Z (offsets -23:59 to +23:59)"
	case "alphanum":
		return "must be letters and digits only"
	case "unique":
		return "must not repeat an item"
	case "singleline":
		if s, ok := fe.Value().(string); ok {
			if err := text.CheckSingleLine(s); err != nil {
				return err.Error()
			}
		}
		return "must be one line of visible text"
	case "required_with", "required_without":
		return "is required here (see the function's documentation for which fields go together)"
	case "excluded_with":
		return "must not be sent together with the fields given"
	default:
		return "fails the " + fe.Tag() + " rule"
	}
}

// exactKeys rejects what encoding/json lets through: a top-level key that
// matches a field only when case is ignored ("Rating" for "rating"), a key
// given twice, and a key given without a value (valueless): a field is
// given a value or left out.
func exactKeys(raw []byte, dst any) *Problem {
	t := reflect.TypeOf(dst)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	names := map[string]bool{}
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name == "" {
			name = t.Field(i).Name
		}
		names[name] = true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil // not an object: the typed decode has already said so
	}
	seen := map[string]bool{}
	var empty []FieldError
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		problem := func(reason string) *Problem {
			p := NewProblem(http.StatusBadRequest, TypeValidation, "Invalid request", "the body has a field this function does not accept")
			p.Errors = []FieldError{{Field: key, Reason: reason}}
			return p
		}
		switch {
		case !names[key]:
			return problem("unknown field (names are case-sensitive)")
		case seen[key]:
			return problem("given more than once")
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if reason := valueless(value); reason != "" {
			empty = append(empty, FieldError{Field: key, Reason: reason})
		}
	}
	if empty != nil {
		p := NewProblem(http.StatusBadRequest, TypeValidation, "Invalid request", "one or more fields are given without a value")
		p.Errors = empty
		return p
	}
	return nil
}

// valueless is the reason to refuse a field's JSON value v that is null,
// an empty string or an empty array, "" for any other. Decoded, each of
// them is the field's zero value, which a request reads as the field left
// out: an empty or null learner_id would assign a deck to a whole class,
// an empty topic filter replay every topic's dead letters. Only a field
// left out takes its default.
func valueless(v json.RawMessage) string {
	switch v = bytes.TrimSpace(v); {
	case bytes.Equal(v, []byte("null")):
		return "must not be null: give a value, or leave the field out"
	case bytes.Equal(v, []byte(`""`)):
		return "must not be empty: give a value, or leave the field out"
	case len(v) >= 2 && v[0] == '[' && len(bytes.TrimSpace(v[1:len(v)-1])) == 0:
		return "must not be empty: give at least one item, or leave the field out"
	}
	return ""
}
