import type { SessionCard } from "./useReviewSession";

/**
 * newCardsLeft is how many new cards are left today during a session:
 * GetSchedule's new_count at the session's start (the new cards it serves,
 * at most what the learner's daily limit leaves) less the new cards rated
 * so far in the session (the first index of cards, each loaded new card
 * once: a card that came back in the session is not new again).
 */
export function newCardsLeft(newCount: number, cards: SessionCard[], index: number): number {
  const rated = cards.slice(0, index).filter((c) => c.state === "new" && !c.again).length;
  return Math.max(0, newCount - rated);
}
