import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { NewCardsPerDay } from "./NewCardsPerDay";

const cls = {
  id: "00000000-0000-4000-8000-0000000000c1",
  name: "Year 9 English",
  join_code: "DEMO2026",
  new_cards_per_day: 20,
  created_at: "2026-03-01T09:00:00Z",
  archived_at: null,
  members: [],
  decks: [],
} satisfies components["schemas"]["Class"];

describe("NewCardsPerDay", () => {
  it("sets the class's daily limit of new cards; more than 9999 is not sent", async () => {
    const server = fakeServer((req) => {
      const body = req.body as { class_id: string; new_cards_per_day: number };
      return json({ class_id: body.class_id, new_cards_per_day: body.new_cards_per_day } satisfies components["schemas"]["NewCardsPerDay"]);
    });
    const user = userEvent.setup();
    renderApp(<NewCardsPerDay c={cls} />);
    const input = screen.getByLabelText(/New cards a day for each learner/);
    expect(input).toHaveValue(20);
    expect(input).toHaveAccessibleDescription("A learner in several classes gets the largest of their classes' limits.");
    await user.clear(input);
    await user.type(input, "12");
    await user.click(screen.getByRole("button", { name: "Save limit" }));
    expect(await screen.findByRole("status")).toHaveTextContent("Each learner of Year 9 English now gets up to 12 new cards a day.");
    expect(server.seen.map((s) => s.body)).toEqual([{ class_id: cls.id, new_cards_per_day: 12 }]);

    await user.clear(input);
    await user.type(input, "12000");
    expect(input).toBeInvalid();
    await user.click(screen.getByRole("button", { name: "Save limit" }));
    expect(server.seen).toHaveLength(1);
  });
});
