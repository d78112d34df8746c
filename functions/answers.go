package functions

import (
	"github.com/google/uuid"

	"github.com/lexora-app/lexora/functions/api"
	"github.com/lexora-app/lexora/pkg/account"
	"github.com/lexora-app/lexora/pkg/classroom"
	"github.com/lexora-app/lexora/pkg/deckimport"
	"github.com/lexora-app/lexora/pkg/decks"
	"github.com/lexora-app/lexora/pkg/outbox"
	"github.com/lexora-app/lexora/pkg/study"
	"github.com/lexora-app/lexora/pkg/webhooks"
)

// The converters from the domain's results to the answer types generated
// from openapi.yaml (package api), as ardanlabs/service's app layer turns a
// business value into its app type (toAppUser): the domain types carry no
// json tags, so that renaming one of their fields cannot change the wire,
// and a field renamed or retyped in the document stops this file from
// compiling until it follows. Each keeps a nil slice nil (null on the
// wire, as before) and a pointer's nil as null.

// each converts every element of in with to; nil stays nil.
func each[In, Out any](in []In, to func(In) Out) []Out {
	if in == nil {
		return nil
	}
	out := make([]Out, len(in))
	for i, v := range in {
		out[i] = to(v)
	}
	return out
}

// convertPtr converts *in with to; nil stays nil.
func convertPtr[In, Out any](in *In, to func(In) Out) *Out {
	if in == nil {
		return nil
	}
	out := to(*in)
	return &out
}

func toCardView(c study.CardView) api.CardView {
	return api.CardView{Id: c.ID, State: api.CardState(c.State), Due: c.Due, Stability: c.Stability,
		Difficulty: c.Difficulty, ScheduledDays: int(c.ScheduledDays), Reps: int(c.Reps), Lapses: int(c.Lapses), //nolint:gosec // FSRS counts and days stay far below 2^63
		Suspended: c.Suspended}
}

func toReviewResult(r study.ReviewResult) api.ReviewResult {
	return api.ReviewResult{ReviewId: r.ReviewID, Card: toCardView(r.Card), CompletedAssignments: each(r.CompletedAssignments, func(id uuid.UUID) uuid.UUID { return id })}
}

func toUndoResult(r study.UndoResult) api.UndoResult {
	return api.UndoResult{ReviewId: r.ReviewID, Card: toCardView(r.Card), UndoneAt: r.UndoneAt}
}

func toDeckStart(d study.DeckStart) api.DeckStart {
	return api.DeckStart{DeckId: d.DeckID, Title: d.Title, Words: d.Words, CardsCreated: d.CardsCreated,
		StartedAt: d.StartedAt, AlreadyStarted: d.AlreadyStarted}
}

func toSchedule(s study.Schedule) api.Schedule {
	return api.Schedule{LearnerId: s.LearnerID, Timezone: s.Timezone, Now: s.Now, DueCount: s.DueCount, NewCount: s.NewCount,
		NewCardsPerDay: s.NewCardsPerDay, NewCardsToday: s.NewCardsToday, NewCardsLeft: s.NewCardsLeft,
		Due: each(s.Due, toDueCard), Forecast: each(s.Forecast, func(d study.ForecastDay) api.ForecastDay {
			return api.ForecastDay{Date: d.Date, Due: d.Due}
		})}
}

func toDueCard(c study.DueCard) api.DueCard {
	return api.DueCard{CardId: c.CardID, Lemma: c.Lemma, PartOfSpeech: c.PartOfSpeech, Definition: c.Definition,
		Example: c.Example, TermLanguage: c.TermLanguage, DeckTitle: c.DeckTitle, State: api.CardState(c.State), Due: c.Due, Stability: c.Stability, Difficulty: c.Difficulty,
		Preview: each(c.Preview, func(p study.RatingPreview) api.RatingPreview {
			return api.RatingPreview{Rating: p.Rating, State: api.CardState(p.State), Due: p.Due, IntervalSeconds: int(p.IntervalSeconds)}
		})}
}

