import { serverNow } from "../api/clock";

/** The roles a Lexora user has (users.role). */
export type Role = "learner" | "teacher" | "operator";

/**
 * The signed-in user as the client knows them. The development sign-in
 * names the role; a Google sign-in does not until the API answers `Me`
 * (role null: every section is offered and the functions decide).
 */
export interface SessionUser {
  id: string;
  displayName: string;
  email: string;
  role: Role | null;
}

/** A development sign-in kept across reloads: its token, expiry and user. */
export interface StoredSession {
  token: string;
  expiresAt: string;
  user: SessionUser;
}

const key = "lexora.session";

/**
 * The development sign-in kept, or null when there is none, it does not
 * parse or it has expired: expiresAt (the server's time + 12 h, RFC 3339)
 * is compared with now, the server's time as this device estimates it
 * (serverNow, milliseconds since the epoch), so that a device clock more
 * than 12 h fast does not drop every sign-in as expired.
 */
export function loadSession(now = serverNow().getTime()): StoredSession | null {
  const raw = localStorage.getItem(key);
  if (!raw) return null;
  try {
    const s = JSON.parse(raw) as StoredSession;
    return Date.parse(s.expiresAt) > now ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: StoredSession | null): void {
  if (s) localStorage.setItem(key, JSON.stringify(s));
  else localStorage.removeItem(key);
}
