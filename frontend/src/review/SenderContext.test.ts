// @vitest-environment node
import { describe, expect, it } from "vitest";
import { waitedSince } from "./SenderContext";

const rating = { key: "k", learnerId: "l", cardId: "c", lemma: "cat", rating: 3 as const, reviewedAt: "2026-03-02T09:00:00.000Z" };

describe("waitedSince", () => {
  it("sends the time a rating was made only when it waited in the queue over a minute", () => {
    expect(waitedSince(rating, new Date("2026-03-02T09:00:59Z"))).toBeUndefined();
    expect(waitedSince(rating, new Date("2026-03-02T09:01:01Z"))).toBe("2026-03-02T09:00:00.000Z");
    // A clock that jumped back is not a wait.
    expect(waitedSince(rating, new Date("2026-03-02T08:00:00Z"))).toBeUndefined();
  });
});
