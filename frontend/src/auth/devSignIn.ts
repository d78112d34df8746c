import { ApiError } from "../api/problem";
import type { Role, StoredSession } from "./session";

/** A user offered by the local server's development sign-in (GET /dev/users). */
export interface DevUser {
  id: string;
  display_name: string;
  email: string;
  role: Role;
}

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

/** Mints a development ID token for the user (POST /dev/token). */
export async function devSignIn(userId: string): Promise<StoredSession> {
  const r = await fetch("/dev/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_id: userId }),
  });
  const t = await json<{ token: string; expires_at: string; user: DevUser }>(r);
  return {
    token: t.token,
    expiresAt: t.expires_at,
    user: { id: t.user.id, displayName: t.user.display_name, email: t.user.email, role: t.user.role },
  };
}
