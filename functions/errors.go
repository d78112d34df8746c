package functions

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"strings"

	"github.com/lexora-app/lexora/pkg/account/signin"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/idempotency"
	"github.com/lexora-app/lexora/pkg/learning"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/platform/auth"
	"github.com/lexora-app/lexora/pkg/platform/httpx"
	"github.com/lexora-app/lexora/pkg/store"
	"github.com/lexora-app/lexora/pkg/study"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// fail answers err as a problem document (see WriteError).
func (s *Service) fail(w http.ResponseWriter, r *http.Request, err error) {
	WriteError(w, r, s.log, err)
}

// WriteError is the one place where an error becomes an answer (the
// functions' and the local server's own handlers use it): a problem
// (*httpx.Problem) as it is; a domain error by domainProblems; a store
// error by what it means (store.Classify): a duplicate as 409, broken data
// rules as 422, an unreachable database as 503 with Retry-After; anything
// else as a logged 500 (httpx.WriteError).
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	httpx.WriteError(w, r, log, problem(err))
}

// The problem documents of the functions' own refusals (the domain's are
// domainProblems).

// invalid is the 400 problem with detail and the invalid fields, if any.
func invalid(detail string, fields ...httpx.FieldError) *httpx.Problem {
	p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeValidation, "Invalid request", detail)
	if len(fields) > 0 {
		p.Errors = fields
	}
	return p
}

// fieldProblem is the 400 problem for one invalid field of the body.
func fieldProblem(field, reason string) *httpx.Problem {
	return invalid("one or more fields are invalid", httpx.FieldError{Field: field, Reason: reason})
}

// unauthenticated is the 401 problem with detail.
func unauthenticated(detail string) error {
	return httpx.NewProblem(http.StatusUnauthorized, httpx.TypeUnauthenticated, "Unauthenticated", detail)
}

// noAccount is Me's 404 for an identity c without a Lexora account, whose
// detail says what the identity can do.
func noAccount(c auth.Claims) *httpx.Problem {
	detail := "this identity has no Lexora account and no verified email: sign in with a verified email, " +
		"the one a teacher added you with or one to create a class with"
	if _, verified := signin.VerifiedEmail(c); verified {
		detail = "this identity has no Lexora account yet: creating a class (CreateClass) makes it a teacher; " +
			"joining a class with its code (EnrollLearner) or studying the library on one's own (CreateLearnerAccount) " +
			"makes it a learner"
	}
	return httpx.NewProblem(http.StatusNotFound, httpx.TypeNoAccount, "No Lexora account", detail)
}

// methodNotAllowed is the 405 problem of a function called with another
// method than method.
func methodNotAllowed(method string) *httpx.Problem {
	return httpx.NewProblem(http.StatusMethodNotAllowed, httpx.TypeMethodNotAllowed, "Method not allowed", "use "+method)
}

// forbiddenOrigin is the 403 problem of a preflight from an origin that may
// not call Lexora from a browser.
func forbiddenOrigin() *httpx.Problem {
	return httpx.NewProblem(http.StatusForbidden, httpx.TypeForbiddenOrigin, "Origin not allowed",
		"this origin may not call Lexora from a browser")
}

// unknownPath is the 404 problem of a path that names no function; it
// lists the functions.
func unknownPath(functions []string) *httpx.Problem {
	return httpx.NewProblem(http.StatusNotFound, httpx.TypeNotFound, "Not found",
		"no function at this path; the functions are /"+strings.Join(functions, ", /"))
}

