import { readFileSync } from "node:fs";
import { join } from "node:path";
import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { components } from "../../../api/schema";
import { fakeServer, json, learner, renderApp } from "../../../test/render";
import { Review } from "./Review";

// The stylesheet itself (vitest hands a test an empty string for CSS imports, even ?raw ones).
const css = readFileSync(join(process.cwd(), "src", "styles.css"), "utf8");

/** Any RFC 3339 instant: every rating carries the time it was made (reviewed_at). */
const anInstant: unknown = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

const card = (id: string, lemma: string) => ({
  card_id: `00000000-0000-4000-8000-${id.padStart(12, "0")}`,
  lemma,
  part_of_speech: "noun",
  definition: `the meaning of ${lemma}`,
  example: `a ${lemma} example`,
  term_language: "en",
  deck_title: "",
  state: "new",
  due: "2026-03-02T09:00:00Z",
  stability: 0,
  difficulty: 0,
  preview: [60, 360, 600, 3 * 86_400].map((interval_seconds, i) => ({
    rating: i + 1,
    state: i === 3 ? "review" : "learning",
    due: new Date(Date.parse("2026-03-02T09:00:00Z") + interval_seconds * 1000).toISOString(),
    interval_seconds,
  })),
}) satisfies components["schemas"]["DueCard"];

const schedule = (cards: components["schemas"]["DueCard"][]) => ({
  learner_id: "00000000-0000-4000-8000-000000000001",
  timezone: "Europe/Paris",
  now: "2026-03-02T09:00:00Z",
  due_count: cards.length,
  new_count: cards.filter((c) => c.state === "new").length,
  new_cards_per_day: 20,
  new_cards_today: 0,
  new_cards_left: 20,
  due: cards,
  forecast: [{ date: "2026-03-02", due: cards.length }],
}) satisfies components["schemas"]["Schedule"];

/** SubmitReview's answer: the card due at due (by default in 3 days, after the session). */
const reviewed = (cardId: string, due = "2026-03-05T09:00:00Z") => ({
  review_id: 1,
  card: {
    id: cardId,
    state: "learning",
    due,
    stability: 1,
    difficulty: 5,
    scheduled_days: 0,
    reps: 1,
    lapses: 0,
    suspended: false,
  },
  completed_assignments: [],
}) satisfies components["schemas"]["ReviewResult"];

/** UndoReview's answer: the review reviewId of cardId undone, the card as it was before it. */
const undid = (cardId: string, reviewId: number) =>
  ({ review_id: reviewId, card: reviewed(cardId).card, undone_at: "2026-03-02T09:01:00Z" }) satisfies components["schemas"]["UndoResult"];

// startSession renders the session with a sender that is always online and
// never waits, waits for its first card (cat) and returns the user.
async function startSession() {
  const user = userEvent.setup();
  renderApp(<Review />, { sender: { pause: () => Promise.resolve(), online: () => true } });
  await screen.findByRole("heading", { name: "cat" });
  return user;
}

