package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/lexora-app/lexora/pkg/platform/auth"
)

// Outcomes of an action, as its client saw them.
const (
	outcomeOK        = "ok"        // a 2xx answer (perhaps after retries)
	outcomeRejected  = "rejected"  // a 4xx answer: the request was refused
	outcomeAbandoned = "abandoned" // no definitive answer: the client gave up
)

// action is one user action the clients performed, with what they were
// told. Every write carries an Idempotency-Key and an X-Request-Id (the
// same on every retry); the request id travels into the events' headers,
// which ties events to actions in the checks.
type action struct {
	Kind      string // enrol-email, enrol-code, assign, review, undo, rotate, schedule
	RequestID string
	Outcome   string
	Status    int
	Attempts  int
	Replayed  bool // the answer was an idempotent replay

	// What a 2xx answer said, for the durability checks (undo: ReviewID
	// and CardID are what the request named).
	ReviewID     int64
	CardID       uuid.UUID
	Due          time.Time
	Stability    float64
	AssignmentID uuid.UUID
	LearnerID    uuid.UUID
	ClassID      uuid.UUID
	Endpoint     string // rotate: the endpoint's receiver name
	EndpointID   uuid.UUID
	Secret       string // rotate: the new secret
	Undid        int64  // undo: the review the answer says it undid
	UndoneAt     time.Time
}

// teacher is a teacher the clients act for.
type teacher struct {
	id        uuid.UUID
	token     string
	classID   uuid.UUID
	joinCode  string
	endpoints []endpointRef // the first is never made to fail for good
	rotate    sync.Mutex    // one rotation of this teacher's endpoints at a time
}

type endpointRef struct {
	name string
	id   uuid.UUID
}

// learner is a learner the clients act for; busy while one client uses it.
type learner struct {
	id      uuid.UUID
	token   string
	busy    atomic.Bool
	classes map[uuid.UUID]bool // classes joined
	decks   map[uuid.UUID]bool // decks assigned (by any teacher)
	cards   []uuid.UUID        // from the last schedule read
	reviews int                // since that read
	// last is the learner's last review, while they know it (its answer
	// was a 2xx and they have not tried to undo it): what an undo names.
	last struct {
		card   uuid.UUID
		review int64 // 0: none to undo
	}
}

// world is what the clients know and the ledger of what they did.
type world struct {
	cfg      profile
	base     string // the functions server's URL
	http     *http.Client
	decks    []uuid.UUID
	teachers []*teacher
	operator string // an operator's token
	recv     *receiver

	abandoning atomic.Bool // while faults are on, some actions are abandoned after a first failure

	mu       sync.Mutex
	learners []*learner
	actions  []*action
	seq      atomic.Int64

	inFlight atomic.Int64 // requests sent and not yet answered
}

// errNoAnswer: the request got no definitive answer.
var errNoAnswer = errors.New("no definitive answer")

// mint returns a development ID token for subject (and a verified email).
func mint(subject, email string) string {
	tok, err := auth.DevToken("lexora-dev", subject, email, 3*time.Hour)
	if err != nil {
		panic(err) // the development key is a constant of the program
	}
	return tok
}

// call performs one action's request until it gets a definitive answer: a
// 2xx (decoded into out) or a 4xx. Network errors, timeouts and 5xx are
// retried with the same Idempotency-Key and X-Request-Id, as the web client
// does, unless the action is one of those the client abandons after a first
// failure; it gives up after the retry budget.
func (w *world) call(ctx context.Context, a *action, fn, token string, body, out any, write, mayAbandon bool) error {
	a.RequestID = "chaos-" + strconv.FormatInt(w.seq.Add(1), 10)
	key := uuid.NewString()
	var payload []byte
	method := http.MethodGet
	if body != nil {
		method = http.MethodPost
		payload, _ = json.Marshal(body)
	}
	abandon := mayAbandon && w.abandoning.Load() && rand.Float64() < w.cfg.abandonRate
	deadline := time.Now().Add(w.cfg.retryBudget)
	backoff := 100 * time.Millisecond
	defer w.record(a)
	for {
		a.Attempts++
		status, replayed, respBody, err := w.once(ctx, method, fn, token, key, a.RequestID, payload, write)
		switch {
		case err == nil && status < 300:
			a.Outcome, a.Status, a.Replayed = outcomeOK, status, replayed
			if out != nil {
				if err := json.Unmarshal(respBody, out); err != nil {
					return fmt.Errorf("%s: decode answer: %w", fn, err)
				}
			}
			return nil
		case err == nil && status < 500 && status != http.StatusRequestTimeout && status != http.StatusTooManyRequests:
			a.Outcome, a.Status = outcomeRejected, status
			return fmt.Errorf("%s: %d %s", fn, status, respBody)
		}
		if abandon || time.Now().After(deadline) || ctx.Err() != nil {
			a.Outcome, a.Status = outcomeAbandoned, status
			return errNoAnswer
		}
		time.Sleep(backoff + rand.N(backoff))
		backoff = min(2*backoff, time.Second)
	}
}