// domainProblems is the answer to each error of the domain packages,
// matched with errors.Is in order. A thing the caller may not see answers
// as one that does not exist (404), so ids cannot be probed.
var domainProblems = []struct {
	err     error
	problem func(err error) *httpx.Problem
}{
	{study.ErrCardNotFound, notFound("card")},
	{study.ErrLearnerNotFound, notFound("learner")},
	{study.ErrAssignmentNotFound, notFound("assignment")},
	{study.ErrReviewedInFuture, invalidField("reviewed_at",
		fmt.Sprintf("must not be more than %s ahead of the server's clock", learning.MaxClockAhead))},
	{study.ErrReviewTooOld, invalidField("reviewed_at", "must be within the last 7 days")},
	{study.ErrBeforeLastReview, func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Review out of order",
			"reviewed_at is before this card's last review; a later review of it was recorded first")
	}},
	{study.ErrSuspended, func(err error) *httpx.Problem {
		detail := "this card was suspended as a leech"
		if se, ok := errors.AsType[*study.SuspendedError](err); ok {
			detail = se.Error()
		}
		return httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Card suspended", detail)
	}},
	{study.ErrDeckNotFound, notFound("deck")},
	{study.ErrNothingToUndo, conflict("Nothing to undo", "this card has no review to undo")},
	{study.ErrAlreadyUndone, conflict("Already undone",
		"this review is undone already (or every review of this card is); a card's reviews are undone last first, each once")},
	{study.ErrNotLastReview, conflict("Not the last review",
		"review_id is not this card's last review not undone; a card's reviews are undone last first, each once")},
	{study.ErrUndoUnavailable, conflict("Cannot be undone", "this review was recorded before reviews could be undone")},
	{classroom.ErrClassNotFound, notFound("class")},
	{classroom.ErrLearnerNotFound, notFound("learner")},
	{classroom.ErrDeckNotFound, notFound("deck")},
	{classroom.ErrClassDeckNotFound, notFound("class-deck")},
	{classroom.ErrEmailOfTeacher, func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusConflict, httpx.TypeEmailOfTeacher, "Email belongs to a teacher",
			"this email belongs to a teacher's account; a teacher cannot be added to a class as a learner")
	}},
	{classroom.ErrEmailLookalike, func(error) *httpx.Problem {
		p := httpx.NewProblem(http.StatusConflict, httpx.TypeEmailLookalike, "Email looks like another account's",
			"another account's address differs from this one only in letters that look alike (such as a Cyrillic а for a Latin a, or an accent), so they could be taken for one another; no account was made. Check the address")
		p.Errors = []httpx.FieldError{{Field: "email", Reason: "looks like the address of another account"}}
		return p
	}},
	{classroom.ErrTeacherCannotJoin, func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusForbidden, httpx.TypeTeacherCannotJoin, "Teachers cannot join a class",
			"join codes are for learners; a teacher account cannot be a learner (each account has one role). To add a learner, use their email")
	}},
	{classroom.ErrClassArchived, conflict("Class archived",
		"this class is archived: it takes no new learners or decks and has no join code to renew; take it out of the archive first (UpdateClass)")},
	{classroom.ErrAlreadyEnrolled, conflict("Already enrolled", "the learner is already in this class")},
	{classroom.ErrAccountExists, conflict("Account exists",
		"this sign-in or email has an account already; send the request again to act as it")},
	{classroom.ErrNewCardsPerDay, invalidField("new_cards_per_day", fmt.Sprintf("must be a whole number from 0 to %d", learning.MaxNewCardsPerDay))},
	{classroom.ErrDueOutOfRange, invalidField("due_at", fmt.Sprintf("must be in the future and within %d days", classroom.MaxDueDays))},
	{classroom.ErrDeckArchived, conflict("Deck archived", classroom.ErrDeckArchived.Error())},
	{decks.ErrDeckNotFound, notFound("deck")},
	{decks.ErrInvalid, deckInputProblem},
	{decks.ErrDuplicateTerm, deckInputProblem},
	{decks.ErrDuplicateTitle, func(error) *httpx.Problem {
		p := httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Title taken", decks.ErrDuplicateTitle.Error())
		p.Errors = []httpx.FieldError{{Field: "title", Reason: "you have a deck with this title already"}}
		return p
	}},
	{decks.ErrTooManyEntries, func(err error) *httpx.Problem {
		return httpx.NewProblem(http.StatusRequestEntityTooLarge, httpx.TypeRequestTooLarge, "Too many entries", err.Error())
	}},
	{decks.ErrConflict, staleVersion},
	{decks.ErrEntryNotFound, staleVersion},
	{decks.ErrOrderMismatch, invalidField("order", decks.ErrOrderMismatch.Error())},
	{decks.ErrDeckInUse, func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusConflict, httpx.TypeDeckInUse, "Deck in use", decks.ErrDeckInUse.Error())
	}},
	{decks.ErrRefused, func(err error) *httpx.Problem {
		p := httpx.NewProblem(http.StatusBadRequest, httpx.TypeImportRefused, "Lines refused", err.Error())
		if re, ok := errors.AsType[*decks.RefusedError](err); ok {
			for _, f := range re.Refused {
				p.Errors = append(p.Errors, httpx.FieldError{Field: fmt.Sprintf("line %d: %s", f.Line, f.Field), Reason: f.Reason})
			}
		}
		return p
	}},
	{classroom.ErrRetentionOutOfRange, invalidField("desired_retention", fmt.Sprintf("must be from %.2f to %.2f",
		learning.MinDesiredRetention, learning.MaxDesiredRetention))},
	{webhooks.ErrEndpointNotFound, notFound("webhook endpoint")},
	{webhooks.ErrBadURL, invalidField("url", webhooks.ErrBadURL.Error())},
	{webhooks.ErrDuplicateURL, func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusConflict, httpx.TypeWebhookURLTaken, "Endpoint already registered",
			"you have an active endpoint at this URL already; it receives the events it names (change them by deleting it and registering again)")
	}},
	{outbox.ErrEmptyFilter, invalidRequest},
	{outbox.ErrNoReason, invalidRequest},
	{outbox.ErrInvalidFilter, invalidRequest},
	{idempotency.ErrMismatch, func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusUnprocessableEntity, httpx.TypeIdempotencyMismatch,
			"Idempotency key reused", "this Idempotency-Key was used with a different request")
	}},
}

