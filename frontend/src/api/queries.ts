import { queryOptions } from "@tanstack/react-query";
import { listDevUsers } from "../auth/devSignIn";
import { unwrap, type Api } from "./client";
import { isNoAccount } from "./problem";
import type { components } from "./schema";

type Me = components["schemas"]["Me"];

/**
 * Every read of the client, as TanStack Query's queryOptions factories:
 * each gives a query's key and its function, and every screen reads with
 * `useQuery(x.y(api, ...))`. A write invalidates with the same keys
 * (`x.all`, a prefix of every key of x), so a query and the writes that
 * change it never disagree on a string. The keys:
 *
 * | key | function | changed by |
 * |---|---|---|
 * | `["me", userId, email]` | Me | CreateClass, EnrollLearner by code, CreateLearnerAccount (a newcomer gets a role) |
 * | `["dev-users"]` | GET /dev/users (development sign-in) | nothing |
 * | `["schedule", "due", limit]`, `["schedule", "today", limit]`, `["schedule", "forecast", days]` | GetSchedule | SubmitReview, UndoReview (the forecast), StartDeck, EnrollLearner |
 * | `["progress"]` | GetProgress | EnrollLearner (and the drain: read on an interval) |
 * | `["decks", "list"]` | ListDecks | StartDeck, CreateDeck, CopyDeck, UpdateDeck, EditDeckEntries, ImportDeckEntries, ArchiveDeck, DeleteDeck |
 * | `["decks", "own"]`, `["decks", "detail", deckId]` | ListOwnDecks, GetDeck | every deck write (UpdateDeck, EditDeckEntries, ReorderDeckEntries, ImportDeckEntries, ...) |
 * | `["library-lookup", term]` | LookupLibraryTerm | nothing |
 * | `["classes"]` | ListClasses | CreateClass, EnrollLearner by email, CreateAssignment, SetNewCardsPerDay |
 * | `["class-progress", classId]` | GetClassProgress | EnrollLearner by email, CreateAssignment, SetDeckRetention, UpdateDeck (every class's: `classQueries.progressAll`) |
 * | `["class-progress", classId, "workload", deckId]` | GetDeckWorkload | the same (a prefix of the class's key) |
 * | `["webhooks"]` | ListWebhookEndpoints | every webhook write |
 * | `["outbox", "health"]`, `["outbox", "dead-letters", limit]` | OutboxHealth, ListDeadLetters | ReplayDeadLetters, SkipDeadLetters |
 *
 * The client (api) is not part of any key: there is one per sign-in, and
 * the cache is cleared at sign-out; a key that differs by user (Me) names
 * the user.
 */

/** Who the caller is (Me). */
export const meQueries = {
  all: ["me"] as const,
  /**
   * The caller's Me, or null for an identity without an account: an
   * answer, not an error, so that it is cached like one (an errored query
   * is fetched again by every screen that mounts). Read at most once a
   * minute; not while signed out.
   */
  of: (api: Api, user: { id: string; email: string } | null) =>
    queryOptions({
      queryKey: [...meQueries.all, user?.id ?? null, user?.email ?? null],
      queryFn: async (): Promise<Me | null> => {
        try {
          return unwrap(await api.GET("/Me"));
        } catch (error) {
          if (isNoAccount(error)) return null;
          throw error;
        }
      },
      enabled: user !== null,
      staleTime: 60_000,
      retryOnMount: false,
    }),
};

/** The users the development sign-in offers (GET /dev/users, only with AUTH_DEV=true). */
export const devUserQueries = {
  all: ["dev-users"] as const,
  list: () => queryOptions({ queryKey: devUserQueries.all, queryFn: listDevUsers }),
};

/** The learner's schedule (GetSchedule), read three ways. */
export const scheduleQueries = {
  all: ["schedule"] as const,
  forecasts: ["schedule", "forecast"] as const,
  /**
   * The review session's due cards, at most limit of them. A session works
   * on the cards it loaded: no background refetch reshuffles them under
   * the learner.
   */
  due: (api: Api, limit: number) =>
    queryOptions({
      queryKey: [...scheduleQueries.all, "due", limit],
      queryFn: async () => unwrap(await api.GET("/GetSchedule", { params: { query: { limit } } })),
      refetchOnWindowFocus: false,
      staleTime: Infinity,
    }),
  /** Today's: at most limit due cards (to count the new ones among them) and today's forecast. */
  today: (api: Api, limit: number) =>
    queryOptions({
      queryKey: [...scheduleQueries.all, "today", limit],
      queryFn: async () => unwrap(await api.GET("/GetSchedule", { params: { query: { limit, days: 1 } } })),
    }),
  /** The reviews due per day over the next days (7 or 30). */
  forecast: (api: Api, days: 7 | 30) =>
    queryOptions({
      queryKey: [...scheduleQueries.forecasts, days],
      queryFn: async () => unwrap(await api.GET("/GetSchedule", { params: { query: { days, limit: 1 } } })),
    }),
};

