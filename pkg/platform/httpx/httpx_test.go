package httpx

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type body struct {
	Name   string `json:"name" validate:"required,max=5,singleline"`
	Rating *int   `json:"rating" validate:"required,min=1,max=4"`
}

func decode(t *testing.T, contentType, raw string) *Problem {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(raw))
	r.Header.Set("Content-Type", contentType)
	var b body
	err := DecodeJSON(r, &b)
	if err == nil {
		return nil
	}
	var p *Problem
	require.ErrorAs(t, err, &p)
	return p
}

// A body that is not plain UTF-8 JSON, by its Content-Type's charset or
// its Content-Encoding, is a 415, however well-formed the bytes are. The
// 415 for a content coding, and only that one, is written with
// Accept-Encoding: identity (RFC 9110 sections 15.5.16 and 12.5.3).
func TestDecodeJSONRefusesOtherCharsetsAndEncodings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		contentType, encoding string
		status                int
		acceptEncoding        string
	}{
		{"application/json; charset=UTF-8", "", 0, ""},
		{"application/json", "identity", 0, ""},
		{"application/json; charset=iso-8859-1", "", 415, ""},
		{"application/json; charset=utf-16", "", 415, ""},
		{"text/plain", "", 415, ""},
		{"application/json", "gzip", 415, "identity"},
		{"application/json", "br", 415, "identity"},
		{"application/json", "identity, gzip", 415, "identity"},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"name":"ab","rating":2}`))
		r.Header.Set("Content-Type", tc.contentType)
		if tc.encoding != "" {
			r.Header.Set("Content-Encoding", tc.encoding)
		}
		var b body
		err := DecodeJSON(r, &b)
		if tc.status == 0 {
			require.NoError(t, err, "%+v", tc)
			continue
		}
		var p *Problem
		require.ErrorAs(t, err, &p, "%+v", tc)
		require.Equal(t, tc.status, p.Status, "%+v", tc)
		require.Equal(t, TypeUnsupportedMedia, p.Type, "%+v", tc)
		rec := httptest.NewRecorder()
		WriteProblem(rec, p)
		require.Equal(t, tc.acceptEncoding, rec.Header().Get("Accept-Encoding"), "%+v", tc)
		require.Equal(t, 415, rec.Code, "%+v", tc)
	}
}

func TestDecodeJSONExplainsEachMistake(t *testing.T) {
	t.Parallel()
	require.Nil(t, decode(t, "application/json; charset=utf-8", `{"name":"ab","rating":2}`))
	for _, tc := range []struct {
		raw, contentType string
		status           int
		field, reason    string
	}{
		{`{"name":"ab","rating":0}`, "application/json", 400, "rating", "must be at least 1"},
		{`{"name":"ab"}`, "application/json", 400, "rating", "is required"},
		{`{"name":"ab","rating":2.5}`, "application/json", 400, "rating", "must be a JSON integer in range"},
		{`{"name":7,"rating":2}`, "application/json", 400, "name", "must be a JSON string"},
		{`{"name":"abcdefgh","rating":2}`, "application/json", 400, "name", "must be at most 5 characters"},
		{`{"name":"a\r\nb","rating":2}`, "application/json", 400, "name", "must be one line of visible text: U+000D (a control character) is not allowed"},
		{`{"name":"a\u2028b","rating":2}`, "application/json", 400, "name", "must be one line of visible text: U+2028 LINE SEPARATOR is not allowed"},
		{`{"name":"\u202eab","rating":2}`, "application/json", 400, "name", "must be one line of visible text: U+202E RIGHT-TO-LEFT OVERRIDE is not allowed"},
		{`{"name":"ab\u200c","rating":2}`, "application/json", 400, "name", "U+200C ZERO WIDTH NON-JOINER may only stand between two visible characters"},
		{`{"name":"   ","rating":2}`, "application/json", 400, "name", "must not be only white space"},
		{`[{"name":"ab","rating":2}]`, "application/json", 400, BodyField, "must be a JSON object"},
		{`"ab"`, "application/json", 400, BodyField, "must be a JSON object"},
		{`null`, "application/json", 400, BodyField, "must be a JSON object"},
		{`{"name":"ab","rating":2,"extra":1}`, "application/json", 400, "extra", "unknown field"},
		{`{"Name":"ab","rating":2}`, "application/json", 400, "Name", "unknown field (names are case-sensitive)"},
		{`{"name":"ab","rating":2,"rating":3}`, "application/json", 400, "rating", "given more than once"},
		{`{"name":"ab","rating":null}`, "application/json", 400, "rating", "must not be null: give a value, or leave the field out"},
		{`{"name":"","rating":2}`, "application/json", 400, "name", "must not be empty: give a value, or leave the field out"},
		{`{"name":[ ],"rating":2}`, "application/json", 400, "name", "must be a JSON string"},
		{`{"name":"ab",`, "application/json", 400, "", ""},
		{`{"name":"ab","rating":2} {}`, "application/json", 400, "", ""},
		{``, "application/json", 400, "", ""},
		{`{"name":"a\u0000b","rating":2}`, "application/json", 400, "", ""},
		{`{"name":"ab","rating":2}`, "text/plain", 415, "", ""},
		{`{"name":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, "application/json", 413, "", ""},
	} {
		name := tc.contentType + " " + tc.raw
		if len(name) > 60 {
			name = name[:60] + "..."
		}
		t.Run(name, func(t *testing.T) {
			p := decode(t, tc.contentType, tc.raw)
			require.NotNil(t, p, tc.raw)
			require.Equal(t, tc.status, p.Status, tc.raw)
			if tc.field != "" {
				require.Equal(t, []FieldError{{Field: tc.field, Reason: tc.reason}}, p.Errors, tc.raw)
			}
		})
	}
}

// A field given as null, "" or [] is refused, each named, rather than read
// as the field left out (which would take the field's default).
func TestDecodeJSONRefusesFieldsWithoutAValue(t *testing.T) {
	t.Parallel()
	type filter struct {
		Topic string  `json:"topic"`
		IDs   []int64 `json:"ids"`
		All   bool    `json:"all"`
	}
	for raw, want := range map[string][]FieldError{
		`{"topic":"","ids":[ ],"all":null}`: {{Field: "topic", Reason: "must not be empty: give a value, or leave the field out"},
			{Field: "ids", Reason: "must not be empty: give at least one item, or leave the field out"},
			{Field: "all", Reason: "must not be null: give a value, or leave the field out"}},
		`{"ids":[1],"topic":" "}`: nil,
		`{}`:                      nil,
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(raw))
		r.Header.Set("Content-Type", "application/json")
		err := DecodeJSON(r, &filter{})
		if want == nil {
			require.NoError(t, err, raw)
			continue
		}
		var p *Problem
		require.ErrorAs(t, err, &p, raw)
		require.Equal(t, http.StatusBadRequest, p.Status)
		require.Equal(t, want, p.Errors, raw)
	}
}