describe("Review", () => {
  it("runs a session from the keyboard: space reveals, 1–4 rate, each rating sent with its own key", async () => {
    const cards = [card("1", "cat"), card("2", "run"), card("3", "red")];
    const server = fakeServer((req) =>
      req.path === "/GetSchedule" ? json(schedule(cards)) : json(reviewed((req.body as { card_id: string }).card_id)),
    );
    const user = userEvent.setup();
    renderApp(<Review />);

    expect(await screen.findByRole("heading", { name: "cat" })).toBeInTheDocument();
    expect(screen.queryByText("the meaning of cat")).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /Good/ })).not.toBeInTheDocument();
    await user.keyboard("3");
    expect(screen.getByRole("heading", { name: "cat" })).toBeInTheDocument();

    await user.keyboard(" ");
    expect(screen.getByText("the meaning of cat")).toBeInTheDocument();
    // Each rating button says when the card would come back.
    expect(screen.getAllByRole("button", { name: /^(Again|Hard|Good|Easy)/ }).map((b) => b.textContent)).toEqual([
      "Againnext review in 1 minforgot it1",
      "Hardnext review in 6 minrecalled with effort2",
      "Goodnext review in 10 minrecalled3",
      "Easynext review in 3 drecalled at once4",
    ]);
    await user.keyboard("3");
    expect(await screen.findByRole("heading", { name: "run" })).toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("1");
    await user.keyboard(" ");
    await user.keyboard("4");

    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/You reviewed/)).toHaveTextContent("You reviewed 3 cards.");
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

    const submits = server.seen.filter((s) => s.path === "/SubmitReview");
    expect(submits.map((s) => s.body)).toEqual([
      { card_id: cards[0]!.card_id, rating: 3, reviewed_at: anInstant },
      { card_id: cards[1]!.card_id, rating: 1, reviewed_at: anInstant },
      { card_id: cards[2]!.card_id, rating: 4, reviewed_at: anInstant },
    ]);
    expect(submits.every((s) => s.headers.get("Authorization") === "Bearer test-token")).toBe(true);
    expect(new Set(submits.map((s) => s.headers.get("Idempotency-Key"))).size).toBe(3);
  });

  it("counts down the new cards left today as new cards are rated, and back up on an undo", async () => {
    const cards = [card("1", "cat"), { ...card("2", "run"), state: "review" as const }, card("3", "red")];
    fakeServer((req) => {
      if (req.path === "/GetSchedule") return json({ ...schedule(cards), new_count: 2, new_cards_today: 18, new_cards_left: 2 });
      const body = req.body as { card_id: string };
      if (req.path === "/UndoReview") return json(undid(body.card_id, 1));
      return json(reviewed(body.card_id));
    });
    const user = await startSession();
    expect(screen.getByText("Card 1 of 3")).toBeInTheDocument();
    expect(screen.getByText(/left today/)).toHaveTextContent("2 new cards left today");
    await user.keyboard(" 3");
    expect(await screen.findByRole("heading", { name: "run" })).toBeInTheDocument();
    expect(screen.getByText(/left today/)).toHaveTextContent("1 new card left today");
    await user.keyboard("u");
    expect(await screen.findByText("Card 1 of 3")).toBeInTheDocument();
    expect(screen.getByText(/left today/)).toHaveTextContent("2 new cards left today");
    await user.keyboard(" 3 3 3");
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/left today/)).toHaveTextContent("0 new cards left today.");
  });

  it("shows the next card at once and retries a failed rating with the same key", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    let failures = 2;
    const server = fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(schedule(cards));
      if (failures-- > 0) throw new TypeError("Failed to fetch");
      return json(reviewed((req.body as { card_id: string }).card_id));
    });
    const user = await startSession();
    await user.keyboard(" ");
    await user.click(screen.getByRole("button", { name: /Good/ }));
    expect(screen.getByRole("heading", { name: "run" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

    const submits = server.seen.filter((s) => s.path === "/SubmitReview");
    expect(submits).toHaveLength(3);
    expect(new Set(submits.map((s) => s.headers.get("Idempotency-Key"))).size).toBe(1);
  });

  it("retries a rating whose answer was lost with the very request it first sent, however long the retries take", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    const start = Date.parse("2026-03-02T09:00:00Z");
    vi.useFakeTimers({ toFake: ["Date"], now: start });
    try {
      // The functions' idempotency: a key's first request is applied and its
      // body remembered; the same key again replays the answer, with another
      // body it is refused (422).
      const applied = new Map<string, string>();
      const server = fakeServer((req) => {
        if (req.path === "/GetSchedule") return json(schedule(cards));
        const key = req.headers.get("Idempotency-Key")!;
        const body = JSON.stringify(req.body);
        if (!applied.has(key)) {
          applied.set(key, body);
          // Applied, but the answer never arrives.
          throw new TypeError("Failed to fetch");
        }
        // The network stays down for 70 s.
        if (Date.now() < start + 70_000) throw new TypeError("Failed to fetch");
        if (applied.get(key) !== body)
          return json(
            {
              type: "https://lexora.app/problems/idempotency-key-mismatch",
              title: "Idempotency key reused",
              status: 422,
            } satisfies components["schemas"]["Problem"],
            422,
          );
        return json(reviewed((req.body as { card_id: string }).card_id));
      });
      const user = userEvent.setup();
      renderApp(<Review />, {
        sender: { online: () => true, pause: async (ms) => void vi.setSystemTime(Date.now() + ms) },
      });
      await screen.findByRole("heading", { name: "cat" });
      await user.keyboard(" ");
      await user.keyboard("3");
      await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

      const submits = server.seen.filter((s) => s.path === "/SubmitReview");
      expect(submits.length).toBeGreaterThan(5);
      expect(Date.now() - start).toBeGreaterThan(70_000);
      expect(new Set(submits.map((s) => s.headers.get("Idempotency-Key"))).size).toBe(1);
      expect(new Set(submits.map((s) => JSON.stringify(s.body)))).toEqual(new Set([JSON.stringify({ card_id: cards[0]!.card_id, rating: 3, reviewed_at: "2026-03-02T09:00:00.000Z" })]));
      expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it("queues ratings made offline, says so, and sends them in order when the browser is back online", async () => {
    const cards = [card("1", "cat"), card("2", "run"), card("3", "red")];
    const server = fakeServer((req) =>
      req.path === "/GetSchedule" ? json(schedule(cards)) : json(reviewed((req.body as { card_id: string }).card_id)),
    );
    let online = false;
    const user = userEvent.setup();
    const { store } = renderApp(<Review />, {
      sender: {
        online: () => online,
        // While offline the sender waits for the browser's 'online' event.
        pause: () => new Promise((resolve) => window.addEventListener("online", () => resolve(), { once: true })),
      },
    });

    await screen.findByRole("heading", { name: "cat" });
    for (const key of ["2", "4", "1"]) {
      await user.keyboard(" ");
      await user.keyboard(key);
    }
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    await waitFor(() =>
      expect(screen.getByTestId("queue-status")).toHaveTextContent(
        "You are offline: 3 ratings wait on this device and will be sent when you are back online.",
      ),
    );
    expect(server.seen.filter((s) => s.path === "/SubmitReview")).toEqual([]);
    expect((await store.list(learner.id)).map((r) => r.rating)).toEqual([2, 4, 1]);

    online = true;
    window.dispatchEvent(new Event("online"));
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));
    const submits = server.seen.filter((s) => s.path === "/SubmitReview");
    // Made offline, each carries the time it was made.
    const at: unknown = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
    expect(submits.map((s) => s.body)).toEqual([
      { card_id: cards[0]!.card_id, rating: 2, reviewed_at: at },
      { card_id: cards[1]!.card_id, rating: 4, reviewed_at: at },
      { card_id: cards[2]!.card_id, rating: 1, reviewed_at: at },
    ]);
    expect(new Set(submits.map((s) => s.headers.get("Idempotency-Key"))).size).toBe(3);
    expect(await store.list(learner.id)).toEqual([]);
  });

  it("U undoes the last rating: the card comes back to be rated again, and the undo is sent between the two ratings", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    let reviewId = 100;
    const server = fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(schedule(cards));
      const body = req.body as { card_id: string };
      if (req.path === "/UndoReview") return json(undid(body.card_id, 101));
      return json({ ...reviewed(body.card_id), review_id: ++reviewId } satisfies components["schemas"]["ReviewResult"]);
    });
    const user = await startSession();
    expect(screen.queryByRole("button", { name: /Undo last rating/ })).not.toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("3");
    expect(await screen.findByRole("heading", { name: "run" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

    await user.keyboard("u");
    expect(await screen.findByRole("heading", { name: "cat" })).toBeInTheDocument();
    expect(screen.getByText(/Card 1 of 2/)).toBeInTheDocument();
    expect(screen.getByText("Your Good on “cat” is undone: rate it again.")).toBeInTheDocument();
    expect(screen.queryByText("the meaning of cat")).not.toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("4");
    await user.keyboard(" ");
    await user.keyboard("2");
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/Easy:/)).toHaveTextContent("Easy: 1");
    expect(screen.getByText(/Good:/)).toHaveTextContent("Good: 0");
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

    const writes = server.seen.filter((s) => s.path !== "/GetSchedule");
    expect(writes.map((s) => [s.path, s.body])).toEqual([
      ["/SubmitReview", { card_id: cards[0]!.card_id, rating: 3, reviewed_at: anInstant }],
      ["/UndoReview", { card_id: cards[0]!.card_id, review_id: 101 }],
      ["/SubmitReview", { card_id: cards[0]!.card_id, rating: 4, reviewed_at: anInstant }],
      ["/SubmitReview", { card_id: cards[1]!.card_id, rating: 2, reviewed_at: anInstant }],
    ]);
    expect(new Set(writes.map((s) => s.headers.get("Idempotency-Key"))).size).toBe(4);
  });

  it("an undo of a rating not sent yet withdraws it: it never reaches the server", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    const server = fakeServer((req) =>
      req.path === "/GetSchedule" ? json(schedule(cards)) : json(reviewed((req.body as { card_id: string }).card_id)),
    );
    let online = false;
    const user = userEvent.setup();
    renderApp(<Review />, {
      sender: {
        online: () => online,
        pause: () => new Promise((resolve) => window.addEventListener("online", () => resolve(), { once: true })),
      },
    });
    await screen.findByRole("heading", { name: "cat" });
    await user.keyboard(" ");
    await user.keyboard("1");
    await screen.findByRole("heading", { name: "run" });
    await user.click(screen.getByRole("button", { name: /Undo last rating/ }));
    expect(await screen.findByRole("heading", { name: "cat" })).toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("3");
    await screen.findByRole("heading", { name: "run" });

    online = true;
    window.dispatchEvent(new Event("online"));
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));
    expect(server.seen.filter((s) => s.path !== "/GetSchedule").map((s) => [s.path, (s.body as { rating: number }).rating])).toEqual([
      ["/SubmitReview", 3],
    ]);
  });

  it("shows a definition's and an example's line breaks, and no part of speech label when the entry has none", async () => {
    const lines = { ...card("1", "cat"), part_of_speech: "", definition: "a small cat;\na pet", example: "the cat sat\non the mat" };
    fakeServer((req) => (req.path === "/GetSchedule" ? json(schedule([lines])) : json(reviewed(lines.card_id))));
    const user = await startSession();
    await user.keyboard(" ");
    const definition = await screen.findByText(/a small cat;/);
    expect(definition.textContent).toBe("a small cat;\na pet");
    expect(definition).toHaveClass("lines");
    expect(screen.getByText(/the cat sat/).closest("dd")).toHaveClass("lines");
    expect(css).toMatch(/\.lines \{ white-space: pre-line; \}/);
    expect(screen.queryByText("Part of speech")).not.toBeInTheDocument();
    expect(screen.getByText("Definition")).toBeInTheDocument();
  });

  it("names its deck on a card, so the same term of two decks is told apart; a card with no deck title names none", async () => {
    const cards = [card("1", "cat"), { ...card("2", "wind"), deck_title: "Weather words" }];
    fakeServer((req) => (req.path === "/GetSchedule" ? json(schedule(cards)) : json(reviewed((req.body as { card_id: string }).card_id))));
    const user = await startSession();
    expect(screen.queryByText(/^From /)).not.toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("3");
    await screen.findByRole("heading", { name: "wind" });
    expect(screen.getByText("From Weather words")).toBeInTheDocument();
  });

  it("says when nothing is due", async () => {
    fakeServer(() => json(schedule([])));
    renderApp(<Review />);
    expect(await screen.findByText(/Nothing is due right now/)).toBeInTheDocument();
  });

  it("shows the problem document when the schedule cannot be read", async () => {
    fakeServer(() =>
      json(
        {
          type: "https://lexora.app/problems/unauthenticated",
          title: "Unauthenticated",
          status: 401,
          detail: "send a valid, unexpired ID token",
        } satisfies components["schemas"]["Problem"],
        401,
      ),
    );
    renderApp(<Review />);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Could not load your due cards: Unauthenticated");
    expect(alert).toHaveTextContent("send a valid, unexpired ID token");
    expect(alert).not.toHaveTextContent(/something went wrong/i);
  });

  it("brings a card rated Again back after the other cards, when it is due within the session", async () => {
    const cards = [card("1", "cat"), card("2", "run"), card("3", "red")];
    const server = fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(schedule(cards));
      const body = req.body as { card_id: string; rating: number };
      // Again: due in a minute (a learning step); else in 3 days.
      return json(reviewed(body.card_id, body.rating === 1 ? "2026-03-02T09:01:00Z" : undefined));
    });
    const user = await startSession();
    await user.keyboard(" ");
    await user.keyboard("1");
    const place = screen.getByTestId("session-place");
    await waitFor(() => expect(place).toHaveTextContent("Card 2 of 3 · 1 coming back"));
    expect(screen.getByRole("heading", { name: "run" })).toBeInTheDocument();
    for (const lemma of ["run", "red"]) {
      expect(screen.getByRole("heading", { name: lemma })).toBeInTheDocument();
      await user.keyboard(" ");
      await user.keyboard("3");
    }
    expect(await screen.findByRole("heading", { name: "cat" })).toBeInTheDocument();
    expect(screen.getByTestId("session-place")).toHaveTextContent("All 3 due cards seen · 1 coming back");
    expect(screen.getByText("Coming back")).toBeInTheDocument();
    await user.keyboard(" ");
    // Its preview was for the card before the Again: the buttons show no interval.
    expect(screen.getByRole("button", { name: /^Good/ })).not.toHaveTextContent("next review");
    await user.keyboard("3");

    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/You reviewed/)).toHaveTextContent("You reviewed 3 cards (4 ratings, with the cards that came back).");
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));
    const submits = server.seen.filter((s) => s.path === "/SubmitReview").map((s) => s.body);
    expect(submits).toEqual([
      { card_id: cards[0]!.card_id, rating: 1, reviewed_at: anInstant },
      { card_id: cards[1]!.card_id, rating: 3, reviewed_at: anInstant },
      { card_id: cards[2]!.card_id, rating: 3, reviewed_at: anInstant },
      { card_id: cards[0]!.card_id, rating: 3, reviewed_at: anInstant },
    ]);
  });

  it("does not bring back a card due after the session, nor one whose Again is undone", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(schedule(cards));
      if (req.path === "/UndoReview") return json(undid(cards[0]!.card_id, 1));
      const body = req.body as { card_id: string; rating: number };
      // Again on cat: due in a minute; Hard on cat: in 21 minutes, past the session's 20.
      return json(reviewed(body.card_id, body.rating === 1 ? "2026-03-02T09:01:00Z" : "2026-03-02T09:21:00Z"));
    });
    const user = await startSession();
    await user.keyboard(" ");
    await user.keyboard("1");
    await waitFor(() => expect(screen.getByTestId("session-place")).toHaveTextContent("Card 2 of 2 · 1 coming back"));
    await user.keyboard("u");
    await waitFor(() => expect(screen.getByTestId("session-place")).toHaveTextContent(/^Card 1 of 2$/));
    expect(screen.getByRole("heading", { name: "cat" })).toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("2");
    await user.keyboard(" ");
    await user.keyboard("2");
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));
    expect(screen.getByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/You reviewed/)).toHaveTextContent("You reviewed 2 cards.");
  });

  it("counts only the cards due at its start: cards coming back within it are shown as such, not added to the count", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(schedule(cards));
      const body = req.body as { card_id: string; rating: number };
      // Again: due in a minute; Good on a new card: in 10 minutes (learning steps, within the session); Easy: in days.
      const due = { 1: "2026-03-02T09:01:00Z", 3: "2026-03-02T09:10:00Z" }[body.rating];
      return json(reviewed(body.card_id, due));
    });
    const user = await startSession();
    const place = () => screen.getByTestId("session-place");
    expect(place()).toHaveTextContent(/^Card 1 of 2$/);
    await user.keyboard(" ");
    await user.keyboard("1");
    await waitFor(() => expect(place()).toHaveTextContent(/^Card 2 of 2 · 1 coming back$/));
    expect(screen.getByRole("heading", { name: "run" })).toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("3");
    expect(await screen.findByRole("heading", { name: "cat" })).toBeInTheDocument();
    await waitFor(() => expect(place()).toHaveTextContent(/^All 2 due cards seen · 2 coming back$/));
    expect(screen.getByText("Coming back")).toBeInTheDocument();
    await user.keyboard(" ");
    await user.keyboard("4");
    expect(await screen.findByRole("heading", { name: "run" })).toBeInTheDocument();
    expect(place()).toHaveTextContent(/^All 2 due cards seen · 1 coming back$/);
    await user.keyboard(" ");
    await user.keyboard("4");
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/You reviewed/)).toHaveTextContent("You reviewed 2 cards (4 ratings, with the cards that came back).");
  });

  it("Space and Enter rate Good on the answer, and U walks back several ratings, last first, a card that came back included", async () => {
    const cards = [card("1", "cat"), card("2", "run")];
    let reviewId = 100;
    const server = fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(schedule(cards));
      const body = req.body as { card_id: string; rating: number; review_id?: number };
      if (req.path === "/UndoReview") return json(undid(body.card_id, body.review_id!));
      // Again: due in a minute, so cat comes back; Good and Easy: in days.
      const due = body.rating === 1 ? "2026-03-02T09:01:00Z" : undefined;
      return json({ ...reviewed(body.card_id, due), review_id: ++reviewId } satisfies components["schemas"]["ReviewResult"]);
    });
    const user = await startSession();
    const place = () => screen.getByTestId("session-place");
    await user.keyboard(" ");
    await user.keyboard("1");
    expect(await screen.findByRole("heading", { name: "run" })).toBeInTheDocument();
    // Enter reveals, and Enter on the answer rates Good.
    await user.keyboard("{Enter}");
    expect(screen.getByText("the meaning of run")).toBeInTheDocument();
    await user.keyboard("{Enter}");
    expect(await screen.findByRole("heading", { name: "cat" })).toBeInTheDocument();
    expect(screen.getByText("Coming back")).toBeInTheDocument();
    // Space reveals, and Space on the answer rates Good.
    await user.keyboard(" ");
    expect(screen.getByText("the meaning of cat")).toBeInTheDocument();
    await user.keyboard(" ");
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/Good:/)).toHaveTextContent("Good: 2");
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

    // U, three times: the Good on cat (back), the Good on run, the Again on cat.
    await user.keyboard("u");
    expect(await screen.findByText("Your Good on “cat” is undone: rate it again.")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "cat" })).toBeInTheDocument();
    await waitFor(() => expect(place()).toHaveTextContent(/^All 2 due cards seen · 1 coming back$/));
    await user.keyboard("u");
    expect(await screen.findByText("Your Good on “run” is undone: rate it again.")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "run" })).toBeInTheDocument();
    await waitFor(() => expect(place()).toHaveTextContent(/^Card 2 of 2 · 1 coming back$/));
    await user.keyboard("u");
    expect(await screen.findByText("Your Again on “cat” is undone: rate it again.")).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "cat" })).toBeInTheDocument();
    await waitFor(() => expect(place()).toHaveTextContent(/^Card 1 of 2$/));
    expect(screen.queryByText("the meaning of cat")).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));

    await user.keyboard(" ");
    await user.keyboard("4");
    await user.keyboard(" ");
    await user.keyboard("4");
    expect(await screen.findByRole("heading", { name: "Session complete" })).toBeInTheDocument();
    expect(screen.getByText(/You reviewed/)).toHaveTextContent("You reviewed 2 cards.");
    await waitFor(() => expect(screen.getByTestId("queue-status")).toHaveTextContent("All ratings saved."));
    const writes = server.seen.filter((s) => s.path !== "/GetSchedule").map((s) => [s.path, s.body]);
    const [cat, run] = [cards[0]!.card_id, cards[1]!.card_id];
    expect(writes).toEqual([
      ["/SubmitReview", { card_id: cat, rating: 1, reviewed_at: anInstant }],
      ["/SubmitReview", { card_id: run, rating: 3, reviewed_at: anInstant }],
      ["/SubmitReview", { card_id: cat, rating: 3, reviewed_at: anInstant }],
      ["/UndoReview", { card_id: cat, review_id: 103 }],
      ["/UndoReview", { card_id: run, review_id: 102 }],
      ["/UndoReview", { card_id: cat, review_id: 101 }],
      ["/SubmitReview", { card_id: cat, rating: 4, reviewed_at: anInstant }],
      ["/SubmitReview", { card_id: run, rating: 4, reviewed_at: anInstant }],
    ]);
  });
});
