package functions

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/study"
)

// deckStart is StartDeck's answer: 201 when the call started the deck, 200
// when it had been started (a no-op).
type deckStart struct{ api.DeckStart }

func (d deckStart) httpStatus() int {
	if d.AlreadyStarted {
		return http.StatusOK
	}
	return http.StatusCreated
}

// StartDeck (POST) starts a library deck for the calling learner's
// self-study, with no teacher (study.Study.StartDeck): its words join the
// learner's schedule as new cards. Starting a deck again is a no-op.
// Answers: 201 with a study.DeckStart; 200 with the first start's
// study.DeckStart (already_started, cards_created 0) when the learner had
// started it; 400 for an invalid body; 401; 404 for a deck that is not in
// the shared library, and for a caller who is not a learner.
func (s *Service) StartDeck(w http.ResponseWriter, r *http.Request) {
	post(s, w, r, account.Learner, "StartDeck", http.StatusCreated,
		func(ctx context.Context, tx pgx.Tx, learner user, req api.StartDeckJSONBody) (any, error) {
			out, err := s.study.StartDeck(ctx, tx, study.Learner{ID: learner.ID, Timezone: learner.Timezone}, uuid.MustParse(req.DeckId))
			return deckStart{toDeckStart(out)}, err
		})
}