// once sends one request; err is a transport error or timeout.
func (w *world) once(ctx context.Context, method, fn, token, key, requestID string, payload []byte, write bool) (int, bool, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.requestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, w.base+"/"+fn, bytes.NewReader(payload))
	if err != nil {
		return 0, false, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Request-Id", requestID)
	if payload != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if write {
		req.Header.Set("Idempotency-Key", key)
	}
	w.inFlight.Add(1)
	defer w.inFlight.Add(-1)
	resp, err := w.http.Do(req)
	if err != nil {
		return 0, false, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	if err = errors.Join(err, resp.Body.Close()); err != nil {
		return 0, false, nil, err
	}
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed") == "true", b, nil
}

// count is the number of actions done so far.
func (w *world) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.actions)
}

func (w *world) record(a *action) {
	w.mu.Lock()
	w.actions = append(w.actions, a)
	w.mu.Unlock()
}

// enrolByEmail: a teacher adds a new learner by email; the learner's first
// sign-in (a token with the verified email) links the account.
func (w *world) enrolByEmail(ctx context.Context, t *teacher) {
	n := w.seq.Add(1)
	email := fmt.Sprintf("learner%d@chaos.example", n)
	tz := []string{"UTC", "Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Sydney"}[rand.IntN(5)]
	a := &action{Kind: "enrol-email", ClassID: t.classID}
	var out struct {
		LearnerID   uuid.UUID `json:"learner_id"`
		Assignments []struct {
			DeckID uuid.UUID `json:"deck_id"`
		} `json:"assignments"`
	}
	err := w.call(ctx, a, "EnrollLearner", t.token, map[string]string{
		"class_id": t.classID.String(), "email": email, "display_name": "Learner " + strconv.FormatInt(n, 10), "timezone": tz,
	}, &out, true, true)
	if err != nil || a.Status != http.StatusCreated {
		return
	}
	a.LearnerID = out.LearnerID
	l := &learner{id: out.LearnerID, token: mint("chaos-"+uuid.NewString(), email),
		classes: map[uuid.UUID]bool{t.classID: true}, decks: map[uuid.UUID]bool{}}
	for _, as := range out.Assignments {
		l.decks[as.DeckID] = true
	}
	w.mu.Lock()
	w.learners = append(w.learners, l)
	w.mu.Unlock()
}

// enrolByCode: a learner joins another teacher's class with its join code.
func (w *world) enrolByCode(ctx context.Context, l *learner) {
	t := w.teachers[rand.IntN(len(w.teachers))]
	if l.classes[t.classID] {
		return
	}
	a := &action{Kind: "enrol-code", ClassID: t.classID, LearnerID: l.id}
	var out struct {
		Assignments []struct {
			DeckID uuid.UUID `json:"deck_id"`
		} `json:"assignments"`
	}
	if w.call(ctx, a, "EnrollLearner", l.token, map[string]string{"join_code": t.joinCode}, &out, true, true) == nil {
		l.classes[t.classID] = true
		for _, as := range out.Assignments {
			l.decks[as.DeckID] = true
		}
	}
}

// assign: a teacher assigns one of their learners a deck the learner does
// not have yet, due in a week.
func (w *world) assign(ctx context.Context, l *learner) {
	var ts []*teacher
	for _, t := range w.teachers {
		if l.classes[t.classID] {
			ts = append(ts, t)
		}
	}
	var free []uuid.UUID
	for _, d := range w.decks {
		if !l.decks[d] {
			free = append(free, d)
		}
	}
	if len(ts) == 0 || len(free) == 0 {
		return
	}
	t, deck := ts[rand.IntN(len(ts))], free[rand.IntN(len(free))]
	a := &action{Kind: "assign", ClassID: t.classID, LearnerID: l.id}
	var out struct {
		Learners []struct {
			Assignment *struct {
				ID uuid.UUID `json:"id"`
			} `json:"assignment"`
		} `json:"learners"`
	}
	err := w.call(ctx, a, "CreateAssignment", t.token, map[string]string{
		"class_id": t.classID.String(), "learner_id": l.id.String(), "deck_id": deck.String(),
		"due_at": time.Now().Add(7 * 24 * time.Hour).UTC().Format(time.RFC3339),
	}, &out, true, true)
	if err != nil {
		return
	}
	l.decks[deck] = true
	if len(out.Learners) == 1 && out.Learners[0].Assignment != nil {
		a.AssignmentID = out.Learners[0].Assignment.ID
		l.cards = nil // read the schedule again
	}
}

