package functions

import (
	"net/http"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/lexora-app/lexora/pkg/platform/httpx"
)

var tracer = otel.Tracer("github.com/lexora-app/lexora/functions")

// cors lets the web client's origin, and no other, call the functions from a
// browser: it answers a preflight (OPTIONS) itself and reports true, or adds
// the CORS headers to the actual response and reports false. The response
// headers the client reads are exposed: Idempotent-Replayed, Retry-After,
// and Date, from which the client learns how far its device clock is off
// the server's (a rating's reviewed_at is corrected by it).
func cors(w http.ResponseWriter, r *http.Request, allowed string) bool {
	origin := r.Header.Get("Origin")
	w.Header().Add("Vary", "Origin")
	if origin == "" || allowed == "" || origin != allowed {
		if r.Method == http.MethodOptions && origin != "" {
			httpx.WriteProblem(w, forbiddenOrigin())
			return true
		}
		return false
	}
	h := w.Header()
	h.Set("Access-Control-Allow-Origin", origin)
	h.Set("Access-Control-Expose-Headers", "Date, Idempotent-Replayed, Retry-After")
	if r.Method != http.MethodOptions {
		return false
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key, traceparent")
	h.Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
	return true
}

// traced continues the caller's W3C trace context (the traceparent header,
// which Cloud Run and browsers' instrumentation send) in a server span named
// after the function. Events enqueued during the request carry that span's
// context, so their deliveries join the same trace.
func traced(name string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx := propagation.TraceContext{}.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
		defer span.End()
		h(w, r.WithContext(ctx))
	}
}

// allow answers 405 unless r uses method.
func allow(w http.ResponseWriter, r *http.Request, method string) bool {
	if r.Method == method {
		return true
	}
	w.Header().Set("Allow", method)
	httpx.WriteProblem(w, methodNotAllowed(method))
	return false
}

// decode is the first step of every POST function after caller: it answers
// 400 to a request with query parameters (noQuery: a POST function reads
// none, its input is the body) and a problem to a body that does not decode
// into req (see httpx.DecodeJSON); it reports whether to go on.
func (s *Service) decode(w http.ResponseWriter, r *http.Request, req any) bool {
	return s.decodeUpTo(w, r, req, httpx.MaxBodyBytes)
}

// decodeUpTo is decode for a body of at most maxBytes bytes (413 beyond).
func (s *Service) decodeUpTo(w http.ResponseWriter, r *http.Request, req any, maxBytes int64) bool {
	if !s.noQuery(w, r) {
		return false
	}
	if err := httpx.DecodeJSONUpTo(r, req, maxBytes); err != nil {
		s.fail(w, r, err)
		return false
	}
	return true
}
