import type { Middleware } from "openapi-fetch";

/**
 * The server clock's offset from this device's clock, as last measured:
 * offsetMs is the server's time minus the device's, in milliseconds
 * (negative: the device clock is fast), 0 when it was under minOffsetMs;
 * serverAt is when it was measured, the response's Date header in
 * milliseconds since the Unix epoch.
 */
export interface ClockOffset {
  offsetMs: number;
  serverAt: number;
}

/**
 * Offsets under 30 s (either way) count as 0: the Date header has a 1 s
 * resolution and a request's midpoint is only an estimate, and the
 * functions take a reviewed_at up to 5 minutes ahead of their clock as now.
 */
export const minOffsetMs = 30_000;

/**
 * A response that took longer than this (10 s, in milliseconds) is not
 * measured: its midpoint may be off by half of it, and the service worker
 * answers GetSchedule and Me from its copy after 10 s (vite.config.ts).
 */
export const maxRoundTripMs = 10_000;

/** The localStorage key: one offset per browser, kept across reloads (also offline) and sign-outs. */
const key = "lexora.clock";

/** The storage the offset is kept in, or undefined where there is none (Node). */
function storage(): Storage | undefined {
  return typeof localStorage === "undefined" ? undefined : localStorage;
}

/** The offset last kept, or null when none was measured yet (or what is kept does not parse). */
export function loadOffset(): ClockOffset | null {
  const raw = storage()?.getItem(key);
  if (!raw) return null;
  try {
    const o = JSON.parse(raw) as Partial<ClockOffset>;
    return Number.isFinite(o.offsetMs) && Number.isFinite(o.serverAt) ? (o as ClockOffset) : null;
  } catch {
    return null;
  }
}

/**
 * measureOffset reads one response: sentAt and receivedAt are the device's
 * clock (milliseconds since the epoch) just before the request was sent and
 * when its response arrived, date the response's Date header (RFC 9110's
 * IMF-fixdate, whole seconds). It returns the server's Date minus the
 * request's midpoint on the device, 0 when under minOffsetMs, with the
 * Date as serverAt; or null when there is nothing to measure: no Date (a
 * cross-origin response without Access-Control-Expose-Headers: Date), one
 * that does not parse, or a round trip over maxRoundTripMs.
 */
export function measureOffset(sentAt: number, receivedAt: number, date: string | null): ClockOffset | null {
  const serverAt = date ? Date.parse(date) : NaN;
  if (!Number.isFinite(serverAt) || receivedAt - sentAt > maxRoundTripMs) return null;
  const offsetMs = Math.round(serverAt - (sentAt + receivedAt) / 2);
  return { offsetMs: Math.abs(offsetMs) < minOffsetMs ? 0 : offsetMs, serverAt };
}

/**
 * Keeps o as the offset, unless the one kept was measured at the same
 * server second or later: a response the service worker answers from its
 * copy (GetSchedule, Me) carries the Date of the answer it copied, which
 * this browser measured when it arrived, so it never replaces a newer
 * measurement with its age.
 */
export function keepOffset(o: ClockOffset): void {
  const kept = loadOffset();
  if (kept && kept.serverAt >= o.serverAt) return;
  storage()?.setItem(key, JSON.stringify(o));
}

/**
 * The server's time now, as this device estimates it: the device's clock
 * (now, milliseconds since the epoch) corrected by the offset kept (none
 * measured yet: the device's clock as it is).
 */
export function serverNow(now: number = Date.now()): Date {
  return new Date(now + (loadOffset()?.offsetMs ?? 0));
}

/**
 * The client's middleware that measures every response (keepOffset of
 * measureOffset): it takes the device's time when the request leaves and
 * when its response arrives, so it belongs after any middleware that waits
 * before sending (the sign-in's token). now is the device's clock.
 */
export function clockMiddleware(now: () => number = Date.now): Middleware {
  const sent = new Map<string, number>();
  return {
    onRequest({ id }) {
      sent.set(id, now());
    },
    onResponse({ id, response }) {
      const at = sent.get(id);
      sent.delete(id);
      if (at === undefined) return;
      const o = measureOffset(at, now(), response.headers.get("Date"));
      if (o) keepOffset(o);
    },
    onError({ id }) {
      sent.delete(id);
    },
  };
}
