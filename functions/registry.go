package functions

import (
	"maps"
	"net/http"
	"slices"

	"github.com/GoogleCloudPlatform/functions-framework-go/functions"

	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

// Functions maps each function's name, its path locally and its entry
// point on Cloud Run, to its handler.
var Functions = map[string]func(*Service, http.ResponseWriter, *http.Request){
	"Me":                      (*Service).Me,
	"CreateClass":             (*Service).CreateClass,
	"ListClasses":             (*Service).ListClasses,
	"ListDecks":               (*Service).ListDecks,
	"GetClassProgress":        (*Service).GetClassProgress,
	"EnrollLearner":           (*Service).EnrollLearner,
	"CreateAssignment":        (*Service).CreateAssignment,
	"SubmitReview":            (*Service).SubmitReview,
	"UndoReview":              (*Service).UndoReview,
	"StartDeck":               (*Service).StartDeck,
	"GetSchedule":             (*Service).GetSchedule,
	"GetProgress":             (*Service).GetProgress,
	"SetDeckRetention":        (*Service).SetDeckRetention,
	"GetDeckWorkload":         (*Service).GetDeckWorkload,
	"RegisterWebhookEndpoint": (*Service).RegisterWebhookEndpoint,
	"ListWebhookEndpoints":    (*Service).ListWebhookEndpoints,
	"RotateWebhookSecret":     (*Service).RotateWebhookSecret,
	"EnableWebhookEndpoint":   (*Service).EnableWebhookEndpoint,
	"DeleteWebhookEndpoint":   (*Service).DeleteWebhookEndpoint,
	"OutboxHealth":            (*Service).OutboxHealth,
	"ListDeadLetters":         (*Service).ListDeadLetters,
	"ReplayDeadLetters":       (*Service).ReplayDeadLetters,
	"SkipDeadLetters":         (*Service).SkipDeadLetters,
}

func init() {
	for name, h := range Handlers() {
		functions.HTTP(name, h)
	}
}

// Handlers returns each function's HTTP handler by name (the keys of
// Functions), as the Functions Framework serves it: traced, with CORS, on
// the instance's Service, built from the environment at the first request.
// The local server (functions/cmd/server) mounts them at /<name>.
func Handlers() map[string]http.HandlerFunc {
	hs := make(map[string]http.HandlerFunc, len(Functions))
	for name, fn := range Functions {
		hs[name] = service.serve(name, fn)
	}
	return hs
}

// UnknownPath answers a request for a path that names no function with a
// 404 problem document listing the functions, so that every answer of the
// API is a problem document or a function's own.
func UnknownPath(w http.ResponseWriter, _ *http.Request) {
	httpx.WriteProblem(w, unknownPath(slices.Sorted(maps.Keys(Functions))))
}
