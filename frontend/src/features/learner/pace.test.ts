// @vitest-environment node
import { describe, expect, it } from "vitest";
import { byWhen, pace } from "./pace";

// Wednesday 4 March 2026, 10:00 in the test's own time zone.
const now = new Date(2026, 2, 4, 10);
const local = (day: number, hour: number, minute = 0) => new Date(2026, 2, day, hour, minute).toISOString();
const assignment = (cards_learned: number, due_at: string, completed_at: string | null = null) => ({
  cards_total: 60,
  cards_learned,
  due_at,
  completed_at,
});

describe("pace", () => {
  it("spreads the words left over the days before the due date", () => {
    // Friday 23:59 is 2 days and 14 hours away: 3 days, 20 words each.
    expect(pace(assignment(0, local(6, 23, 59)), now)).toEqual({
      left: 60,
      days: 3,
      perDay: 20,
      hint: "20 words a day to finish by Friday.",
    });
    // 47 left over 3 days: rounded up, so the last day is never the heaviest.
    expect(pace(assignment(13, local(6, 23, 59)), now).hint).toBe("16 words a day to finish by Friday.");
  });

  it("names the date beyond a week, and the day before with the words left", () => {
    expect(pace(assignment(0, local(14, 18)), now).hint).toBe("6 words a day to finish by 14 March.");
    expect(pace(assignment(55, local(5, 6)), now).hint).toBe("5 words to learn to finish by tomorrow.");
    expect(pace(assignment(59, local(4, 20)), now).hint).toBe("1 word to learn to finish today.");
  });

  it("says when an assignment is past due or done", () => {
    expect(pace(assignment(50, local(3, 12)), now)).toMatchObject({ days: 0, perDay: 10, hint: "Past due: 10 words still to learn." });
    expect(pace(assignment(60, local(6, 12)), now).hint).toBe("Done: every word learned.");
    expect(pace(assignment(58, local(6, 12), local(4, 9)), now).hint).toBe("Done: every word learned.");
  });

  it("says when in the learner's days", () => {
    expect(byWhen(new Date(2026, 2, 4, 23), now)).toBe("today");
    expect(byWhen(new Date(2026, 2, 5, 1), now)).toBe("by tomorrow");
    expect(byWhen(new Date(2026, 2, 10, 1), now)).toBe("by Tuesday");
    expect(byWhen(new Date(2026, 2, 11, 1), now)).toBe("by 11 March");
  });
});