func toProgress(p study.Progress) api.Progress {
	return api.Progress{LearnerId: p.LearnerID,
		Streak: api.Streak{Current: p.Streak.Current, Longest: p.Streak.Longest, LastDay: p.Streak.LastDay},
		Achievements: each(p.Achievements, func(a study.Achievement) api.Achievement {
			return api.Achievement{Code: a.Code, EarnedAt: a.EarnedAt}
		}),
		Assignments: each(p.Assignments, func(a study.AssignmentProgress) api.AssignmentProgress {
			return api.AssignmentProgress{AssignmentId: a.AssignmentID, Deck: a.Deck, DueAt: a.DueAt, CompletedAt: a.CompletedAt,
				CardsTotal: a.CardsTotal, CardsSeen: a.CardsSeen, CardsLearned: a.CardsLearned, Reviews: a.Reviews, Pending: a.Pending}
		}),
		StartedDecks: each(p.StartedDecks, func(d study.DeckProgress) api.DeckProgress {
			return api.DeckProgress{DeckId: d.DeckID, Deck: d.Deck, StartedAt: d.StartedAt, CardsTotal: d.CardsTotal,
				CardsSeen: d.CardsSeen, CardsLearned: d.CardsLearned, CardsDue: d.CardsDue, Reviews: d.Reviews}
		}),
		Feed:            each(p.Feed, func(f study.FeedItem) api.FeedItem { return api.FeedItem{Kind: f.Kind, Message: f.Message, At: f.At} }),
		PredictedRecall: api.PredictedRecall{Words: p.Recall.Words, Today: p.Recall.Today, In30Days: p.Recall.Later},
	}
}

func toDeckRetention(d classroom.DeckRetention) api.DeckRetention {
	return api.DeckRetention{ClassId: d.ClassID, DeckId: d.DeckID, DesiredRetention: d.DesiredRetention,
		PreviousRetention: d.Previous, Changed: d.Changed}
}

func toDeckWorkload(w classroom.Workload) api.DeckWorkload {
	return api.DeckWorkload{ClassId: w.ClassID, DeckId: w.DeckID, DesiredRetention: w.DesiredRetention,
		Learners: w.Learners, Cards: w.Cards, Fitted: w.Fitted, Days: w.Days,
		Curves: each(w.Curves, func(c classroom.WorkloadCurve) api.WorkloadCurve {
			return api.WorkloadCurve{DesiredRetention: c.DesiredRetention, ReviewsPerDay: c.ReviewsPerDay, MeanPerDay: c.MeanPerDay}
		})}
}

func toMe(p classroom.Profile) api.Me {
	return api.Me{Id: p.ID, DisplayName: p.DisplayName, Email: p.Email, Timezone: p.Timezone,
		Roles: each(p.Roles, func(r account.Role) api.Role { return api.Role(r) }),
		Classes: each(p.Classes, func(m classroom.Membership) api.Membership {
			return api.Membership{Id: m.ID, Name: m.Name, TeacherName: m.TeacherName, JoinedAt: m.JoinedAt}
		}),
		Teaching: each(p.Teaching, func(c classroom.TaughtClass) api.TaughtClass {
			return api.TaughtClass{Id: c.ID, Name: c.Name, JoinCode: c.JoinCode, Members: c.Members}
		}),
	}
}

func toAssignment(a classroom.Assignment) api.Assignment {
	return api.Assignment{Id: a.ID, ClassId: a.ClassID, DeckId: a.DeckID, LearnerId: a.LearnerID, TeacherId: a.TeacherID,
		DueAt: a.DueAt, Cards: a.Cards, NewCards: a.NewCards, CompletedAt: a.CompletedAt}
}

func toEnrollment(e classroom.Enrollment) api.Enrollment {
	return api.Enrollment{ClassId: e.ClassID, ClassName: e.ClassName, LearnerId: e.LearnerID, Assignments: each(e.Assignments, toAssignment)}
}

func toInvitation(i classroom.Invitation) api.Invitation {
	return api.Invitation{ClassId: i.ClassID, Email: i.Email, Status: api.InvitationStatus(i.Status)}
}

func toClassAssignment(a classroom.ClassAssignment) api.ClassAssignment {
	return api.ClassAssignment{ClassId: a.ClassID, DeckId: a.DeckID, DueAt: a.DueAt, Status: api.ClassAssignmentStatus(a.Status),
		Learners: each(a.Learners, func(l classroom.LearnerOutcome) api.LearnerOutcome {
			return api.LearnerOutcome{LearnerId: l.LearnerID, Status: api.ClassAssignmentLearnersStatus(l.Status),
				Assignment: convertPtr(l.Assignment, toAssignment)}
		})}
}

func toDeck(d classroom.Deck) api.Deck {
	return api.Deck{Id: d.ID, Title: d.Title, Description: d.Description, Words: d.Words, Level: d.Level,
		Library: d.Library, Started: d.Started}
}

func toClassDeck(d classroom.ClassDeck) api.ClassDeck {
	return api.ClassDeck{DeckId: d.DeckID, DeckTitle: d.DeckTitle, DueAt: d.DueAt, AssignedAt: d.AssignedAt,
		DesiredRetention: d.DesiredRetention}
}