// deckInputProblem answers a refused field of a deck or an entry
// (*decks.InputError) with 400 naming it ("entries[3].term").
func deckInputProblem(err error) *httpx.Problem {
	if ie, ok := errors.AsType[*decks.InputError](err); ok {
		return fieldProblem(ie.Path(), ie.Reason)
	}
	return invalid(err.Error())
}

// staleVersion answers an edit based on a version of a deck or an entry
// that is not the current one (*decks.ConflictError), or naming an entry
// removed since (*decks.EntryNotFoundError), with 409: reload and try
// again; nothing was written.
func staleVersion(err error) *httpx.Problem {
	return httpx.NewProblem(http.StatusConflict, httpx.TypeStaleVersion, "Changed since read",
		err.Error()+": reload it and make the change again")
}

// invalidRequest answers 400 with err's text: a refusal that says itself
// what is wrong.
func invalidRequest(err error) *httpx.Problem { return invalid(err.Error()) }

// notFound answers 404 for what.
func notFound(what string) func(error) *httpx.Problem {
	return func(error) *httpx.Problem { return httpx.NotFound(what) }
}

// conflict answers 409 titled title.
func conflict(title, detail string) func(error) *httpx.Problem {
	return func(error) *httpx.Problem {
		return httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, title, detail)
	}
}

// invalidField answers 400 with one field error, reason, for field.
func invalidField(field, reason string) func(error) *httpx.Problem {
	return func(error) *httpx.Problem { return fieldProblem(field, reason) }
}

// problem maps err to what httpx.WriteError answers (see WriteError).
func problem(err error) error {
	if p, ok := err.(*httpx.Problem); ok {
		return p
	}
	for _, d := range domainProblems {
		if errors.Is(err, d.err) {
			return d.problem(err)
		}
	}
	err = store.Classify(err)
	switch {
	case errors.Is(err, store.ErrDuplicate):
		return httpx.NewProblem(http.StatusConflict, httpx.TypeConflict, "Conflict", "the request conflicts with existing data")
	case errors.Is(err, store.ErrInvalidData):
		return httpx.NewProblem(http.StatusUnprocessableEntity, httpx.TypeUnprocessable, "Unprocessable request",
			"the request refers to something that does not exist or breaks a rule of the data")
	case errors.Is(err, store.ErrUnavailable):
		return fmt.Errorf("%w: %w", httpx.ErrUnavailable, err)
	}
	return err
}
