import { describe, expect, it } from "vitest";
import { progressEvery, progressInterval } from "./progress";

describe("progressInterval", () => {
  it("backs off while an assignment is pending, up to the usual interval", () => {
    const since = 1_000_000;
    expect([0, 1_000, 2_000, 4_000, 8_000, 16_000, 60_000].map((t) => progressInterval(since, since + t))).toEqual([
      1_000, 1_000, 2_000, 4_000, 8_000, progressEvery, progressEvery,
    ]);
  });

  it("reads at the usual interval when nothing is pending", () => {
    expect(progressInterval(null, 5)).toBe(progressEvery);
  });
});