func toClass(c classroom.Class) api.Class {
	return api.Class{Id: c.ID, Name: c.Name, JoinCode: c.JoinCode, CreatedAt: c.CreatedAt, ArchivedAt: c.ArchivedAt,
		NewCardsPerDay: c.NewCardsPerDay, Decks: each(c.Decks, toClassDeck), Members: each(c.Members, toClassMember)}
}

func toClassMember(m classroom.Member) api.ClassMember {
	return api.ClassMember{LearnerId: m.LearnerID, DisplayName: m.DisplayName, AccountName: m.AccountName, Email: m.Email,
		JoinedAt: m.JoinedAt}
}

func toClassState(c classroom.ClassState) api.ClassState {
	return api.ClassState{Id: c.ID, Name: c.Name, JoinCode: c.JoinCode, CreatedAt: c.CreatedAt, ArchivedAt: c.ArchivedAt}
}

func toClassProgress(p classroom.ClassProgress) api.ClassProgress {
	return api.ClassProgress{ClassId: p.ClassID, Name: p.Name, ArchivedAt: p.ArchivedAt, Now: p.Now, Decks: each(p.Decks, toClassDeck),
		ProgressUpdatedAt: p.ProgressUpdatedAt,
		Learners: each(p.Learners, func(l classroom.LearnerProgress) api.ClassProgressRow {
			return api.ClassProgressRow{LearnerId: l.LearnerID, DisplayName: l.DisplayName, Timezone: l.Timezone,
				Assignments: each(l.Assignments, toClassProgressCell)}
		}),
		HardestWords: each(p.HardestWords, func(w classroom.HardWord) api.HardWord {
			return api.HardWord{LexemeId: w.LexemeID, Lemma: w.Lemma, PartOfSpeech: api.HardWordPartOfSpeech(w.PartOfSpeech),
				Lapses: w.Lapses, Learners: w.Learners, Leeches: w.Leeches}
		}),
	}
}

func toClassProgressCell(a classroom.AssignmentProgress) api.ClassProgressCell {
	return api.ClassProgressCell{AssignmentId: a.AssignmentID, DeckId: a.DeckID, DeckTitle: a.DeckTitle, DueAt: a.DueAt,
		CompletedAt: a.CompletedAt, CardsDue: a.CardsDue,
		Progress: convertPtr(a.Progress, func(p classroom.Progress) api.ProgressCounts {
			return api.ProgressCounts{CardsTotal: p.CardsTotal, CardsSeen: p.CardsSeen, CardsLearned: p.CardsLearned,
				Reviews: p.Reviews, LastStudyDay: p.LastStudyDay, UpdatedAt: p.UpdatedAt}
		})}
}

func toOutboxHealth(h outbox.Health) api.OutboxHealth {
	return api.OutboxHealth{BlockedKeys: h.BlockedKeys, DeliveredPerMinute: h.DeliveredPerMinute,
		Backlog: each(h.Backlog, func(b outbox.TopicBacklog) api.TopicBacklog {
			return api.TopicBacklog{Subscriber: b.Subscriber, Topic: b.Topic, Pending: int(b.Pending), Due: int(b.Due),
				OldestAgeSeconds: b.OldestAgeSeconds}
		}),
		Dead: each(h.Dead, func(c outbox.TopicCount) api.TopicCount {
			return api.TopicCount{Subscriber: c.Subscriber, Topic: c.Topic, Count: int(c.Count)}
		}),
	}
}

// toDeadDelivery converts d with the endpoints its error names by id
// (endpointsNamed), those of owners that still exist.
func toDeadDelivery(d outbox.DeadDelivery, owners map[uuid.UUID]webhooks.Owner) api.DeadDelivery {
	out := api.DeadDelivery{Id: d.ID, EventId: d.EventID, Topic: d.Topic, Subscriber: d.Subscriber, OrderingKey: d.OrderingKey,
		Attempts: d.Attempts, LastError: d.LastError, DeadAt: d.DeadAt, CreatedAt: d.CreatedAt, Blocking: d.Blocking,
		Endpoints: []api.DeadEndpoint{}}
	for _, id := range endpointsNamed(d) {
		if o, ok := owners[id]; ok {
			out.Endpoints = append(out.Endpoints, api.DeadEndpoint{Id: o.ID, Url: o.URL, TeacherName: o.TeacherName,
				TeacherEmail: o.TeacherEmail})
		}
	}
	return out
}

