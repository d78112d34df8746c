import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { dueTime, zoneLabel } from "../../components/when";
import { fakeServer, json, renderApp } from "../../test/render";
import { Progress } from "./Progress";

function progress(recall: components["schemas"]["Progress"]["predicted_recall"]): components["schemas"]["Progress"] {
  return {
    learner_id: "00000000-0000-4000-8000-000000000001",
    streak: { current: 2, longest: 5, last_day: "2026-03-02" },
    achievements: [],
    assignments: [],
    started_decks: [],
    feed: [],
    predicted_recall: recall,
  };
}

describe("Progress", () => {
  it("shows the predicted recall of the learned words today and in 30 days", async () => {
    fakeServer(() => json(progress({ words: 42, today: 0.934, in_30_days: 0.712 })));
    renderApp(<Progress />);
    const recall = await screen.findByTestId("predicted-recall");
    expect(recall).toHaveTextContent("Of your 42 learned words, you would recall 93 % today and 71 % in 30 days");
  });

  it("says so when no word is learned yet", async () => {
    fakeServer(() => json(progress({ words: 0, today: 0, in_30_days: 0 })));
    renderApp(<Progress />);
    expect(await screen.findByText(/No learned words yet/)).toBeInTheDocument();
  });

  it("shows the decks the learner started on their own beside the assignments, with cards seen and reviews", async () => {
    fakeServer(() =>
      json({
        learner_id: "00000000-0000-4000-8000-000000000001",
        streak: { current: 1, longest: 1, last_day: "2026-03-02" },
        achievements: [],
        feed: [],
        predicted_recall: { words: 0, today: 0, in_30_days: 0 },
        assignments: [
          {
            assignment_id: "8b1c2a44-3f7e-4d5b-9a0e-1c2d3e4f5a6b",
            deck: "Core English 02",
            due_at: "2099-01-01T00:00:00Z",
            completed_at: null,
            cards_total: 25,
            cards_seen: 2,
            cards_learned: 0,
            reviews: 2,
            pending: false,
          },
        ],
        started_decks: [
          {
            deck_id: "3f1c2a44-3f7e-4d5b-9a0e-1c2d3e4f5a6b",
            deck: "Core English 01",
            started_at: "2026-03-01T08:00:00Z",
            cards_total: 40,
            cards_seen: 3,
            cards_learned: 1,
            cards_due: 38,
            reviews: 3,
          },
        ],
      } satisfies components["schemas"]["Progress"]),
    );
    renderApp(<Progress />);
    const own = await screen.findByRole("list", { name: "Your own decks" });
    expect(own).toHaveTextContent("Core English 01");
    expect(own).toHaveTextContent("1 of 40 cards learned (3 seen, 3 reviews)");
    expect(screen.getByText("Core English 02")).toBeInTheDocument();
    // The due time names its zone (the browser's: the test's own).
    const zone = zoneLabel("2099-01-01T00:00:00Z");
    expect(screen.getByText(/^due /).textContent).toBe(`due ${dueTime("2099-01-01T00:00:00Z")}`);
    expect(screen.getByText(/^due /).textContent.endsWith(` ${zone}`)).toBe(true);
  });
});
