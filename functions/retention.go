package functions

import (
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
)

// SetDeckRetention (POST) sets the desired retention of one of the calling
// teacher's class decks (classroom.SetDeckRetention) and enqueues
// deck.retention_changed when it changed. Answers: 200 with an
// api.DeckRetention; 400 for a malformed body or a retention outside
// [0.80, 0.95]; 401; 404 for a class that is not the caller's or a deck it
// does not have.
func (s *Service) SetDeckRetention(w http.ResponseWriter, r *http.Request) {
	teacher, ok := s.caller(w, r, http.MethodPost, account.Teacher)
	var req api.SetDeckRetentionJSONBody
	if !ok || !s.decode(w, r, &req) {
		return
	}
	classID, deckID := uuid.MustParse(req.ClassId), uuid.MustParse(req.DeckId)
	s.write(w, r, teacher, "SetDeckRetention", http.StatusOK, req, func(tx pgx.Tx) (any, error) {
		d, batch, err := classroom.SetDeckRetention(r.Context(), tx, teacher.ID, classID, deckID, *req.DesiredRetention)
		if err != nil {
			return nil, err
		}
		return toDeckRetention(d), s.enqueue(r.Context(), tx, r, teacher, batch)
	})
}

// GetDeckWorkload (GET ?class_id=&deck_id=) answers the reviews per learner
// per day the calling teacher's class deck asks over the next 30 days at
// each of classroom.WorkloadRetentions (classroom.DeckWorkload). Answers:
// 200 with an api.DeckWorkload; 400 without a class_id or deck_id; 401; 404
// for a class that is not the caller's or a deck it does not have.
func (s *Service) GetDeckWorkload(w http.ResponseWriter, r *http.Request) {
	t, ok := s.caller(w, r, http.MethodGet, account.Teacher)
	if !ok {
		return
	}
	q := newQueryParams(r)
	classID, deckID := q.requiredUUID("class_id"), q.requiredUUID("deck_id")
	if err := q.err(); err != nil {
		s.fail(w, r, err)
		return
	}
	s.read(w, r, func(tx pgx.Tx) (any, error) {
		wl, err := classroom.DeckWorkload(r.Context(), tx, t.ID, classID, deckID, s.now())
		return toDeckWorkload(wl), err
	})
}