// toWebhookEndpoint converts e; its secret, shown only when the endpoint is
// registered or its secret rotated, is absent when empty.
func toWebhookEndpoint(e webhooks.Endpoint) api.WebhookEndpoint {
	out := api.WebhookEndpoint{Id: e.ID, Url: e.URL, CreatedAt: e.CreatedAt, DisabledAt: e.DisabledAt,
		DisabledReason: e.DisabledReason, PreviousSecretExpiresAt: e.PreviousSecretExpiresAt,
		Topics: each(e.Topics, func(t string) api.WebhookTopic { return api.WebhookTopic(t) })}
	if e.Secret != "" {
		out.Secret = &e.Secret
	}
	out.Health = convertPtr(e.Health, func(h webhooks.Health) api.WebhookHealth {
		return api.WebhookHealth{State: api.WebhookHealthState(h.State), LastDeliveryAt: h.LastDeliveryAt,
			LastAcceptedAt: h.LastAcceptedAt, LastError: h.LastError, LastErrorAt: h.LastErrorAt,
			LastErrorRetried: h.LastErrorRetried, FailuresInRow: h.FailuresInRow, Action: h.Action}
	})
	return out
}

// eachOrEmpty is each for a list the document requires: nil becomes [].
func eachOrEmpty[In, Out any](in []In, to func(In) Out) []Out {
	if in == nil {
		return []Out{}
	}
	return each(in, to)
}

func fromEntryInput(e api.EntryInput) decks.EntryInput {
	return decks.EntryInput{Term: e.Term, Meaning: e.Meaning, Example: e.Example, PartOfSpeech: e.PartOfSpeech}
}

// fromColumnField is an import's column field as deckimport names it
// ("none" is deckimport.FieldNone, "").
func fromColumnField(f string) deckimport.Field {
	if f == "none" {
		return deckimport.FieldNone
	}
	return deckimport.Field(f)
}

func toDeckDetails(d decks.Deck) api.DeckDetails {
	return api.DeckDetails{Id: d.ID, OwnerId: d.OwnerID, Library: d.Library, Title: d.Title, Description: d.Description,
		TermLanguage: d.TermLanguage, MeaningLanguage: d.MeaningLanguage, Version: d.Version, Entries: d.Entries, Level: d.Level,
		Assigned: d.Assigned, ArchivedAt: d.ArchivedAt, CopiedFrom: d.CopiedFrom, CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

func toDeckEntry(e decks.Entry) api.DeckEntry {
	return api.DeckEntry{Id: e.ID, Term: e.Term, Meaning: e.Meaning, Example: e.Example, PartOfSpeech: e.PartOfSpeech,
		Version: e.Version, Position: e.Position}
}

func toDeckWithEntries(d decks.Deck, entries []decks.Entry) api.DeckWithEntries {
	return api.DeckWithEntries{Deck: toDeckDetails(d), Entries: eachOrEmpty(entries, toDeckEntry)}
}

func toEntriesResult(r decks.EntriesResult) api.EntriesResult {
	return api.EntriesResult{DeckId: r.DeckID, Added: eachOrEmpty(r.Added, toDeckEntry), Changed: eachOrEmpty(r.Changed, toDeckEntry),
		Removed: eachOrEmpty(r.Removed, func(id uuid.UUID) uuid.UUID { return id }), CardsCreated: r.CardsCreated, Entries: r.Entries}
}

func toImportPreview(p *deckimport.Preview) api.ImportPreview {
	return api.ImportPreview{Format: api.ImportPreviewFormat(p.Format), Separator: string(p.Separator), Ambiguous: p.Ambiguous,
		Html: p.HTML, Title: p.Title,
		Columns: eachOrEmpty(p.Columns, func(c deckimport.Column) api.ImportColumn {
			f := api.ImportColumnField(c.Field)
			if c.Field == deckimport.FieldNone {
				f = api.ImportColumnFieldNone
			}
			return api.ImportColumn{Name: c.Name, Field: f}
		}),
		Rows: eachOrEmpty(p.Rows, func(r deckimport.Row) api.ImportRow {
			return api.ImportRow{Line: r.Line, Term: r.Term, Meaning: r.Meaning, Example: r.Example,
				PartOfSpeech: string(r.PartOfSpeech), SameAs: r.SameAs, InDeck: r.InDeck}
		}),
		Refused: eachOrEmpty(p.Refused, func(f deckimport.Refusal) api.ImportRefusal {
			return api.ImportRefusal{Line: f.Line, Field: api.ImportRefusalField(f.Field), Reason: f.Reason}
		}),
	}
}
