import { screen, waitFor, within } from "@testing-library/react";
import { Route, Routes } from "react-router";
import { describe, expect, it, vi } from "vitest";
import { keepOffset } from "../../api/clock";
import type { components } from "../../api/schema";
import { dueTime, locale } from "../../components/when";
import { fakeServer, json, renderApp } from "../../test/render";
import { workload } from "../../test/workload";
import { ClassProgress } from "./ClassProgress";
import { teacher, teacherMe } from "../../test/teacher";


const classId = "00000000-0000-4000-8000-0000000000c1";
const nouns = "d0000000-0000-4000-8000-000000000001";
const verbs = "d0000000-0000-4000-8000-000000000002";

const cell = (
  deck: string,
  title: string,
  due: string,
  progress: components["schemas"]["ProgressCounts"] | null,
  extra: Partial<components["schemas"]["ClassProgressCell"]> = {},
) => ({
  assignment_id: crypto.randomUUID(),
  deck_id: deck,
  deck_title: title,
  due_at: due,
  completed_at: null,
  cards_due: 4,
  progress,
  ...extra,
}) satisfies components["schemas"]["ClassProgressCell"];

const counted = {
  cards_total: 25,
  cards_seen: 9,
  cards_learned: 7,
  reviews: 14,
  last_study_day: "2026-03-03",
  updated_at: "2026-03-03T10:15:30Z",
} satisfies components["schemas"]["ProgressCounts"];

const grid = {
  class_id: classId,
  name: "Year 9 English",
  archived_at: null,
  now: "2026-03-03T10:16:00Z",
  progress_updated_at: "2026-03-03T10:15:30Z",
  decks: [] as components["schemas"]["ClassDeck"][],
  learners: [
    {
      learner_id: "00000000-0000-4000-8000-000000000001",
      display_name: "Mia Laurent",
      timezone: "Europe/Paris",
      assignments: [
        cell(verbs, "Rare verbs", "2026-03-20T22:59:00Z", counted),
        cell(nouns, "Everyday nouns", "2026-03-10T22:59:00Z", { ...counted, cards_learned: 25 }, { completed_at: "2026-03-02T09:00:00Z" }),
      ],
    },
    {
      learner_id: "00000000-0000-4000-8000-000000000002",
      display_name: "Noah Brooks",
      timezone: "America/New_York",
      assignments: [cell(verbs, "Rare verbs", "2026-03-20T22:59:00Z", null, { cards_due: 30 })],
    },
  ],
  hardest_words: [{ lexeme_id: "l1", lemma: "ephemeral", part_of_speech: "adjective", lapses: 5, learners: 2, leeches: 1 }],
} satisfies components["schemas"]["ClassProgress"];

const me = teacherMe;

/** Opens the class's progress on GetClassProgress's answer body (a grid, or a problem with status). */
function show(body: components["schemas"]["ClassProgress"] | components["schemas"]["Problem"], status = 200) {
  const server = fakeServer((req) =>
    req.path === "/Me"
      ? json(me)
      : req.path === "/GetDeckWorkload"
        ? json(workload(classId, verbs, 0.9, [2, 3, 4, 5]))
        : json(body, status),
  );
  renderApp(
    <Routes>
      <Route path="/teacher/classes/:classId" element={<ClassProgress />} />
    </Routes>,
    { user: teacher, path: `/teacher/classes/${classId}` },
  );
  return server;
}

