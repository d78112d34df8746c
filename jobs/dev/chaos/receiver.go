package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// receiver is the teachers' webhook receiver: one path per endpoint
// (/hook/<name>), each verifying every delivery's signature with the
// Standard Webhooks library against the secrets the teacher was given. It
// logs every request it answers. It can be told to answer 500 to everything
// for a while, and 410 Gone on one endpoint for good.
type receiver struct {
	srv  *http.Server
	base string

	fail500 atomic.Bool

	mu        sync.Mutex
	endpoints map[string]*hookEndpoint
	log       []receipt
}

// hookEndpoint is what the receiver knows of one endpoint.
type hookEndpoint struct {
	secrets  []string // every secret the teacher was given, newest last
	rotating int      // rotations sent and not yet answered
	gone     bool     // answer 410 Gone
}

// receipt is one request the receiver answered.
type receipt struct {
	Endpoint string    // the endpoint's name
	ID       string    // webhook-id: the event id
	Type     string    // the payload's "type"
	At       time.Time // when it was answered
	Status   int       // the answer
	Verified bool      // a signature matched one of the endpoint's secrets
}

func startReceiver() (*receiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{base: "http://" + l.Addr().String(), endpoints: map[string]*hookEndpoint{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook/{name}", r.handle)
	r.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		// Serve ends with http.ErrServerClosed when close is called; any
		// other end leaves the webhooks unanswered, said here.
		if err := r.srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "chaos: webhook receiver:", err)
		}
	}()
	return r, nil
}

// url is endpoint name's URL.
func (r *receiver) url(name string) string { return r.base + "/hook/" + name }

// addSecret records a secret the teacher was given for endpoint name.
func (r *receiver) addSecret(name, secret string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.endpoints[name]; e != nil {
		e.secrets = append(e.secrets, secret)
	}
}

// expect declares endpoint name before its registration is answered:
// deliveries that arrive meanwhile are answered 503 (see rotating) until
// addSecret and rotating(name, -1).
func (r *receiver) expect(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.endpoints[name] = &hookEndpoint{rotating: 1}
}

// rotating marks a rotation of endpoint name as sent (+1) or answered (-1):
// meanwhile a delivery signed only with the unknown new secret is answered
// 503, to be retried, rather than counted as a bad signature.
func (r *receiver) rotating(name string, delta int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.endpoints[name]; e != nil {
		e.rotating += delta
	}
}

// setGone makes endpoint name answer 410 Gone from now on.
func (r *receiver) setGone(name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.endpoints[name]; e != nil {
		e.gone = true
	}
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	name := req.PathValue("name")
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, "read", http.StatusBadRequest)
		return
	}
	var payload struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(body, &payload)
	rc := receipt{Endpoint: name, ID: req.Header.Get("webhook-id"), Type: payload.Type}

	r.mu.Lock()
	e := r.endpoints[name]
	var secrets []string
	rotating := 0
	gone := false
	if e != nil {
		secrets, rotating, gone = append([]string(nil), e.secrets...), e.rotating, e.gone
	}
	r.mu.Unlock()
	for _, s := range secrets {
		wh, err := standardwebhooks.NewWebhook(s)
		if err == nil && wh.Verify(body, req.Header) == nil {
			rc.Verified = true
			break
		}
	}
	switch {
	case !rc.Verified && rotating > 0:
		rc.Status = http.StatusServiceUnavailable
	case !rc.Verified:
		rc.Status = http.StatusUnauthorized
	case gone:
		rc.Status = http.StatusGone
	case r.fail500.Load():
		rc.Status = http.StatusInternalServerError
	default:
		rc.Status = http.StatusNoContent
	}
	w.WriteHeader(rc.Status)
	rc.At = time.Now()
	r.mu.Lock()
	r.log = append(r.log, rc)
	r.mu.Unlock()
}

// secrets returns the secrets the teacher was given for endpoint name, oldest first.
func (r *receiver) secrets(name string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.endpoints[name]; e != nil {
		return append([]string(nil), e.secrets...)
	}
	return nil
}

// receipts returns a copy of the log.
func (r *receiver) receipts() []receipt {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]receipt(nil), r.log...)
}

// record appends rc to the log as if it had been answered (the self-test's
// planted webhooks).
func (r *receiver) record(rc receipt) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.log = append(r.log, rc)
}

// forget removes from the log every request to endpoint with webhook-id id
// (the self-test's lost webhook) and returns how many it removed.
func (r *receiver) forget(endpoint, id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := len(r.log)
	r.log = slices.DeleteFunc(r.log, func(rc receipt) bool { return rc.Endpoint == endpoint && rc.ID == id })
	return n - len(r.log)
}

func (r *receiver) close() { _ = r.srv.Close() }

// endpointName is the receiver's name for a teacher's n-th endpoint.
func endpointName(teacher string, n int) string {
	return strings.ReplaceAll(teacher, "-", "")[:12] + "-" + string(rune('a'+n))
}
