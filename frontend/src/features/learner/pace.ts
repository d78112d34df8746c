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

const weekday = new Intl.DateTimeFormat("en-GB", { weekday: "long" });
const dayMonth = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long" });

/**
 * "by Friday" for a due date within the coming week, "by 12 March" beyond
 * it, "today" on the day itself (the browser's time zone, where the learner
 * is).
 */
export function byWhen(due: Date, now: Date): string {
  const start = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const days = Math.round((start(due) - start(now)) / dayMs);
  if (days <= 0) return "today";
  if (days === 1) return "by tomorrow";
  if (days < 7) return `by ${weekday.format(due)}`;
  return `by ${dayMonth.format(due)}`;
}

/**
 * The pace an assignment needs: its cards not yet learned spread over the
 * days left before its due date (days = the 24-hour periods left, rounded
 * up, so a deck due in 30 hours has 2), e.g. "12 words a day to finish by
 * Friday".
 */
export function pace(a: { cards_total: number; cards_learned: number; due_at: string; completed_at: string | null }, now: Date): Pace {
  const left = Math.max(0, a.cards_total - a.cards_learned);
  const due = new Date(a.due_at);
  const ms = due.getTime() - now.getTime();
  const words = (n: number) => `${n} ${n === 1 ? "word" : "words"}`;
  if (a.completed_at !== null || left === 0) return { left, days: Math.max(0, Math.ceil(ms / dayMs)), perDay: 0, hint: "Done: every word learned." };
  if (ms <= 0) return { left, days: 0, perDay: left, hint: `Past due: ${words(left)} still to learn.` };
  const days = Math.max(1, Math.ceil(ms / dayMs));
  const perDay = Math.ceil(left / days);
  const hint = days === 1 ? `${words(left)} to learn to finish ${byWhen(due, now)}.` : `${words(perDay)} a day to finish ${byWhen(due, now)}.`;
  return { left, days, perDay, hint };
}
