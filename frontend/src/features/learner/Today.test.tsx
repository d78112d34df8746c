import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { keepOffset } from "../../api/clock";
import type { components } from "../../api/schema";
import { clockTime, dueTime, locale, zoneLabel } from "../../components/when";
import { fakeServer, json, renderApp } from "../../test/render";
import { Today } from "./Today";

const due = (state: components["schemas"]["CardState"], i: number) => ({
  card_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  lemma: `word${i}`,
  part_of_speech: "noun",
  definition: "a word",
  example: "",
  term_language: "en",
  deck_title: "",
  state,
  due: "2026-03-02T09:00:00Z",
  stability: 0,
  difficulty: 0,
  preview: [],
}) satisfies components["schemas"]["DueCard"];

/** GetSchedule's answer with nothing due, and GetProgress's with nothing done. */
const emptySchedule = {
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
} satisfies components["schemas"]["Schedule"];
const noProgress = {
  learner_id: "x",
  predicted_recall: { words: 0, today: 0, in_30_days: 0 },
  streak: { current: 0, longest: 0, last_day: null },
  achievements: [],
  feed: [],
  assignments: [],
  started_decks: [],
} satisfies components["schemas"]["Progress"];

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000 - 60_000).toISOString();

/** Common verbs 1, due at dueAt, 24 of its 25 words still to learn. */
const verbsDueAt = (dueAt: string) =>
  ({
    assignment_id: "8b1c2a44-3f7e-4d5b-9a0e-1c2d3e4f5a6b",
    deck: "Common verbs 1",
    due_at: dueAt,
    completed_at: null,
    cards_total: 25,
    cards_seen: 5,
    cards_learned: 1,
    reviews: 7,
    pending: false,
  }) satisfies components["schemas"]["AssignmentProgress"];

