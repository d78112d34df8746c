import { afterEach, expect, it, vi } from "vitest";
import { forgetUserCopies, userCaches } from "./copies";

afterEach(() => vi.unstubAllGlobals());

it("deletes the user's cached answers and leaves the app shell", async () => {
  const stored = new Set(["workbox-precache-v2-http://localhost/", userCaches.schedule, userCaches.me]);
  vi.stubGlobal("caches", { delete: vi.fn(async (name: string) => stored.delete(name)) });
  await forgetUserCopies();
  expect([...stored]).toEqual(["workbox-precache-v2-http://localhost/"]);
});

it("does nothing where the browser has no Cache Storage", async () => {
  vi.stubGlobal("caches", undefined);
  await expect(forgetUserCopies()).resolves.toBeUndefined();
});