describe("ClassProgress", () => {
  it("shows the learner × assignment grid with learned, due and last activity, and when the projection was updated", async () => {
    const server = show(grid);
    await screen.findByRole("heading", { name: "Year 9 English: progress" });
    expect(server.seen.find((s) => s.path === "/GetClassProgress")!.query.get("class_id")).toBe(classId);
    expect(screen.getByTestId("freshness")).toHaveTextContent(/updated asynchronously/);
    expect(screen.getByTestId("freshness")).toHaveTextContent(/Progress last updated .*2026/);

    const table = within(screen.getByRole("region", { name: "Progress by learner and assignment" })).getByRole("table");
    // Columns by earliest due date, each saying it in the teacher's zone (Me), named, as Classes
    // does: Everyday nouns, then Rare verbs.
    await waitFor(() =>
      expect(within(table).getAllByRole("columnheader").map((h) => h.textContent)).toEqual([
        "Learner",
        `Everyday nouns (due ${dueTime("2026-03-10T22:59:00Z", "Asia/Tokyo")})`,
        `Rare verbs (due ${dueTime("2026-03-20T22:59:00Z", "Asia/Tokyo")})`,
      ]),
    );
    expect(within(table).getAllByRole("columnheader")[2]!.textContent).toMatch(/^Rare verbs \(due Mar 21(, 2026)?, 7:59\sAM Japan Time\)$/);
    const [, miaRow, noahRow] = within(table).getAllByRole("row");
    const mia = within(miaRow!).getAllByRole("cell");
    expect(mia[0]).toHaveTextContent("25 of 25 learned");
    expect(mia[0]).toHaveTextContent(/completed/);
    expect(mia[1]).toHaveTextContent("7 of 25 learned");
    expect(mia[1]).toHaveTextContent("4 due now");
    expect(mia[1]).toHaveTextContent(/last studied .*2026 \(the learner's day, in Paris\)/);
    const noah = within(noahRow!).getAllByRole("cell");
    expect(noah[0]).toHaveTextContent("not assigned");
    expect(noah[1]).toHaveTextContent("not counted yet");
    expect(noah[1]).toHaveTextContent("30 due now");
    expect(noah[1]).toHaveTextContent("not started");

    const words = within(screen.getByRole("region", { name: "Hardest words" })).getByRole("table");
    expect(within(words).getAllByRole("row")[1]).toHaveTextContent(/ephemeral\s*adjective\s*5\s*2\s*1/);
  });

  it("says when the grid was read on the server's clock, on a device an hour fast", async () => {
    const server = Date.parse(grid.now);
    const device = server + 3_600_000;
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(device);
      keepOffset({ offsetMs: server - device, serverAt: server, deviceAt: device });
      show(grid);
      await screen.findByRole("heading", { name: "Year 9 English: progress" });
      const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium" });
      // Read 30 s after the projection changed (10:15:30), not an hour and 30 s.
      expect(screen.getByTestId("freshness")).toHaveTextContent(`read ${dateTime.format(server)}, and again`);
    } finally {
      vi.useRealTimers();
    }
  });

  it("orders the columns by due date even when a later-due deck sorts first by title or its times are written otherwise", async () => {
    const early = cell(verbs, "Abstract verbs", "2026-03-10T09:00:00.5+01:00", null);
    const late = cell(nouns, "Zoo nouns", "2026-03-10T08:30:00Z", null);
    show({ ...grid, learners: [{ ...grid.learners[0]!, assignments: [late, early] }] });
    const table = within(await screen.findByRole("region", { name: "Progress by learner and assignment" })).getByRole("table");
    expect(within(table).getAllByRole("columnheader").map((h) => h.textContent?.replace(/ \(due.*/, ""))).toEqual([
      "Learner",
      "Abstract verbs",
      "Zoo nouns",
    ]);
  });

  it("a deck studied before it was assigned shows what was learned, not 'not started'", async () => {
    const before = { ...counted, cards_seen: 12, cards_learned: 10, reviews: 0, last_study_day: null };
    show({ ...grid, learners: [{ ...grid.learners[0]!, assignments: [cell(verbs, "Rare verbs", "2026-03-20T22:59:00Z", before)] }] });
    const table = within(await screen.findByRole("region", { name: "Progress by learner and assignment" })).getByRole("table");
    const cellOf = within(within(table).getAllByRole("row")[1]!).getAllByRole("cell")[0]!;
    expect(cellOf).toHaveTextContent("10 of 25 learned");
    expect(cellOf).toHaveTextContent("studied before it was assigned");
    expect(cellOf).not.toHaveTextContent("not started");
  });

  it("says when nothing is counted yet and nobody has joined", async () => {
    show({ ...grid, progress_updated_at: null, learners: [], hardest_words: [] });
    expect(await screen.findByText(/Nobody has joined this class yet/)).toBeInTheDocument();
    expect(screen.getByTestId("freshness")).toHaveTextContent("never (nothing counted yet)");
    expect(screen.getByText(/No lapses yet/)).toBeInTheDocument();
  });

  it("orders the learners by name whatever their case", async () => {
    const [mia, noah] = grid.learners;
    show({ ...grid, learners: [noah!, { ...mia!, learner_id: "00000000-0000-4000-8000-000000000003", display_name: "zoe Hart" }, mia!] });
    const table = within(await screen.findByRole("region", { name: "Progress by learner and assignment" })).getByRole("table");
    expect(within(table).getAllByRole("rowheader").map((h) => h.textContent)).toEqual(["Mia Laurent", "Noah Brooks", "zoe Hart"]);
  });

  it("lists the class's decks before anyone has joined", async () => {
    show({
      ...grid,
      progress_updated_at: null,
      learners: [],
      hardest_words: [],
      decks: [
        {
          deck_id: verbs,
          deck_title: "Rare verbs",
          due_at: "2026-03-20T22:59:00Z",
          assigned_at: "2026-03-03T10:00:00Z",
          desired_retention: 0.9,
        },
      ],
    });
    expect(await screen.findByText(/Nobody has joined this class yet/)).toBeInTheDocument();
    expect(screen.getByTestId("class-decks")).toHaveTextContent(`Rare verbs due ${dueTime("2026-03-20T22:59:00Z")}`);
    // Its retention beside the workload it asks.
    expect(await screen.findByRole("spinbutton", { name: /Desired retention/ })).toHaveValue(90);
    expect(await screen.findByText("90 % (now)")).toBeInTheDocument();
  });

  it("shows a refusal's problem title", async () => {
    show({ type: "https://lexora.app/problems/not-found", title: "Not found", status: 404, detail: "class not found" }, 404);
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Could not load the class's progress: Not found");
    expect(alert).toHaveTextContent("class not found");
  });
});
