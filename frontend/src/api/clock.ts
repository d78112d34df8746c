import type { Middleware } from "openapi-fetch";

/**
 * The server clock's offset from this device's clock, as last measured:
 * offsetMs is the server's time minus the device's, in milliseconds
 * (negative: the device clock is fast), 0 when it was under minOffsetMs;
 * serverAt is when it was measured, the response's Date header, and
 * deviceAt the same instant on the device's clock (the request's
 * midpoint), both in milliseconds since the Unix epoch.
 */
export interface ClockOffset {
  offsetMs: number;
  serverAt: number;
  deviceAt: number;
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

/**
 * An offset measured longer ago than this (7 days of the device's clock, in
 * milliseconds) is not applied: the device's clock may have been set since
 * without a response to measure it again.
 */
export const maxOffsetAgeMs = 7 * 86_400_000;

/**
 * A change of the device's wall clock against its monotonic clock larger
 * than this (30 s, in milliseconds) since the offset was measured is a jump:
 * the clock was set, and the offset measured before it no longer holds.
 */
export const maxJumpMs = 30_000;

/**
 * The device's wall clock minus its monotonic one (performance.timeOrigin +
 * performance.now()), in milliseconds, with wall the wall clock's reading:
 * 0 when the page started, and constant while nobody sets the clock.
 */
function wallSkew(wall: number): number {
  return wall - (performance.timeOrigin + performance.now());
}

/**
 * The wall skew when this page kept the offset measured at serverAt, in
 * memory only: the monotonic clock starts again with each page. An offset
 * this page did not measure (a previous page's, another tab's) is compared
 * with the page's start, where the skew is 0.
 */
let measured: { serverAt: number; skewMs: number } | null = null;

/**
 * The offset last kept, or null when none was measured yet (or what is kept
 * does not parse). One kept before deviceAt was (offsetMs and serverAt
 * only) gets serverAt − offsetMs as its deviceAt.
 */
export function loadOffset(): ClockOffset | null {
  const raw = storage()?.getItem(key);
  if (!raw) return null;
  try {
    const o = JSON.parse(raw) as Partial<ClockOffset>;
    if (!Number.isFinite(o.offsetMs) || !Number.isFinite(o.serverAt)) return null;
    const offsetMs = o.offsetMs!;
    const serverAt = o.serverAt!;
    return { offsetMs, serverAt, deviceAt: Number.isFinite(o.deviceAt) ? o.deviceAt! : serverAt - offsetMs };
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
 * Date as serverAt and the midpoint as deviceAt; or null when there is
 * nothing to measure: no Date (a cross-origin response without
 * Access-Control-Expose-Headers: Date), one that does not parse, or a
 * round trip over maxRoundTripMs.
 */
export function measureOffset(sentAt: number, receivedAt: number, date: string | null): ClockOffset | null {
  const serverAt = date ? Date.parse(date) : NaN;
  if (!Number.isFinite(serverAt) || receivedAt - sentAt > maxRoundTripMs) return null;
  const deviceAt = Math.round((sentAt + receivedAt) / 2);
  const offsetMs = serverAt - deviceAt;
  return { offsetMs: Math.abs(offsetMs) < minOffsetMs ? 0 : offsetMs, serverAt, deviceAt };
}

/**
 * Keeps o as the offset, unless the one kept was measured at the same
 * server second or later: a response the service worker answers from its
 * copy (GetSchedule, Me) carries the Date of the answer it copied, which
 * this browser measured when it arrived, so it never replaces a newer
 * measurement with its age. It also notes, in memory, the wall skew at
 * o.deviceAt (see appliedOffset's rule c).
 */
export function keepOffset(o: ClockOffset): void {
  const kept = loadOffset();
  if (kept && kept.serverAt >= o.serverAt) return;
  storage()?.setItem(key, JSON.stringify(o));
  measured = { serverAt: o.serverAt, skewMs: wallSkew(o.deviceAt) };
}

/**
 * The offset to apply now (the device's clock, milliseconds since the
 * epoch), in milliseconds: the one kept, or 0 when none was measured or
 * when one of these rules says it no longer holds.
 *
 *  (a) The device's clock now is before deviceAt: it was moved back since
 *      the measurement (a fast clock set right, offline), so the offset
 *      is stale.
 *  (b) Only a negative offset (a fast device) is applied. The functions
 *      take a slow device's instant as it is, while a positive one applied
 *      after the device was set right would put ratings in the future,
 *      which they refuse (reviewed_at more than 5 minutes ahead).
 *  (c) Within a page's life, the wall clock moved back by more than
 *      maxJumpMs against the monotonic clock since the measurement (or,
 *      for an offset this page did not measure, since the page started):
 *      the clock was set, so the offset is stale. Only a move back counts:
 *      the monotonic clock of some browsers stops while the device sleeps,
 *      which looks like a jump forward, and a forward jump is never what
 *      makes a fast device's ratings early.
 *  (d) An offset measured more than maxOffsetAgeMs ago (device time) is
 *      not applied.
 */
export function appliedOffset(now: number = Date.now()): number {
  const o = loadOffset();
  if (!o || o.offsetMs >= 0) return 0; // none, or (b)
  if (now < o.deviceAt) return 0; // (a)
  if (now - o.deviceAt > maxOffsetAgeMs) return 0; // (d)
  const since = measured?.serverAt === o.serverAt ? measured.skewMs : 0;
  if (wallSkew(now) - since < -maxJumpMs) return 0; // (c)
  return o.offsetMs;
}

/**
 * An instant of the device's clock (at, milliseconds since the epoch) on
 * the server's clock as this device estimates it: at corrected by the
 * offset applied now (appliedOffset(now)). For an instant the client took
 * (react-query's dataUpdatedAt) shown beside the server's (updated_at).
 */
export function toServerTime(at: number, now: number = Date.now()): Date {
  return new Date(at + appliedOffset(now));
}

/**
 * The server's time now, as this device estimates it: the device's clock
 * (now, milliseconds since the epoch) corrected by the offset applied now
 * (appliedOffset: none measured, or a stale one, gives the device's clock
 * as it is).
 */
export function serverNow(now: number = Date.now()): Date {
  return toServerTime(now, now);
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
