import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { noAccount } from "./api/problem";
import type { components } from "./api/schema";
import type { DevUser } from "./auth/devSignIn";
import { AppRoutes } from "./App";
import { fakeServer, json, renderApp } from "./test/render";

// A Google sign-in: the client does not know the role until Me answers.
const google = { id: "google-uid-1", displayName: "", email: "kim@school.example", role: null };

const me = (role: components["schemas"]["Role"], extra: Partial<components["schemas"]["Me"]> = {}) => ({
  id: "00000000-0000-4000-8000-0000000000aa",
  display_name: "Kim Lee",
  email: "kim@school.example",
  roles: [role],
  timezone: "Europe/Paris",
  classes: [],
  teaching: [],
  ...extra,
}) satisfies components["schemas"]["Me"];

// Me's answer to an identity that has an account of role, or none yet (null).
const meOrNoAccount = (role: components["schemas"]["Role"] | null) =>
  role
    ? json(me(role))
    : json(
        { type: noAccount, title: "No account", status: 404, detail: "this identity has no Lexora account" } satisfies components["schemas"]["Problem"],
        404,
      );

const deck = (n: number, level: number, started = false) => ({
  id: `d0000000-0000-4000-8000-00000000000${n}`,
  title: `Core English 0${n}`,
  description: "",
  words: 25,
  level,
  library: true,
  started,
}) satisfies components["schemas"]["Deck"];

const navLinks = () => within(screen.getByRole("navigation", { name: "Sections" })).getAllByRole("link").map((a) => a.textContent);

