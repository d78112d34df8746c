package functions

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

// me GETs target from Me with a token for subject and email (verified when
// not empty); no token when subject is empty.
func (f fixture) me(t *testing.T, method, target, subject, email string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	if subject != "" {
		tok, err := auth.DevToken("lexora-dev", subject, email, time.Hour)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	rec := httptest.NewRecorder()
	f.svc.Me(rec, req)
	var body map[string]any
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &body), rec.Body.String())
	return rec.Code, body
}

func TestMeAnswersTheCallersAccountAndClasses(t *testing.T) {
	ctx, f := setup(t)
	var class uuid.UUID
	require.NoError(t, f.pool.QueryRow(ctx, "UPDATE classes SET join_code = 'DEMO2026' WHERE teacher_id = $1 RETURNING id", f.teacher).Scan(&class))
	op := f.operator(t)
	// The learner is in a second class, of the other teacher.
	_, err := f.pool.Exec(ctx, `INSERT INTO class_members (class_id, learner_id, joined_at)
		SELECT id, $2, now() + interval '1 hour' FROM classes WHERE teacher_id = $1`, f.otherTeacher, f.learner)
	require.NoError(t, err)

	code, body := f.me(t, http.MethodGet, "/Me", f.learner.String(), "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, f.learner.String(), body["id"])
	require.Equal(t, "l@example.com", body["display_name"])
	require.Equal(t, "l@example.com", body["email"])
	require.Equal(t, []any{"learner"}, body["roles"])
	require.Equal(t, "Europe/Paris", body["timezone"])
	require.Equal(t, []any{}, body["teaching"])
	classes := body["classes"].([]any)
	require.Len(t, classes, 2)
	require.Equal(t, class.String(), classes[0].(map[string]any)["id"], "by join date")
	require.Equal(t, "A", classes[0].(map[string]any)["name"])
	require.Equal(t, "t@example.com", classes[0].(map[string]any)["teacher_name"])
	require.Equal(t, "t2@example.com", classes[1].(map[string]any)["teacher_name"])

	code, body = f.me(t, http.MethodGet, "/Me", f.teacher.String(), "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{"teacher"}, body["roles"])
	require.Equal(t, []any{}, body["classes"])
	require.Equal(t, []any{map[string]any{"id": class.String(), "name": "A", "join_code": "DEMO2026", "members": 1.0}}, body["teaching"])

	code, body = f.me(t, http.MethodGet, "/Me", op.String(), "")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{"operator"}, body["roles"])
	require.Equal(t, []any{}, body["classes"])
	require.Equal(t, []any{}, body["teaching"])

	// A learner added by email signs in for the first time: Me links the
	// sign-in to the account, as every function does.
	_, err = f.pool.Exec(ctx, "UPDATE users SET auth_subject = NULL WHERE id = $1", f.otherLearner)
	require.NoError(t, err)
	code, body = f.me(t, http.MethodGet, "/Me", "first-sign-in", "L2@example.com")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, f.otherLearner.String(), body["id"])
}

// An identity without an account gets 404 no-account (not 401: the client
// keeps the sign-in and offers the way in), and Me creates nothing.
func TestMeTellsAnIdentityWithoutAccountWhatToDo(t *testing.T) {
	_, f := setup(t)
	before := f.accounts(t)
	code, body := f.me(t, http.MethodGet, "/Me", "cleo-uid", "cleo@example.com")
	require.Equal(t, http.StatusNotFound, code, body)
	require.Equal(t, httpx.TypeNoAccount, body["type"])
	require.Equal(t, "No Lexora account", body["title"])
	require.Contains(t, body["detail"], "creating a class (CreateClass) makes it a teacher")

	code, body = f.me(t, http.MethodGet, "/Me", "anonymous-uid", "")
	require.Equal(t, http.StatusNotFound, code, body)
	require.Equal(t, httpx.TypeNoAccount, body["type"])
	require.Contains(t, body["detail"], "no verified email")

	code, body = f.me(t, http.MethodGet, "/Me", "", "")
	require.Equal(t, http.StatusUnauthorized, code, body)
	code, _ = f.me(t, http.MethodPost, "/Me", f.learner.String(), "")
	require.Equal(t, http.StatusMethodNotAllowed, code)
	code, body = f.me(t, http.MethodGet, "/Me?learner_id="+f.otherLearner.String(), f.learner.String(), "")
	require.Equal(t, http.StatusBadRequest, code, body)
	require.Equal(t, before, f.accounts(t), "Me creates no account")

	// The newcomer becomes a teacher with a class; Me then answers it.
	created := f.signedIn(t, "cleo-uid", "cleo@example.com", "", `{"name":"Morning class"}`)
	require.Equal(t, http.StatusCreated, created.Code, created.Body.String())
	code, body = f.me(t, http.MethodGet, "/Me", "cleo-uid", "cleo@example.com")
	require.Equal(t, http.StatusOK, code, body)
	require.Equal(t, []any{"teacher"}, body["roles"])
	require.Len(t, body["teaching"], 1)
}
