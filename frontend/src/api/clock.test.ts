import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeServer, json } from "../test/render";
import { keepOffset, loadOffset, maxRoundTripMs, measureOffset, serverNow, toServerTime } from "./clock";
import { newApi } from "./client";

afterEach(() => vi.unstubAllGlobals());

const device = Date.parse("2026-03-02T09:10:00.000Z");
const httpDate = (ms: number) => new Date(ms).toUTCString();

describe("measureOffset", () => {
  it("is the server's Date minus the request's midpoint on the device: negative for a fast device clock", () => {
    // The device runs 10 minutes fast; the request took 2 s each way of its midpoint.
    const server = device - 600_000;
    expect(measureOffset(device - 2000, device + 2000, httpDate(server))).toEqual({ offsetMs: -600_000, serverAt: server, deviceAt: device });
    expect(measureOffset(device, device + 400, httpDate(device + 3_600_000))?.offsetMs).toBe(3_600_000 - 200);
  });

  it("counts an offset under 30 s as 0: the Date header has whole seconds", () => {
    expect(measureOffset(device, device + 100, httpDate(device - 29_000))).toEqual({ offsetMs: 0, serverAt: device - 29_000, deviceAt: device + 50 });
    expect(measureOffset(device, device + 100, httpDate(device + 29_000))?.offsetMs).toBe(0);
    expect(measureOffset(device, device, httpDate(device - 31_000))?.offsetMs).toBe(-31_000);
  });

  it("measures nothing without a Date, with one that does not parse, or after a long round trip", () => {
    expect(measureOffset(device, device + 100, null)).toBeNull();
    expect(measureOffset(device, device + 100, "yesterday")).toBeNull();
    expect(measureOffset(device, device + maxRoundTripMs + 1, httpDate(device - 600_000))).toBeNull();
  });
});

