import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeServer, json } from "../test/render";
import { keepOffset, loadOffset, maxRoundTripMs, measureOffset, serverNow } from "./clock";
import { newApi } from "./client";

afterEach(() => vi.unstubAllGlobals());

const device = Date.parse("2026-03-02T09:10:00.000Z");
const httpDate = (ms: number) => new Date(ms).toUTCString();

describe("measureOffset", () => {
  it("is the server's Date minus the request's midpoint on the device: negative for a fast device clock", () => {
    // The device runs 10 minutes fast; the request took 2 s each way of its midpoint.
    const server = device - 600_000;
    expect(measureOffset(device - 2000, device + 2000, httpDate(server))).toEqual({ offsetMs: -600_000, serverAt: server });
    expect(measureOffset(device, device + 400, httpDate(device + 3_600_000))?.offsetMs).toBe(3_600_000 - 200);
  });

  it("counts an offset under 30 s as 0: the Date header has whole seconds", () => {
    expect(measureOffset(device, device + 100, httpDate(device - 29_000))).toEqual({ offsetMs: 0, serverAt: device - 29_000 });
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
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000 });
    expect(serverNow(device).toISOString()).toBe("2026-03-02T09:00:00.000Z");
  });

  it("keeps the offset in localStorage, so that a reload (offline too) still has it", () => {
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000 });
    expect(JSON.parse(localStorage.getItem("lexora.clock")!)).toEqual({ offsetMs: -600_000, serverAt: device - 600_000 });
    localStorage.setItem("lexora.clock", "not json");
    expect(loadOffset()).toBeNull();
    expect(serverNow(device).getTime()).toBe(device);
  });

  it("never replaces a measurement with an older one: a copy the service worker answers with", () => {
    keepOffset({ offsetMs: -600_000, serverAt: device - 600_000 });
    // The copy of an answer from an hour before: its Date says the device is an hour fast.
    keepOffset({ offsetMs: -4_200_000, serverAt: device - 4_200_000 });
    keepOffset({ offsetMs: 0, serverAt: device - 600_000 });
    expect(loadOffset()).toEqual({ offsetMs: -600_000, serverAt: device - 600_000 });
    // A newer one replaces it: the device's clock was set right.
    keepOffset({ offsetMs: 0, serverAt: device + 60_000 });
    expect(loadOffset()).toEqual({ offsetMs: 0, serverAt: device + 60_000 });
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
      expect(loadOffset()).toEqual({ offsetMs: -600_000, serverAt: server });
      expect(serverNow().toISOString()).toBe("2026-03-02T09:00:00.000Z");
    } finally {
      vi.useRealTimers();
    }
  });
});
