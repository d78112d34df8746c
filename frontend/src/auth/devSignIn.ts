import { keepOffset, measureOffset } from "../api/clock";
import { ApiError } from "../api/problem";
import type { Role, StoredSession } from "./session";

/**
 * A user offered by the local server's development sign-in (GET /dev/users);
 * a newcomer (an email without an account) has the nil id and role "".
 */
export interface DevUser {
  id: string;
  display_name: string;
  email: string;
  role: Role | "";
}

/** Whom to sign in as: a user of the database, or an email (a newcomer when it has no account). */
export type DevIdentity = { userId: string } | { email: string };

async function json<T>(r: Response): Promise<T> {
  const body: unknown = await r.json().catch(() => undefined);
  if (!r.ok) throw new ApiError(r.status, body);
  return body as T;
}

/** Lists the users the development sign-in offers. */
export async function listDevUsers(): Promise<DevUser[]> {
  const r = await fetch("/dev/users");
  return (await json<{ users: DevUser[] }>(r)).users;
}

/**
 * Mints a development ID token for the user or email (POST /dev/token).
 * Its response's Date measures the clock's offset (keepOffset), as the
 * API client's responses do: the token's expiry is the server's time, and
 * loadSession compares it with the server's time, which a first sign-in
 * has not measured otherwise.
 */
export async function devSignIn(who: DevIdentity): Promise<StoredSession> {
  const sentAt = Date.now();
  const r = await fetch("/dev/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify("userId" in who ? { user_id: who.userId } : { email: who.email }),
  });
  const o = measureOffset(sentAt, Date.now(), r.headers.get("Date"));
  if (o) keepOffset(o);
  const t = await json<{ token: string; expires_at: string; user: DevUser }>(r);
  return {
    token: t.token,
    expiresAt: t.expires_at,
    user: { id: t.user.id, displayName: t.user.display_name, email: t.user.email, role: t.user.role || null },
  };
}