// review: a learner reviews one of their cards with a random rating,
// reading their schedule first when they have no cards or every 20 reviews.
func (w *world) review(ctx context.Context, l *learner) {
	if len(l.cards) == 0 || l.reviews >= 20 {
		a := &action{Kind: "schedule", LearnerID: l.id}
		var out struct {
			Due []struct {
				CardID uuid.UUID `json:"card_id"`
			} `json:"due"`
		}
		if w.call(ctx, a, "GetSchedule?days=60&limit=200", l.token, nil, &out, false, false) != nil {
			return
		}
		l.cards, l.reviews = l.cards[:0], 0
		for _, c := range out.Due {
			l.cards = append(l.cards, c.CardID)
		}
		if len(l.cards) == 0 {
			return
		}
	}
	i := rand.IntN(len(l.cards))
	rating := []int{1, 2, 3, 3, 3, 3, 4}[rand.IntN(7)]
	a := &action{Kind: "review", CardID: l.cards[i], LearnerID: l.id}
	var out struct {
		ReviewID int64 `json:"review_id"`
		Card     struct {
			Due       time.Time `json:"due"`
			Stability float64   `json:"stability"`
			Suspended bool      `json:"suspended"`
		} `json:"card"`
	}
	l.reviews++
	err := w.call(ctx, a, "SubmitReview", l.token, map[string]any{"card_id": l.cards[i].String(), "rating": rating}, &out, true, true)
	l.last.card, l.last.review = a.CardID, 0
	if err == nil {
		a.ReviewID, a.Due, a.Stability = out.ReviewID, out.Card.Due, out.Card.Stability
		l.last.review = out.ReviewID
	}
	if (err == nil && out.Card.Suspended) || a.Status == http.StatusConflict {
		l.cards = append(l.cards[:i], l.cards[i+1:]...)
	}
}

// undoShare is the share of a learner's turns at reviewing spent undoing
// their last review instead (the web client's U: a rating taken back).
const undoShare = 0.05

// undo: a learner takes back their last review, naming it by the
// review_id SubmitReview answered, as the web client does, so that the
// undo never takes back another review. Like the other writes it retries
// with its Idempotency-Key, or is abandoned after a first failure.
func (w *world) undo(ctx context.Context, l *learner) {
	a := &action{Kind: "undo", CardID: l.last.card, ReviewID: l.last.review, LearnerID: l.id}
	l.last.review = 0
	var out struct {
		ReviewID int64     `json:"review_id"`
		UndoneAt time.Time `json:"undone_at"`
	}
	if w.call(ctx, a, "UndoReview", l.token, map[string]any{"card_id": a.CardID.String(), "review_id": a.ReviewID}, &out, true, true) == nil {
		a.Undid, a.UndoneAt = out.ReviewID, out.UndoneAt
	}
}

// rotate: a teacher rotates one endpoint's secret, sometimes revoking the
// previous one at once. The receiver learns the new secret from the answer;
// rotations are never abandoned (the secret would be lost with the answer).
func (w *world) rotate(ctx context.Context, t *teacher) {
	t.rotate.Lock()
	defer t.rotate.Unlock()
	ep := t.endpoints[0]
	a := &action{Kind: "rotate", Endpoint: ep.name, EndpointID: ep.id}
	var out struct {
		Secret string `json:"secret"`
	}
	w.recv.rotating(ep.name, 1)
	defer w.recv.rotating(ep.name, -1)
	if w.call(ctx, a, "RotateWebhookSecret", t.token, map[string]any{"id": ep.id.String(), "revoke_previous": rand.IntN(3) == 0}, &out, true, false) == nil {
		a.Secret = out.Secret
		w.recv.addSecret(ep.name, out.Secret)
	}
}

// client runs random actions until ctx ends.
func (w *world) client(ctx context.Context) {
	for ctx.Err() == nil {
		x := rand.Float64()
		t := w.teachers[rand.IntN(len(w.teachers))]
		switch {
		case x < 0.02:
			w.enrolByEmail(ctx, t)
			continue
		case x < 0.025:
			w.rotate(ctx, t)
			continue
		}
		l := w.pickLearner()
		if l == nil {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		switch {
		case x < 0.035:
			w.enrolByCode(ctx, l)
		case x < 0.09:
			w.assign(ctx, l)
		case l.last.review != 0 && rand.Float64() < undoShare:
			w.undo(ctx, l)
		default:
			w.review(ctx, l)
		}
		l.busy.Store(false)
	}
}

// pickLearner returns a random learner no other client holds, marked busy.
func (w *world) pickLearner() *learner {
	w.mu.Lock()
	ls := w.learners
	w.mu.Unlock()
	for range 8 {
		if len(ls) == 0 {
			return nil
		}
		l := ls[rand.IntN(len(ls))]
		if l.busy.CompareAndSwap(false, true) {
			return l
		}
	}
	return nil
}