describe("Today", () => {
  it("shows cards due, the new cards left of the daily limit, the streak, and each assignment with its pace", async () => {
    const dueAt = inDays(3);
    const server = fakeServer((req) =>
      req.path === "/GetSchedule"
        ? json({
            learner_id: "00000000-0000-4000-8000-000000000001",
            timezone: "UTC",
            now: "2026-03-02T09:00:00Z",
            due_count: 30,
            new_count: 12,
            new_cards_per_day: 20,
            new_cards_today: 8,
            new_cards_left: 12,
            due: [due("review", 1)],
            forecast: [{ date: "2026-03-02", due: 30 }],
          } satisfies components["schemas"]["Schedule"])
        : json({
            learner_id: "00000000-0000-4000-8000-000000000001",
            predicted_recall: { words: 0, today: 0, in_30_days: 0 },
            streak: { current: 4, longest: 9, last_day: "2026-03-01" },
            achievements: [],
            feed: [],
            started_decks: [],
            assignments: [verbsDueAt(dueAt)],
          } satisfies components["schemas"]["Progress"]),
    );
    renderApp(<Today />);
    expect(await screen.findByText(/cards due now/)).toHaveTextContent("30 cards due now");
    // The server's count of what the daily limit leaves, not the new cards among those listed.
    expect(screen.getByText(/new cards left today/)).toHaveTextContent("12 new cards left today (8 of 20 a day studied)");
    expect(await screen.findByText(/in a row/)).toHaveTextContent("4 days in a row (longest 9)");
    expect(screen.getByText("Common verbs 1")).toBeInTheDocument();
    expect(screen.getByRole("progressbar")).toHaveAttribute("value", "1");
    // 24 words over 3 days.
    expect(screen.getByText(/8 words a day to finish by/)).toBeInTheDocument();
    // The due time names its zone, and the pace names the same time.
    const zone = zoneLabel(dueAt);
    expect(screen.getByText(/^due /)).toHaveTextContent(`due ${dueTime(dueAt)}`);
    expect(screen.getByText(/^due /).textContent.endsWith(` ${zone}`)).toBe(true);
    expect(screen.getByText(/8 words a day to finish by/).textContent.endsWith(` at ${clockTime(dueAt)}.`)).toBe(true);
    expect(server.seen.find((s) => s.path === "/GetSchedule")!.query.get("limit")).toBe("1");
  });

  it("counts the pace and the read time from the server's clock on a device 2 days fast", async () => {
    const server = Date.parse("2026-03-02T09:00:00.000Z");
    const device = server + 2 * 86_400_000;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(device);
      keepOffset({ offsetMs: server - device, serverAt: server, deviceAt: device });
      // Due 3 days after the server's now, which the device's clock says is 1 day away.
      const dueAt = new Date(server + 3 * 86_400_000 - 60_000).toISOString();
      fakeServer((req) => json(req.path === "/GetSchedule" ? emptySchedule : { ...noProgress, assignments: [verbsDueAt(dueAt)] }));
      renderApp(<Today />);
      // 24 words over 3 days, not 24 in the 1 day the device's clock counts.
      expect(await screen.findByText(/8 words a day to finish by/)).toBeInTheDocument();
      const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" });
      expect(screen.getByText(/Progress is updated in the background/)).toHaveTextContent(`(read ${dateTime.format(server)})`);
    } finally {
      vi.useRealTimers();
    }
  });

  it("says a new assignment is being prepared until the drain has counted it, and reads again by itself", async () => {
    const assignment = (pending: boolean) => ({
      assignment_id: "8b1c2a44-3f7e-4d5b-9a0e-1c2d3e4f5a6b",
      deck: "Common verbs 1",
      due_at: inDays(3),
      completed_at: null,
      cards_total: pending ? 0 : 24,
      cards_seen: 0,
      cards_learned: 0,
      reviews: 0,
      pending,
    }) satisfies components["schemas"]["AssignmentProgress"];
    let reads = 0;
    const server = fakeServer((req) =>
      req.path === "/GetSchedule"
        ? json({ ...emptySchedule, due_count: 24, due: [due("new", 1)] } satisfies components["schemas"]["Schedule"])
        : json({ ...noProgress, assignments: [assignment(reads++ < 2)] } satisfies components["schemas"]["Progress"]),
    );
    renderApp(<Today />);
    expect(await screen.findByText(/Preparing this deck/)).toBeInTheDocument();
    expect(screen.queryByText(/Done/)).not.toBeInTheDocument();
    expect(screen.queryByText(/cards learned/)).not.toBeInTheDocument();
    // Read again after 1 s, 1 s (still pending), then counted: well before the usual 10 s.
    expect(await screen.findByText(/8 words a day to finish by/, {}, { timeout: 6_000 })).toBeInTheDocument();
    expect(screen.getByText(/cards learned/)).toHaveTextContent("0 of 24 cards learned");
    expect(screen.queryByText(/Preparing this deck/)).not.toBeInTheDocument();
    expect(server.seen.filter((s) => s.path === "/GetProgress")).toHaveLength(3);
  });

  it("shows the decks the learner started on their own beside the assignments, with their progress", async () => {
    fakeServer((req) =>
      req.path === "/GetSchedule"
        ? json(emptySchedule)
        : json({
            ...noProgress,
            started_decks: [
              {
                deck_id: "3f1c2a44-3f7e-4d5b-9a0e-1c2d3e4f5a6b",
                deck: "Core English 01",
                started_at: "2026-03-01T08:00:00Z",
                cards_total: 40,
                cards_seen: 3,
                cards_learned: 2,
                cards_due: 38,
                reviews: 3,
              },
            ],
          } satisfies components["schemas"]["Progress"]),
    );
    renderApp(<Today />);
    const own = await screen.findByRole("list", { name: "Your own decks" });
    expect(own).toHaveTextContent("Core English 01");
    expect(own).toHaveTextContent("2 of 40 cards learned · 38 due now");
    expect(within(own).getByRole("progressbar")).toHaveAttribute("value", "2");
    expect(screen.getByText(/No assignments yet/)).toBeInTheDocument();
  });

  it("says when there is nothing assigned", async () => {
    fakeServer((req) =>
      req.path === "/GetSchedule"
        ? json(emptySchedule)
        : json(noProgress),
    );
    renderApp(<Today />);
    expect(await screen.findByText(/No assignments yet/)).toBeInTheDocument();
    expect(screen.getByText(/No decks of your own yet/)).toHaveTextContent("start one in the Library");
    expect(screen.getByText(/cards due now/)).toHaveTextContent("0 cards due now");
  });

  it("joins a class with a join code, and says why a code is refused", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(emptySchedule);
      if (req.path === "/GetProgress") return json(noProgress);
      const code = (req.body as { join_code: string }).join_code;
      if (code !== "MORN42")
        return json(
          { type: "https://lexora.app/problems/not-found", title: "Not found", status: 404, detail: "class not found" } satisfies components["schemas"]["Problem"],
          404,
        );
      return json({ class_id: "c1", class_name: "Morning B", learner_id: "x", assignments: [] } satisfies components["schemas"]["Enrollment"], 201);
    });
    const user = userEvent.setup();
    renderApp(<Today />);
    const input = await screen.findByLabelText("Join code from your teacher");
    await user.type(input, "NOPE1");
    await user.click(screen.getByRole("button", { name: "Join" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("You did not join: no class has the join code NOPE1. Check it with your teacher.");
    expect(screen.getByRole("alert")).not.toHaveTextContent("Not found");

    await user.clear(input);
    // Typed in groups, as read aloud: the spaces and hyphens go.
    await user.type(input, " MORN 4-2 ");
    await user.click(screen.getByRole("button", { name: "Join" }));
    expect(await screen.findByText("You joined Morning B.")).toBeInTheDocument();
    const joins = server.seen.filter((s) => s.path === "/EnrollLearner");
    expect(joins.map((s) => s.body)).toEqual([{ join_code: "NOPE1" }, { join_code: "MORN42" }]);
    expect(new Set(joins.map((s) => s.headers.get("Idempotency-Key"))).size).toBe(2);
  });

  it("joins with a code typed in full-width letters and digits, as a Japanese keyboard types it (NFKC)", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/GetSchedule") return json(emptySchedule);
      if (req.path === "/GetProgress") return json(noProgress);
      return json({ class_id: "c1", class_name: "Morning B", learner_id: "x", assignments: [] } satisfies components["schemas"]["Enrollment"], 201);
    });
    const user = userEvent.setup();
    renderApp(<Today />);
    const input = await screen.findByLabelText("Join code from your teacher");
    // Full-width letters, digits, hyphen (U+FF0D) and space (U+3000); then an en dash between groups.
    await user.type(input, "ＤＥＭＯ－２０\u3000２６");
    await user.click(screen.getByRole("button", { name: "Join" }));
    expect(await screen.findByText("You joined Morning B.")).toBeInTheDocument();
    await user.clear(input);
    await user.type(input, "demo–2026");
    await user.click(screen.getByRole("button", { name: "Join" }));
    await waitFor(() => expect(server.seen.filter((s) => s.path === "/EnrollLearner")).toHaveLength(2));
    // The server uppercases the code itself: its case is left as typed.
    expect(server.seen.filter((s) => s.path === "/EnrollLearner").map((s) => s.body)).toEqual([{ join_code: "DEMO2026" }, { join_code: "demo2026" }]);
  });
});
