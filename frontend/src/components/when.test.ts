// @vitest-environment node
import { describe, expect, it } from "vitest";
import { clockTime, dayNumber, dueTime } from "./when";

// The end of 16 December in London, as a teacher there sets it.
const due = "2026-12-16T23:59:59Z";
const now = new Date("2026-12-01T12:00:00Z");

describe("dueTime", () => {
  it("names the zone as a place, so that a learner abroad sees whose time it is", () => {
    expect(dueTime(due, "Europe/London", now)).toMatch(/^Dec 16, 11:59\sPM United Kingdom Time$/);
    expect(dueTime(due, "Europe/Paris", now)).toMatch(/^Dec 17, 12:59\sAM France Time$/);
    expect(dueTime(due, "Asia/Kolkata", now)).toMatch(/^Dec 17, 5:29\sAM India Time$/);
    expect(dueTime(due, "UTC", now)).toMatch(/^Dec 16, 11:59\sPM UTC$/);
  });

  it("gives the year only when it is not this year's", () => {
    expect(dueTime(due, "Europe/London", new Date("2027-01-05T12:00:00Z"))).toMatch(/^Dec 16, 2026, 11:59\sPM United Kingdom Time$/);
  });

  it("uses the browser's zone for one it does not know", () => {
    expect(dueTime(due, "Nowhere/Atlantis", now)).toBe(dueTime(due, undefined, now));
  });
});

describe("clockTime and dayNumber", () => {
  it("read the instant in the zone given", () => {
    expect(clockTime(due, "Asia/Kolkata")).toMatch(/^5:29\sAM India Time$/);
    expect(dayNumber(new Date(due), "Asia/Kolkata") - dayNumber(new Date(due), "Europe/London")).toBe(1);
  });
});
