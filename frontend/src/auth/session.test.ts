import { afterEach, expect, it, vi } from "vitest";
import { keepOffset } from "../api/clock";
import { fakeServer, json } from "../test/render";
import { devSignIn } from "./devSignIn";
import { loadSession, saveSession, type StoredSession } from "./session";

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

// The server's time; the device's clock runs 13 hours fast, past the sign-in's 12 h.
const server = Date.parse("2026-03-02T09:00:00.000Z");
const device = server + 13 * 3_600_000;
const user = { id: "00000000-0000-4000-8000-000000000001", display_name: "Mia", email: "mia@lexora.test", role: "learner" as const };

function session(expiresAt: number): StoredSession {
  return { token: "dev-token", expiresAt: new Date(expiresAt).toISOString(), user: { id: user.id, displayName: "Mia", email: user.email, role: "learner" } };
}

it("loadSession checks the expiry against the server's time, not a device clock 13 h fast", () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(device);
  keepOffset({ offsetMs: server - device, serverAt: server, deviceAt: device });
  saveSession(session(server + 12 * 3_600_000));
  expect(loadSession()?.token).toBe("dev-token");
  saveSession(session(server - 1000));
  expect(loadSession(), "expired on the server's clock").toBeNull();
});

it("the development sign-in measures the offset, so a first sign-in on a fast device is kept", async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(device);
  fakeServer(({ path }) => {
    const r = json({ token: "dev-token", expires_at: new Date(server + 12 * 3_600_000).toISOString(), user });
    if (path === "/dev/token") r.headers.set("Date", new Date(server).toUTCString());
    return r;
  });
  saveSession(await devSignIn({ userId: user.id }));
  expect(loadSession()?.token).toBe("dev-token");
});
