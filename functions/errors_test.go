package functions

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

// The one mapping of errors to problems (WriteError): httpx knows no
// SQLSTATE code, the store classifies them.
func TestWriteErrorHidesInternalsAndMapsOutagesTo503(t *testing.T) {
	t.Parallel()
	write := func(err error) (*httptest.ResponseRecorder, httpx.Problem) {
		rec := httptest.NewRecorder()
		WriteError(rec, httptest.NewRequest(http.MethodGet, "/", nil), slog.New(slog.DiscardHandler), err)
		var p httpx.Problem
		require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
		require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
		return rec, p
	}
	rec, p := write(fmt.Errorf("insert: %w", errors.New(`duplicate key value violates "secret_index"`)))
	require.Equal(t, 500, rec.Code)
	require.NotContains(t, rec.Body.String(), "secret_index")
	require.Equal(t, httpx.TypeInternal, p.Type)

	rec, p = write(fmt.Errorf("load: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}))
	require.Equal(t, 503, rec.Code)
	require.Equal(t, "5", rec.Header().Get("Retry-After"))
	require.Equal(t, httpx.TypeUnavailable, p.Type)

	rec, _ = write(httpx.NotFound("card"))
	require.Equal(t, 404, rec.Code)
	rec, p = write(fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23503", ConstraintName: "cards_lexeme_id_fkey"}))
	require.Equal(t, 422, rec.Code)
	require.NotContains(t, rec.Body.String(), "cards_lexeme_id_fkey")
	require.Equal(t, httpx.TypeUnprocessable, p.Type)
	rec, _ = write(fmt.Errorf("insert: %w", &pgconn.PgError{Code: "23505"}))
	require.Equal(t, 409, rec.Code)
}
