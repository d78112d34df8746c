import { screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { Progress } from "./Progress";

function progress(recall: components["schemas"]["Progress"]["predicted_recall"]): components["schemas"]["Progress"] {
  return {
    learner_id: "00000000-0000-4000-8000-000000000001",
    streak: { current: 2, longest: 5, last_day: "2026-03-02" },
    achievements: [],
    assignments: [],
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
});
