// @vitest-environment node
import { afterEach, describe, expect, it, vi } from "vitest";
import { keepOffset } from "../api/clock";
import { clockTime, dayNumber, dueTime, zonePlace } from "./when";
import { memoryLocalStorage } from "../test/storage";

// The end of 16 December in London, as a teacher there sets it.
const due = "2026-12-16T23:59:59Z";
const now = new Date("2026-12-01T12:00:00Z");

describe("dueTime", () => {
  it("names the zone as a place, so that a learner abroad sees whose time it is", () => {
    expect(dueTime(due, "Europe/London", now)).toMatch(/^Dec 16, 11:59\sPM United Kingdom Time$/);
    expect(dueTime(due, "Europe/Paris", now)).toMatch(/^Dec 17, 12:59\sAM France Time$/);
    expect(dueTime(due, "Asia/Kolkata", now)).toMatch(/^Dec 17, 5:29\sAM India Time$/);
    expect(dueTime(due, "UTC", now)).toMatch(/^Dec 16, 11:59\sPM UTC$/);
    // Where the generic name is an abbreviation ("ET"), the long one.
    expect(dueTime(due, "America/New_York", now)).toMatch(/^Dec 16, 6:59\sPM Eastern Time$/);
  });

  it("gives the year only when it is not this year's", () => {
    expect(dueTime(due, "Europe/London", new Date("2027-01-05T12:00:00Z"))).toMatch(/^Dec 16, 2026, 11:59\sPM United Kingdom Time$/);
  });

  it("counts this year from the server's clock, on a device 5 days fast at the turn of the year", () => {
    memoryLocalStorage();
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const server = Date.parse("2026-12-30T12:00:00Z");
      const device = server + 5 * 86_400_000;
      vi.setSystemTime(device);
      keepOffset({ offsetMs: server - device, serverAt: server, deviceAt: device });
      expect(dueTime("2027-01-10T12:00:00Z", "UTC")).toMatch(/^Jan 10, 2027, 12:00\sPM UTC$/);
    } finally {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
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

describe("zonePlace", () => {
  it("names a zone by its place, and a zone without one by itself", () => {
    expect(zonePlace("Europe/Paris")).toBe("Paris");
    expect(zonePlace("America/Argentina/Buenos_Aires")).toBe("Buenos Aires");
    expect(zonePlace("UTC")).toBe("UTC");
    expect(zonePlace("Etc/GMT+12")).toBe("Etc/GMT+12");
  });
});

describe("locale", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it("writes dates in English inside the English sentences, for a browser in another language too", async () => {
    vi.stubGlobal("navigator", { language: "fr-FR" });
    vi.resetModules();
    const when = await import("./when");
    expect(when.locale).toBe("en-GB");
    expect(when.dueTime(due, "Europe/Paris", now)).toMatch(/^17 Dec, 00:59\sCentral European Time$/);
    expect(when.clockTime(due, "Asia/Kolkata")).toMatch(/^05:29\sIndia Time$/);
  });

  it("keeps an English browser's own", async () => {
    vi.stubGlobal("navigator", { language: "en-US" });
    vi.resetModules();
    expect((await import("./when")).locale).toBeUndefined();
  });
});