describe("navigation from Me", () => {
  it("offers a teacher the teacher's sections and opens their classes", async () => {
    fakeServer((req) => (req.path === "/Me" ? json(me("teacher")) : json({ classes: [] } satisfies components["schemas"]["ClassList"])));
    renderApp(<AppRoutes />, { user: google });
    expect(await screen.findByRole("heading", { name: "Classes", level: 1 })).toBeInTheDocument();
    expect(navLinks()).toEqual(["Classes", "Decks", "Webhooks"]);
    expect(screen.getByText("Kim Lee")).toBeInTheDocument();
  });

  it("offers a learner the library, where a deck is started with its own key", async () => {
    let started = false;
    const server = fakeServer((req) => {
      if (req.path === "/Me") return json(me("learner"));
      if (req.path === "/ListDecks") return json({ decks: [deck(1, 1, true), deck(2, 1, started)] } satisfies components["schemas"]["DeckList"]);
      if (req.path === "/StartDeck") {
        started = true;
        return json(
          {
            deck_id: deck(2, 1).id,
            title: "Core English 02",
            words: 25,
            cards_created: 25,
            started_at: "2026-03-02T09:00:00Z",
            already_started: false,
          } satisfies components["schemas"]["DeckStart"],
          201,
        );
      }
      return json({ type: "https://lexora.app/problems/not-found", title: "Not found", status: 404 } satisfies components["schemas"]["Problem"], 404);
    });
    const user = userEvent.setup();
    renderApp(<AppRoutes />, { user: google, path: "/library" });
    expect(await screen.findByRole("heading", { name: "Library", level: 1 })).toBeInTheDocument();
    expect(navLinks()).toEqual(["Today", "Review", "Schedule", "Progress", "Library"]);
    const level1 = await screen.findByRole("region", { name: "Level 1: the 200 most frequent words" });
    const first = within(level1).getByRole("listitem", { name: "Core English 01" });
    expect(within(first).getByText("Started")).toBeInTheDocument();
    expect(within(first).queryByRole("button", { name: /Start/ })).not.toBeInTheDocument();
    const second = within(level1).getByRole("listitem", { name: "Core English 02" });
    // Each Start button names its deck.
    await user.click(within(second).getByRole("button", { name: "Start Core English 02" }));
    expect(await within(second).findByRole("status")).toHaveTextContent("Started: 25 new cards join your reviews.");
    const starts = server.seen.filter((s) => s.path === "/StartDeck");
    expect(starts.map((s) => s.body)).toEqual([{ deck_id: deck(2, 1).id }]);
    expect(starts[0]!.headers.get("Idempotency-Key")).toBeTruthy();
  });

  it("welcomes an identity without an account, which becomes a teacher by creating its first class", async () => {
    const evening = {
      id: "c1",
      name: "Evening B",
      join_code: "K7QX2M",
      new_cards_per_day: 20,
      created_at: "2026-03-02T09:00:00Z",
      archived_at: null,
      members: [],
      decks: [],
    } satisfies components["schemas"]["Class"];
    let teacher = false;
    const server = fakeServer((req) => {
      if (req.path === "/Me") return meOrNoAccount(teacher ? "teacher" : null);
      if (req.path === "/CreateClass") {
        teacher = true;
        return json(evening, 201);
      }
      return json({ classes: [evening] } satisfies components["schemas"]["ClassList"]);
    });
    const user = userEvent.setup();
    renderApp(<AppRoutes />, { user: google, path: "/today" });
    expect(await screen.findByRole("heading", { name: "Welcome to Lexora" })).toBeInTheDocument();
    expect(navLinks()).toEqual(["Welcome"]);
    expect(server.seen.some((s) => s.path === "/GetSchedule")).toBe(false);

    await user.type(screen.getByLabelText("Your name, as your learners will see it"), "Kim Lee");
    await user.type(screen.getByLabelText("Class name"), "Evening B");
    await user.click(screen.getByRole("button", { name: "Create class" }));
    expect(await screen.findByRole("heading", { name: "Classes", level: 1 })).toBeInTheDocument();
    expect(await screen.findByRole("heading", { name: "Evening B" })).toBeInTheDocument();
    await waitFor(() => expect(navLinks()).toEqual(["Classes", "Decks", "Webhooks"]));
    const create = server.seen.find((s) => s.path === "/CreateClass")!;
    expect(create.body).toEqual({ name: "Evening B", display_name: "Kim Lee", timezone: Intl.DateTimeFormat().resolvedOptions().timeZone });
  });

  it("welcomes an identity without an account, which becomes a learner by joining a class with its code", async () => {
    let learner = false;
    const server = fakeServer((req) => {
      if (req.path === "/Me") return meOrNoAccount(learner ? "learner" : null);
      if (req.path === "/EnrollLearner") {
        if ((req.body as { join_code: string }).join_code !== "MORN42")
          return json({ type: "https://lexora.app/problems/not-found", title: "Not found", status: 404 } satisfies components["schemas"]["Problem"], 404);
        learner = true;
        return json(
          { class_id: "c1", class_name: "Morning B", learner_id: me("learner").id, assignments: [] } satisfies components["schemas"]["Enrollment"],
          201,
        );
      }
      if (req.path === "/GetSchedule")
        return json({
          learner_id: "x",
          timezone: "UTC",
          now: "2026-03-02T09:00:00Z",
          due_count: 0,
          new_count: 0,
          new_cards_per_day: 20,
          new_cards_today: 0,
          new_cards_left: 20,
          due: [],
          forecast: [],
        } satisfies components["schemas"]["Schedule"]);
      return json({
        learner_id: "x",
        predicted_recall: { words: 0, today: 0, in_30_days: 0 },
        streak: { current: 0, longest: 0, last_day: null },
        achievements: [],
        feed: [],
        assignments: [
          {
            assignment_id: "a1",
            deck: "Core English 01",
            due_at: "2099-01-01T00:00:00Z",
            completed_at: null,
            cards_total: 25,
            cards_seen: 0,
            cards_learned: 0,
            reviews: 0,
            pending: false,
          },
        ],
        started_decks: [],
      } satisfies components["schemas"]["Progress"]);
    });
    const user = userEvent.setup();
    renderApp(<AppRoutes />, { user: google, path: "/today" });
    expect(await screen.findByRole("heading", { name: "Welcome to Lexora" })).toBeInTheDocument();
    expect(screen.queryByText(/Ask your teacher/)).not.toBeInTheDocument();

    await user.type(screen.getByLabelText("Your name, as your teacher will see it"), "Kim Lee");
    const code = screen.getByLabelText("Join code from your teacher");
    await user.type(code, "NOPE1");
    await user.click(screen.getByRole("button", { name: "Join" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("no class has the join code NOPE1");
    expect(navLinks()).toEqual(["Welcome"]);

    await user.clear(code);
    await user.type(code, "MORN42");
    await user.click(screen.getByRole("button", { name: "Join" }));
    expect(await screen.findByRole("heading", { name: "Today", level: 1 })).toBeInTheDocument();
    expect(await screen.findByText("Core English 01")).toBeInTheDocument();
    await waitFor(() => expect(navLinks()).toEqual(["Today", "Review", "Schedule", "Progress", "Library"]));
    const joins = server.seen.filter((s) => s.path === "/EnrollLearner");
    expect(joins.map((s) => s.body)).toEqual([
      { join_code: "NOPE1", display_name: "Kim Lee", timezone: Intl.DateTimeFormat().resolvedOptions().timeZone },
      { join_code: "MORN42", display_name: "Kim Lee", timezone: Intl.DateTimeFormat().resolvedOptions().timeZone },
    ]);
    expect(joins[1]!.headers.get("Idempotency-Key")).not.toBe(joins[0]!.headers.get("Idempotency-Key"));
  });

  it("moves the focus to the first screen's heading after sign-in", async () => {
    fakeServer((req) => {
      if (req.path === "/dev/users")
        // GET /dev/users is the local server's, not a function of functions/openapi.yaml.
        return json({
          users: [{ id: "00000000-0000-4000-8000-0000000000aa", display_name: "Kim Lee", email: "kim@school.example", role: "teacher" }],
        } satisfies { users: DevUser[] });
      if (req.path === "/Me") return json(me("teacher"));
      return json({ classes: [] } satisfies components["schemas"]["ClassList"]);
    });
    const user = userEvent.setup();
    renderApp(<AppRoutes />, { user: google, path: "/signin", signedOut: true });
    await user.click(await screen.findByRole("button", { name: /Kim Lee/ }));
    const heading = await screen.findByRole("heading", { name: "Classes", level: 1 });
    await waitFor(() => expect(heading).toHaveFocus());
  });
});
