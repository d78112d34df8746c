import { clockTime, dayNumber } from "../../components/when";

const dayMs = 86_400_000;

/** What an assignment still asks of the learner, and how fast. */
export interface Pace {
  /** Cards not yet learned. */
  left: number;
  /** Days until the due date, counting today (at least 1); 0 when it has passed. */
  days: number;
  /** Cards to learn per day to finish by the due date (left when it has passed). */
  perDay: number;
  /** The sentence the Today screen shows. */
  hint: string;
}

/** A formatter for options in timeZone, or in the browser's zone when it does not know timeZone. */
function inZone(options: Intl.DateTimeFormatOptions, timeZone?: string): Intl.DateTimeFormat {
  try {
    return new Intl.DateTimeFormat("en-GB", { ...options, timeZone });
  } catch {
    return new Intl.DateTimeFormat("en-GB", options); // RangeError: an unknown zone
  }
}

/**
 * "by Friday at 11:59 PM France Time" for a due date within the coming week, "by
 * 12 March at …" beyond it, "today, by …" on the day itself: the day and
 * the time, zone named, both in timeZone (the browser's when undefined:
 * where the learner is), so that the day always agrees with the due time
 * the screen shows beside it (dueTime).
 */
export function byWhen(due: Date, now: Date, timeZone?: string): string {
  const days = dayNumber(due, timeZone) - dayNumber(now, timeZone);
  const at = clockTime(due, timeZone);
  if (days <= 0) return `today, by ${at}`;
  if (days === 1) return `by tomorrow at ${at}`;
  if (days < 7) return `by ${inZone({ weekday: "long" }, timeZone).format(due)} at ${at}`;
  return `by ${inZone({ day: "numeric", month: "long" }, timeZone).format(due)} at ${at}`;
}

/**
 * The pace an assignment needs: its cards not yet learned spread over the
 * days left before its due date (days = the 24-hour periods left, rounded
 * up, so a deck due in 30 hours has 2), e.g. "12 words a day to finish by
 * Friday at 11:59 PM France Time" (see byWhen for timeZone).
 */
export function pace(
  a: { cards_total: number; cards_learned: number; due_at: string; completed_at: string | null },
  now: Date,
  timeZone?: string,
): Pace {
  const left = Math.max(0, a.cards_total - a.cards_learned);
  const due = new Date(a.due_at);
  const ms = due.getTime() - now.getTime();
  const words = (n: number) => `${n} ${n === 1 ? "word" : "words"}`;
  if (a.completed_at !== null || left === 0) return { left, days: Math.max(0, Math.ceil(ms / dayMs)), perDay: 0, hint: "Done: every word learned." };
  if (ms <= 0) return { left, days: 0, perDay: left, hint: `Past due: ${words(left)} still to learn.` };
  const days = Math.max(1, Math.ceil(ms / dayMs));
  const perDay = Math.ceil(left / days);
  const hint = days === 1 ? `${words(left)} to learn to finish ${byWhen(due, now, timeZone)}.` : `${words(perDay)} a day to finish ${byWhen(due, now, timeZone)}.`;
  return { left, days, perDay, hint };
}
