import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, expect, it, vi } from "vitest";
import { userCaches } from "../offline/copies";
import { AuthProvider, useAuth } from "./AuthContext";
import { loadSession, saveSession } from "./session";

afterEach(() => vi.unstubAllGlobals());

function Who() {
  const { user, signOut } = useAuth();
  return user ? (
    <button type="button" onClick={() => void signOut()}>
      Sign out {user.displayName}
    </button>
  ) : (
    <p>Signed out</p>
  );
}

it("a sign-out deletes the service worker's copies of the user's answers before the next user signs in", async () => {
  const stored = new Set(["workbox-precache-v2-http://localhost/", userCaches.schedule, userCaches.me]);
  vi.stubGlobal("caches", { delete: vi.fn(async (name: string) => stored.delete(name)) });
  saveSession({
    token: "dev-token",
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    user: { id: "00000000-0000-4000-8000-000000000001", displayName: "Mia", email: "mia@lexora.test", role: "learner" },
  });
  render(
    <AuthProvider>
      <Who />
    </AuthProvider>,
  );
  await userEvent.click(screen.getByRole("button", { name: "Sign out Mia" }));
  expect(await screen.findByText("Signed out")).toBeInTheDocument();
  expect(loadSession()).toBeNull();
  expect([...stored]).toEqual(["workbox-precache-v2-http://localhost/"]);
});