describe("keepOffset and serverNow", () => {
  it("corrects the device's clock by the offset kept, and by nothing before one is measured", () => {
    expect(loadOffset()).toBeNull();
    expect(serverNow(device).toISOString()).toBe("2026-03-02T09:10:00.000Z");
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
    expect(serverNow(device).toISOString()).toBe("2026-03-02T09:00:00.000Z");
  });

  it("keeps the offset in localStorage, so that a reload (offline too) still has it", () => {
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
    expect(JSON.parse(localStorage.getItem("lexora.clock")!)).toEqual({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
    localStorage.setItem("lexora.clock", "not json");
    expect(loadOffset()).toBeNull();
    expect(serverNow(device).getTime()).toBe(device);
  });

  it("never replaces a measurement with an older one: a copy the service worker answers with", () => {
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
    // The copy of an answer from an hour before: its Date says the device is an hour fast.
    keepOffset({ offsetMs: -4_200_000, serverAt: device - 4_200_000, deviceAt: device });
    keepOffset({ offsetMs: 0, serverAt: device - 600_000, deviceAt: device - 600_000 });
    expect(loadOffset()).toEqual({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
    // A newer one replaces it: the device's clock was set right.
    keepOffset({ offsetMs: 0, serverAt: device + 60_000, deviceAt: device + 60_000 });
    expect(loadOffset()).toEqual({ offsetMs: 0, serverAt: device + 60_000, deviceAt: device + 60_000 });
  });
});

const hour = 3_600_000;
const day = 24 * hour;

/**
 * Sets the monotonic clock (performance.timeOrigin + performance.now()) to
 * mono, in milliseconds: a page whose clock agrees with the wall clock reads
 * the same as Date.
 */
function monotonicAt(mono: number) {
  vi.spyOn(performance, "now").mockReturnValue(mono - performance.timeOrigin);
}

/** An offset kept by an earlier page (or another tab): in localStorage, not measured by this one. */
function keptBefore(o: { offsetMs: number; serverAt: number; deviceAt: number }) {
  localStorage.setItem("lexora.clock", JSON.stringify(o));
}

describe("the offset serverNow applies", () => {
  it("(a) none once the device's clock is before the measurement: a fast clock set right, offline, then a reload", () => {
    // Measured 3 days fast; offline, the device's clock is set right and the page reloaded an hour later.
    keptBefore({ offsetMs: -3 * day, serverAt: device - 3 * day, deviceAt: device });
    const now = device - 3 * day + hour;
    monotonicAt(now);
    expect(serverNow(now).getTime()).toBe(now);
    // Not set right: the offset still holds.
    monotonicAt(device + hour);
    expect(serverNow(device + hour).getTime()).toBe(device + hour - 3 * day);
  });

  it("(b) only a fast device's: a slow device's clock is used as it is", () => {
    keptBefore({ offsetMs: hour, serverAt: device + hour, deviceAt: device });
    monotonicAt(device + 60_000);
    expect(serverNow(device + 60_000).getTime()).toBe(device + 60_000);
    keptBefore({ offsetMs: -hour, serverAt: device - hour, deviceAt: device });
    expect(serverNow(device + 60_000).getTime()).toBe(device + 60_000 - hour);
  });

  it("(c) none after the wall clock moved back against the monotonic clock within the page", () => {
    // This page measured the device 10 minutes fast; an hour later (monotonic) the clock is set right.
    monotonicAt(device);
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
    monotonicAt(device + hour);
    expect(serverNow(device + hour).getTime(), "no jump").toBe(device + hour - 600_000);
    expect(serverNow(device + hour - 20_000).getTime(), "drift under 30 s").toBe(device + hour - 620_000);
    // Still after deviceAt, so rule (a) alone would not see it.
    expect(serverNow(device + hour - 600_000).getTime()).toBe(device + hour - 600_000);
    // The device slept an hour (the monotonic clock stopped): the wall clock ran ahead, the offset holds.
    monotonicAt(device);
    expect(serverNow(device + hour).getTime()).toBe(device + hour - 600_000);
  });

  it("(c) for an offset kept before the page started, against the page's start", () => {
    keptBefore({ offsetMs: -600_000, serverAt: device - 600_000 - day, deviceAt: device - day });
    monotonicAt(device);
    expect(serverNow(device).getTime()).toBe(device - 600_000);
    // The page has been open an hour (monotonic) and the clock was set back 10 minutes.
    monotonicAt(device + hour);
    expect(serverNow(device + hour - 600_000).getTime()).toBe(device + hour - 600_000);
  });

  it("(d) none for an offset measured more than 7 days ago (device time)", () => {
    keptBefore({ offsetMs: -600_000, serverAt: device - 600_000 - 8 * day, deviceAt: device - 8 * day });
    monotonicAt(device);
    expect(serverNow(device).getTime()).toBe(device);
    keptBefore({ offsetMs: -600_000, serverAt: device - 600_000 - 6 * day, deviceAt: device - 6 * day });
    expect(serverNow(device).getTime()).toBe(device - 600_000);
  });

  it("reads an offset kept before deviceAt was as measured at serverAt − offsetMs", () => {
    localStorage.setItem("lexora.clock", JSON.stringify({ offsetMs: -600_000, serverAt: device - 600_000 }));
    expect(loadOffset()).toEqual({ offsetMs: -600_000, serverAt: device - 600_000, deviceAt: device });
  });

  it("toServerTime moves an instant the device took by the offset applied now", () => {
    keptBefore({ offsetMs: -hour, serverAt: device - hour, deviceAt: device });
    monotonicAt(device + 60_000);
    // Read before the measurement: the offset that holds now still applies to it.
    expect(toServerTime(device - 60_000, device + 60_000).getTime()).toBe(device - 60_000 - hour);
  });
});

describe("the API client", () => {
  it("measures the offset from the Date of the responses it gets", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      vi.setSystemTime(device);
      const server = device - 600_000;
      fakeServer(({ path }) => {
        const r = json({ id: "u1" });
        if (path === "/Me") r.headers.set("Date", httpDate(server));
        return r;
      });
      const api = newApi(async () => "token", "http://localhost");
      await api.GET("/GetProgress");
      expect(loadOffset(), "no Date: nothing measured").toBeNull();
      await api.GET("/Me");
      expect(loadOffset()).toEqual({ offsetMs: -600_000, serverAt: server, deviceAt: device });
      expect(serverNow().toISOString()).toBe("2026-03-02T09:00:00.000Z");
    } finally {
      vi.useRealTimers();
    }
  });
});
