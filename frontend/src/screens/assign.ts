import type { Api } from "../api/client";
import { unwrap } from "../api/client";
import { ApiError } from "../api/problem";

/** One learner of a class to assign a deck to, with the Idempotency-Key of that assignment. */
export interface Target {
  learnerId: string;
  name: string;
  key: string;
}

/** What assigning a deck to a class did, learner by learner. */
export interface AssignOutcome {
  /** Learners who got the deck now. */
  assigned: string[];
  /** Learners who already had it from this teacher (409): nothing changed for them. */
  already: string[];
  /** Learners it failed for, with the refusal (a problem document) or the network error. */
  failed: { name: string; error: unknown }[];
}

/** Whether sending the same request again may succeed: a network failure, a 5xx, 408 or 429. */
function retryable(error: unknown): boolean {
  return !(error instanceof ApiError) || error.retryable;
}

/**
 * assignToClass assigns deckId, due at dueAt (RFC 3339), to each target
 * with CreateAssignment, one request at a time, each with its own
 * Idempotency-Key, so a request retried after a network failure or a 5xx
 * (up to `attempts` times, `pause` ms apart, doubling) gets the first
 * answer back and assigns nothing twice. A 409 means the teacher already
 * assigned that deck to that learner; any other refusal is reported for
 * that learner and the others still get the deck. Learners who join the
 * class later get its decks that are not yet due when they join
 * (EnrollLearner).
 */
export async function assignToClass(
  api: Api,
  targets: Target[],
  deckId: string,
  dueAt: string,
  { attempts = 3, pause = 500 } = {},
): Promise<AssignOutcome> {
  const out: AssignOutcome = { assigned: [], already: [], failed: [] };
  for (const t of targets) {
    for (let attempt = 1; ; attempt++) {
      try {
        unwrap(
          await api.POST("/CreateAssignment", {
            params: { header: { "Idempotency-Key": t.key } },
            body: { learner_id: t.learnerId, deck_id: deckId, due_at: dueAt },
          }),
        );
        out.assigned.push(t.name);
      } catch (error) {
        if (retryable(error) && attempt < attempts) {
          await new Promise((resolve) => setTimeout(resolve, pause * 2 ** (attempt - 1)));
          continue;
        }
        if (error instanceof ApiError && error.status === 409) out.already.push(t.name);
        else out.failed.push({ name: t.name, error });
      }
      break;
    }
  }
  return out;
}

/**
 * The instant a due date picked as a calendar day (YYYY-MM-DD) means: the
 * end of that day (23:59) in the teacher's own time zone, as RFC 3339.
 */
export function endOfDay(day: string): string {
  const [y = NaN, m = NaN, d = NaN] = day.split("-").map(Number);
  return new Date(y, m - 1, d, 23, 59, 0).toISOString();
}

/** The calendar day (YYYY-MM-DD, local) `days` days after `from`. */
export function dayAfter(from: Date, days: number): string {
  const d = new Date(from.getFullYear(), from.getMonth(), from.getDate() + days);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
