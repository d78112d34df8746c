import { screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { Schedule } from "./Schedule";

function forecast(days: number): components["schemas"]["ForecastDay"][] {
  return Array.from({ length: days }, (_, i) => ({
    date: new Date(Date.UTC(2026, 2, 2 + i)).toISOString().slice(0, 10),
    due: (i * 3) % 7,
  }));
}

describe("Schedule", () => {
  it("draws the forecast from GetSchedule, for 7 and then 30 days", async () => {
    const server = fakeServer((req) => {
      const days = Number(req.query.get("days"));
      return json({
        learner_id: "00000000-0000-4000-8000-000000000001",
        timezone: "UTC",
        now: "2026-03-02T09:00:00Z",
        due_count: 4,
        new_count: 0,
        new_cards_per_day: 20,
        new_cards_today: 0,
        new_cards_left: 20,
        due: [],
        forecast: forecast(days),
      } satisfies components["schemas"]["Schedule"]);
    });
    const user = userEvent.setup();
    const { container } = renderApp(<Schedule />);

    expect(await screen.findByText("Reviews due per day, next 7 days")).toBeInTheDocument();
    const rows = () => within(screen.getByRole("table")).getAllByRole("row").slice(1);
    expect(rows()).toHaveLength(7);
    expect(rows()[1]).toHaveTextContent("3");
    // One bar per day with reviews due (recharts draws no bar for 0).
    const drawn = forecast(7).filter((d) => d.due > 0).length;
    expect(container.querySelectorAll(".recharts-bar-rectangle path, .recharts-rectangle").length).toBe(drawn);
    expect(screen.getByText(/reviews over the next 7 days/)).toHaveTextContent(`${forecast(7).reduce((n, d) => n + d.due, 0)} reviews`);

    await user.click(screen.getByRole("button", { name: "30 days" }));
    expect(await screen.findByText("Reviews due per day, next 30 days")).toBeInTheDocument();
    expect(rows()).toHaveLength(30);
    expect(server.seen.map((s) => s.query.get("days"))).toEqual(["7", "30"]);
  });
});
