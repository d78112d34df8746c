import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { noAccount } from "../../api/problem";
import type { components } from "../../api/schema";
import { AppRoutes } from "../../App";
import { fakeServer, json, renderApp } from "../../test/render";

// A Google sign-in: the client does not know the role until Me answers.
const google = { id: "google-uid-2", displayName: "", email: "ana@example.com", role: null };

const learner = {
  id: "00000000-0000-4000-8000-0000000000ab",
  display_name: "Ana Lima",
  email: "ana@example.com",
  roles: ["learner"],
  timezone: "America/Sao_Paulo",
  classes: [],
  teaching: [],
} satisfies components["schemas"]["Me"];

const navLinks = () => within(screen.getByRole("navigation", { name: "Sections" })).getAllByRole("link").map((a) => a.textContent);

describe("Welcome", () => {
  it("makes someone without a class code a learner who studies the library on their own", async () => {
    let made = false;
    const server = fakeServer((req) => {
      if (req.path === "/Me")
        return made
          ? json(learner)
          : json({ type: noAccount, title: "No account", status: 404 } satisfies components["schemas"]["Problem"], 404);
      if (req.path === "/CreateLearnerAccount") {
        made = true;
        return json(learner, 201);
      }
      if (req.path === "/GetSchedule")
        return json({
          learner_id: learner.id,
          timezone: learner.timezone,
          now: "2026-03-02T09:00:00Z",
          due_count: 0,
          new_count: 0,
          new_cards_per_day: 20,
          new_cards_today: 0,
          new_cards_left: 20,
          due: [],
          forecast: [],
        } satisfies components["schemas"]["Schedule"]);
      if (req.path === "/GetProgress")
        return json({
          learner_id: learner.id,
          predicted_recall: { words: 0, today: 0, in_30_days: 0 },
          streak: { current: 0, longest: 0, last_day: null },
          achievements: [],
          feed: [],
          assignments: [],
          started_decks: [],
        } satisfies components["schemas"]["Progress"]);
      return json({
        decks: [{ id: "d1", title: "Core English 01", description: "", words: 25, level: 1, library: true, started: false }],
      } satisfies components["schemas"]["DeckList"]);
    });
    const user = userEvent.setup();
    renderApp(<AppRoutes />, { user: google, path: "/today" });
    expect(await screen.findByRole("heading", { name: "Welcome to Lexora" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "Study on my own" })).toBeInTheDocument();

    await user.type(screen.getByLabelText("Your name"), "Ana Lima");
    await user.click(screen.getByRole("button", { name: "Study on my own" }));
    expect(await screen.findByRole("heading", { name: "Library", level: 1 })).toBeInTheDocument();
    expect(await screen.findByText("Core English 01")).toBeInTheDocument();
    await waitFor(() => expect(navLinks()).toEqual(["Today", "Review", "Schedule", "Progress", "Library"]));
    const creations = server.seen.filter((s) => s.path === "/CreateLearnerAccount");
    expect(creations.map((s) => s.body)).toEqual([{ timezone: Intl.DateTimeFormat().resolvedOptions().timeZone, display_name: "Ana Lima" }]);
    expect(creations[0]!.headers.get("Idempotency-Key")).toBeTruthy();
    expect(server.seen.some((s) => s.path === "/EnrollLearner" || s.path === "/CreateClass")).toBe(false);
  });

  it("says why the account was not made, and makes none", async () => {
    const server = fakeServer((req) =>
      req.path === "/Me"
        ? json({ type: noAccount, title: "No account", status: 404 } satisfies components["schemas"]["Problem"], 404)
        : json(
            {
              type: "https://lexora.app/problems/invalid-request",
              title: "Invalid request",
              status: 400,
              errors: [{ field: "display_name", reason: "must be one line" }],
            } satisfies components["schemas"]["Problem"],
            400,
          ),
    );
    const user = userEvent.setup();
    renderApp(<AppRoutes />, { user: google, path: "/welcome" });
    await user.click(await screen.findByRole("button", { name: "Study on my own" }));
    expect(await screen.findByRole("alert")).toHaveTextContent(/Your account was not made/);
    expect(screen.getByRole("heading", { name: "Welcome to Lexora" })).toBeInTheDocument();
    expect(server.seen.filter((s) => s.path === "/CreateLearnerAccount")).toHaveLength(1);
  });
});