/** The learner's streak, achievements, assignments and feed (GetProgress). */
export const progressQueries = {
  all: ["progress"] as const,
  mine: (api: Api) =>
    queryOptions({ queryKey: progressQueries.all, queryFn: async () => unwrap(await api.GET("/GetProgress")) }),
};

/**
 * The decks: those the caller may start or assign (ListDecks), a teacher's
 * own (ListOwnDecks), and one deck with its entries (GetDeck).
 */
export const deckQueries = {
  all: ["decks"] as const,
  list: (api: Api) =>
    queryOptions({ queryKey: [...deckQueries.all, "list"], queryFn: async () => unwrap(await api.GET("/ListDecks")).decks }),
  /** The teacher's own decks, the archived ones too. */
  own: (api: Api) =>
    queryOptions({
      queryKey: [...deckQueries.all, "own"],
      queryFn: async () => unwrap(await api.GET("/ListOwnDecks", { params: { query: { archived: true } } })).decks,
    }),
  /** A library deck or one of the teacher's own, with its entries in their order. */
  detail: (api: Api, deckId: string) =>
    queryOptions({
      queryKey: [...deckQueries.all, "detail", deckId],
      queryFn: async () => unwrap(await api.GET("/GetDeck", { params: { query: { deck_id: deckId } } })),
    }),
};

/**
 * What the WordNet library knows of a term a teacher types
 * (LookupLibraryTerm), trimmed; nothing is asked for an empty term. The
 * library does not change while Lexora runs, so an answer is kept.
 */
export const libraryQueries = {
  all: ["library-lookup"] as const,
  lookup: (api: Api, term: string) =>
    queryOptions({
      queryKey: [...libraryQueries.all, term.trim()],
      queryFn: async () => unwrap(await api.GET("/LookupLibraryTerm", { params: { query: { term: term.trim() } } })).entries,
      enabled: term.trim() !== "",
      staleTime: Infinity,
    }),
};

/** A teacher's classes (ListClasses) and a class's progress grid (GetClassProgress). */
export const classQueries = {
  all: ["classes"] as const,
  list: (api: Api) =>
    queryOptions({ queryKey: classQueries.all, queryFn: async () => unwrap(await api.GET("/ListClasses")).classes }),
  /** The prefix of every class's progress (a deck's new title shows in each class that has it). */
  progressAll: ["class-progress"] as const,
  /** The prefix of a class's progress(api, classId). */
  progressOf: (classId: string) => [...classQueries.progressAll, classId] as const,
  /** A class's learner × assignment grid. */
  progress: (api: Api, classId: string) =>
    queryOptions({
      queryKey: classQueries.progressOf(classId),
      queryFn: async () => unwrap(await api.GET("/GetClassProgress", { params: { query: { class_id: classId } } })),
    }),
  /** A class deck's simulated workload at each retention (GetDeckWorkload). */
  workload: (api: Api, classId: string, deckId: string) =>
    queryOptions({
      queryKey: [...classQueries.progressOf(classId), "workload", deckId],
      queryFn: async () =>
        unwrap(await api.GET("/GetDeckWorkload", { params: { query: { class_id: classId, deck_id: deckId } } })),
    }),
};

/** A teacher's webhook endpoints (ListWebhookEndpoints). */
export const webhookQueries = {
  all: ["webhooks"] as const,
  list: (api: Api) =>
    queryOptions({
      queryKey: webhookQueries.all,
      queryFn: async () => unwrap(await api.GET("/ListWebhookEndpoints")).endpoints,
    }),
};

/** The operator's view of the outbox: its health (OutboxHealth) and dead letters (ListDeadLetters). */
export const outboxQueries = {
  all: ["outbox"] as const,
  health: (api: Api) =>
    queryOptions({ queryKey: [...outboxQueries.all, "health"], queryFn: async () => unwrap(await api.GET("/OutboxHealth")) }),
  /** The most recent dead deliveries, at most limit. */
  deadLetters: (api: Api, limit: number) =>
    queryOptions({
      queryKey: [...outboxQueries.all, "dead-letters", limit],
      queryFn: async () => unwrap(await api.GET("/ListDeadLetters", { params: { query: { limit } } })).dead,
    }),
};
