import { describe, expect, it } from "vitest";
import { endOfDay } from "./assign";

describe("endOfDay", () => {
  it("is the end of the picked day in the teacher's zone, not in UTC", () => {
    expect(endOfDay("2026-01-14", "America/New_York")).toBe("2026-01-15T04:59:59.000Z");
    expect(endOfDay("2026-07-14", "America/New_York")).toBe("2026-07-15T03:59:59.000Z");
    expect(endOfDay("2026-07-14", "Asia/Kolkata")).toBe("2026-07-14T18:29:59.000Z");
    expect(endOfDay("2026-07-14", "Pacific/Kiritimati")).toBe("2026-07-14T09:59:59.000Z");
    expect(endOfDay("2026-07-14", "UTC")).toBe("2026-07-14T23:59:59.000Z");
  });

  it("takes the evening's offset on the days summer time starts and ends", () => {
    expect(endOfDay("2026-03-08", "America/New_York")).toBe("2026-03-09T03:59:59.000Z");
    expect(endOfDay("2026-11-01", "America/New_York")).toBe("2026-11-02T04:59:59.000Z");
    expect(endOfDay("2026-03-29", "Europe/Paris")).toBe("2026-03-29T21:59:59.000Z");
  });

  it("falls back to the browser's zone for a zone the browser does not know", () => {
    const local = new Date(2026, 6, 14, 23, 59, 59).toISOString();
    expect(endOfDay("2026-07-14", "Not/AZone")).toBe(local);
    expect(endOfDay("2026-07-14")).toBe(local);
  });
});
