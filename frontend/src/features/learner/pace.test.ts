// @vitest-environment node
import { describe, expect, it } from "vitest";
import { byWhen, pace } from "./pace";

// Wednesday 4 March 2026, 10:00 in Paris (UTC+1 in March), where the learner is.
const paris = "Europe/Paris";
const local = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2026, 2, day, hour - 1, minute)).toISOString();
const now = new Date(local(4, 10));
const assignment = (cards_learned: number, due_at: string, completed_at: string | null = null) => ({
  cards_total: 60,
  cards_learned,
  due_at,
  completed_at,
});

describe("pace", () => {
  it("spreads the words left over the days before the due date", () => {
    // Friday 23:59 is 2 days and 14 hours away: 3 days, 20 words each.
    expect(pace(assignment(0, local(6, 23, 59)), now, paris)).toEqual({
      left: 60,
      days: 3,
      perDay: 20,
      hint: "20 words a day to finish by Friday at 11:59 PM France Time.",
    });
    // 47 left over 3 days: rounded up, so the last day is never the heaviest.
    expect(pace(assignment(13, local(6, 23, 59)), now, paris).hint).toBe("16 words a day to finish by Friday at 11:59 PM France Time.");
  });

  it("names the date beyond a week, and the day before with the words left", () => {
    expect(pace(assignment(0, local(14, 18)), now, paris).hint).toBe("6 words a day to finish by 14 March at 6:00 PM France Time.");
    expect(pace(assignment(55, local(5, 6)), now, paris).hint).toBe("5 words to learn to finish by tomorrow at 6:00 AM France Time.");
    expect(pace(assignment(59, local(4, 20)), now, paris).hint).toBe("1 word to learn to finish today, by 8:00 PM France Time.");
  });

  it("says when an assignment is past due or done", () => {
    expect(pace(assignment(50, local(3, 12)), now)).toMatchObject({ days: 0, perDay: 10, hint: "Past due: 10 words still to learn." });
    expect(pace(assignment(60, local(6, 12)), now).hint).toBe("Done: every word learned.");
    expect(pace(assignment(58, local(6, 12), local(4, 9)), now).hint).toBe("Done: every word learned.");
  });

  it("says when in the learner's days", () => {
    expect(byWhen(new Date(local(4, 23)), now, paris)).toBe("today, by 11:00 PM France Time");
    expect(byWhen(new Date(local(5, 1)), now, paris)).toBe("by tomorrow at 1:00 AM France Time");
    expect(byWhen(new Date(local(10, 1)), now, paris)).toBe("by Tuesday at 1:00 AM France Time");
    expect(byWhen(new Date(local(11, 1)), now, paris)).toBe("by 11 March at 1:00 AM France Time");
  });

  it("names the day and the time of the due date in the learner's own zone, so that they agree", () => {
    // The end of 16 December in London is already 17 December in Paris and in Kolkata.
    const due = new Date("2026-12-16T23:59:59Z");
    const from = new Date("2026-12-01T12:00:00Z");
    expect(byWhen(due, from, "Europe/London")).toBe("by 16 December at 11:59 PM United Kingdom Time");
    expect(byWhen(due, from, "Europe/Paris")).toBe("by 17 December at 12:59 AM France Time");
    expect(byWhen(due, from, "Asia/Kolkata")).toBe("by 17 December at 5:29 AM India Time");
  });
});
