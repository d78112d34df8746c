import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { workload } from "../../test/workload";
import { DeckRetention } from "./DeckRetention";

const teacher = { id: "00000000-0000-4000-8000-00000000000a", displayName: "Ada", email: "ada@lexora.test", role: "teacher" as const };
const classId = "00000000-0000-4000-8000-0000000000c1";
const deckId = "d0000000-0000-4000-8000-000000000002";

const deck = {
  deck_id: deckId,
  deck_title: "Rare verbs",
  due_at: "2026-03-20T22:59:00Z",
  assigned_at: "2026-03-03T10:00:00Z",
  desired_retention: 0.9,
} satisfies components["schemas"]["ClassDeck"];

describe("DeckRetention", () => {
  it("shows the workload at each retention in a chart and a table, and saves the chosen retention", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/GetDeckWorkload") return json(workload(classId, deckId, 0.9, [2.5, 3, 4.25, 7]));
      return json({
        class_id: classId,
        deck_id: deckId,
        desired_retention: 0.85,
        previous_retention: 0.9,
        changed: true,
      } satisfies components["schemas"]["DeckRetention"]);
    });
    const user = userEvent.setup();
    const { container } = renderApp(<DeckRetention classId={classId} deck={deck} />, { user: teacher });

    const table = await screen.findByRole("table");
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.textContent)).toEqual([
      "80 %2.52.5",
      "85 %3.03.0",
      "90 % (now)4.34.3",
      "95 %7.07.0",
    ]);
    expect(screen.getByText(/3 learners, 1 with their own fitted parameters/)).toBeInTheDocument();
    // One line per retention.
    expect(container.querySelectorAll(".recharts-line").length).toBe(4);
    expect(server.seen[0]!.query.get("class_id")).toBe(classId);
    expect(server.seen[0]!.query.get("deck_id")).toBe(deckId);

    const input = screen.getByRole("spinbutton", { name: /Desired retention in %/ });
    expect(input).toHaveValue(90); // in percent, as the chart and the table
    await user.clear(input);
    await user.type(input, "85");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Rare verbs now aims at 85 %");
    const post = server.seen.find((s) => s.path === "/SetDeckRetention")!;
    expect(post.body).toEqual({ class_id: classId, deck_id: deckId, desired_retention: 0.85 });
    expect(post.headers.get("Idempotency-Key")).toBeTruthy();
  });

  it("shows the refusal of a retention out of range", async () => {
    fakeServer((req) => {
      if (req.path === "/GetDeckWorkload") return json(workload(classId, deckId, 0.9, [1, 2, 3, 4]));
      return json(
        {
          type: "https://lexora.app/problems/invalid-request",
          title: "Invalid request",
          status: 400,
          detail: "desired_retention: must be from 0.80 to 0.95",
        } satisfies components["schemas"]["Problem"],
        400,
      );
    });
    const user = userEvent.setup();
    renderApp(<DeckRetention classId={classId} deck={deck} />, { user: teacher });
    await screen.findByRole("table");
    // The browser's own range check would refuse 0.96: the server's refusal is shown too.
    const input = screen.getByRole("spinbutton", { name: /Desired retention/ });
    await user.clear(input);
    await user.type(input, "95");
    await user.click(screen.getByRole("button", { name: "Save" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("The retention was not changed");
    expect(alert).toHaveTextContent("must be from 0.80 to 0.95");
  });
});
