import type { Api } from "../../api/client";
import { unwrap } from "../../api/client";
import { idempotent } from "../../api/mutation";

/** What assigning a deck to a class did, learner by learner (by name). */
export interface AssignOutcome {
  /** Learners who got the deck now. */
  assigned: string[];
  /** Learners who already had it from this class: nothing changed for them. */
  already: string[];
  /** Whether anything changed: the class got the deck (learners who join later get it too) or a learner did. */
  toClass: boolean;
  /** The due date (RFC 3339): the one given, or, when nothing changed, the one the class keeps. */
  dueAt: string;
}

/**
 * assignToClass assigns deckId, due at dueAt (RFC 3339), to every learner
 * of the class with one CreateAssignment (one transaction on the server),
 * under the Idempotency-Key key: a retry of the same intent after a
 * network failure or a 5xx gets the first answer back and assigns nothing
 * twice. names maps learner ids to the names the outcome reports (an id
 * not in it, a learner who joined since the list was read, is reported by
 * id). The deck is the class's, even when nobody has joined yet: learners
 * who join the class later get its decks that are not yet due
 * (EnrollLearner), and only this class's.
 */
export async function assignToClass(
  api: Api,
  v: { classId: string; deckId: string; dueAt: string; key: string },
  names: ReadonlyMap<string, string>,
): Promise<AssignOutcome> {
  const answer = unwrap(
    await api.POST("/CreateAssignment", {
      params: idempotent(v.key),
      body: { class_id: v.classId, deck_id: v.deckId, due_at: v.dueAt },
    }),
  );
  const out: AssignOutcome = { assigned: [], already: [], toClass: answer.status === "assigned", dueAt: answer.due_at };
  for (const l of answer.learners) {
    (l.status === "assigned" ? out.assigned : out.already).push(names.get(l.learner_id) ?? l.learner_id);
  }
  return out;
}

/** The offset (minutes east of UTC) of timeZone at the instant ms. */
function offsetMinutes(ms: number, timeZone: string | undefined): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
    second: "numeric",
  }).formatToParts(new Date(ms));
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return Math.round((wall - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * The instant a due date picked as a calendar day (YYYY-MM-DD) means: the
 * end of that day (23:59:59) in timeZone (an IANA name: the teacher's own,
 * from Me; the browser's when undefined or unknown to the browser), as
 * RFC 3339 in UTC. The zone's offset is read at the result itself, so a
 * day on which summer time starts or ends gets that day's evening offset.
 */
export function endOfDay(day: string, timeZone?: string): string {
  const [y = NaN, m = NaN, d = NaN] = day.split("-").map(Number);
  const wall = Date.UTC(y, m - 1, d, 23, 59, 59);
  let zone = timeZone;
  try {
    offsetMinutes(wall, zone);
  } catch {
    zone = undefined; // RangeError: a zone this browser does not know
  }
  const guess = wall - offsetMinutes(wall, zone) * 60_000;
  return new Date(wall - offsetMinutes(guess, zone) * 60_000).toISOString();
}

/**
 * The calendar day (YYYY-MM-DD) `days` days after the day `from` falls on
 * in timeZone (an IANA name: the teacher's own, from Me, so that the date
 * picker's bounds are the days endOfDay gives a meaning to; the browser's
 * when undefined or unknown to the browser).
 */
export function dayAfter(from: Date, days: number, timeZone?: string): string {
  let parts: Intl.DateTimeFormatPart[];
  const options = { year: "numeric", month: "numeric", day: "numeric" } as const;
  try {
    parts = new Intl.DateTimeFormat("en-US", { ...options, timeZone }).formatToParts(from);
  } catch {
    parts = new Intl.DateTimeFormat("en-US", options).formatToParts(from); // RangeError: an unknown zone
  }
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const d = new Date(Date.UTC(get("year"), get("month") - 1, get("day") + days));
  return d.toISOString().slice(0, 10);
}
