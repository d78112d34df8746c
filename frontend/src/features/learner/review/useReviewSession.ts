import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { scheduleQueries } from "../../../api/queries";
import type { components } from "../../../api/schema";
import type { QueuedReview, Rating } from "./queue";
import { useReviewSender } from "./SenderContext";

type DueCard = components["schemas"]["DueCard"];

/** The four ratings, their keys and names (FSRS: Again, Hard, Good, Easy). */
export const ratings: { value: Rating; name: string; hint: string }[] = [
  { value: 1, name: "Again", hint: "forgot it" },
  { value: 2, name: "Hard", hint: "recalled with effort" },
  { value: 3, name: "Good", hint: "recalled" },
  { value: 4, name: "Easy", hint: "recalled at once" },
];

/**
 * How soon a card rated in the session must be due again to come back in
 * it: Anki's learn-ahead limit (20 minutes), so that a card rated Again (or
 * still in its learning steps) is seen again before the session ends.
 */
export const learnAheadMs = 20 * 60_000;

/** A card of the session; again: the Idempotency-Key of the rating that brought it back. */
export type SessionCard = DueCard & { again?: string };

/** What a review session shows and what the learner can do in it (useReviewSession). */
export interface ReviewSession {
  /** The session's cards, in the order shown: those due at its start, then those that came back. */
  cards: SessionCard[];
  /** The session's count: the cards due at its start (the first `total` of cards); those coming back are not counted. */
  total: number;
  /** The card shown, or undefined once every card is rated. */
  card: SessionCard | undefined;
  /** The position of card in cards (0-based); once every card is rated, how many ratings were given. */
  index: number;
  /** The cards that came back (learning steps) and are not rated yet, the one shown included. */
  comingBack: number;
  /** Whether the card's answer is shown (and so its ratings). */
  revealed: boolean;
  /** The ratings given in the session and not undone, by rating. */
  counts: Record<Rating, number>;
  /** Whether a rating can be undone: one was given and not yet undone. */
  canUndo: boolean;
  /** The sentence that says which rating was undone, until the next rating. */
  undone: string | null;
  /** Why the last rating or undo could not be queued on this device (IndexedDB), or null. */
  error: unknown;
  reveal: () => void;
  /** Rates the card shown, once revealed; nothing otherwise. */
  rate: (rating: Rating) => void;
  /**
   * Takes back the last rating not undone: that card comes back, unrevealed,
   * to be rated again. Called again, the rating before, as far back as the
   * session goes.
   */
  undo: () => void;
}

/**
 * useReviewSession is a review session over the cards loaded at the
 * server's time now: those less the ones rated but not yet acknowledged (a
 * reload while offline), which the server still has as due. They are the
 * session's count (total), fixed at its start. A rating or an undo is
 * queued and sent in the background (ReviewSender), so the next card shows
 * at once whatever the network does; each invalidates the forecast once
 * queued. A card rated here whose new due (SubmitReview's answer) is within
 * learnAheadMs of the server's time comes back after the cards queued so
 * far, without a preview (the one loaded was for its state before), and is
 * counted apart (comingBack), not in the total; undoing that rating takes
 * it out again. Undo walks back the session's ratings one by one, last
 * first; the server takes back each card's reviews in the same order.
 *
 * The keyboard works it while it is mounted: Space or Enter reveals the
 * answer, and on the answer rates Good (as in Anki); 1 to 4 rate, U undoes.
 * Not on a link or a button (Space and Enter keep their own meaning there),
 * not a held key's repeats (holding Space never rates), not with Ctrl, Alt
 * or Meta, nor while typing in a field.
 */
export function useReviewSession({ now, cards: loaded }: { now: string; cards: DueCard[] }): ReviewSession {
  const sender = useReviewSender();
  const queryClient = useQueryClient();
  const [cards, setCards] = useState<SessionCard[]>(() => loaded.filter((c) => !sender.current.queuedCards.includes(c.card_id)));
  // The cards due at the start: coming back ones are appended after them.
  const [total] = useState(cards.length);
  /** The cards of this session's ratings not undone, by Idempotency-Key. */
  const rated = useRef(new Map<string, DueCard>());
  // The server's time, from its now at load and the time since on this
  // device: a device clock set wrong moves no card in or out.
  const [loadedAt] = useState(() => Date.now());
  useEffect(
    () =>
      sender.onAnswer((a) => {
        const back = rated.current.get(a.key);
        if (!back || Date.parse(a.due) - (Date.parse(now) + Date.now() - loadedAt) > learnAheadMs) return;
        rated.current.delete(a.key);
        setCards((cs) => [...cs, { ...back, due: a.due, preview: [], again: a.key }]);
      }),
    [sender, now, loadedAt],
  );
  const [index, setIndex] = useState(0);
  const [revealed, setRevealed] = useState(false);
  const [counts, setCounts] = useState<Record<Rating, number>>({ 1: 0, 2: 0, 3: 0, 4: 0 });
  const [error, setError] = useState<unknown>(null);
  /** The session's ratings, latest last, which U takes back one by one. */
  const [given, setGiven] = useState<{ queued: Promise<QueuedReview>; rating: Rating; lemma: string }[]>([]);
  const [undone, setUndone] = useState<string | null>(null);
  const card = cards[index];

  const rate = useCallback(
    (rating: Rating) => {
      if (!card || !revealed) return;
      const queued = sender.rate(card.card_id, card.lemma, rating);
      queued.then(
        (q) => {
          rated.current.set(q.key, card);
          void queryClient.invalidateQueries({ queryKey: scheduleQueries.forecasts });
        },
        (e: unknown) => setError(e),
      );
      setGiven((g) => [...g, { queued, rating, lemma: card.lemma }]);
      setUndone(null);
      setCounts((c) => ({ ...c, [rating]: c[rating] + 1 }));
      setRevealed(false);
      setIndex((i) => i + 1);
    },
    [card, revealed, sender, queryClient],
  );

  const undo = useCallback(() => {
    const last = given.at(-1);
    if (!last) return;
    sender.undo(last.queued).then(
      () => void queryClient.invalidateQueries({ queryKey: scheduleQueries.forecasts }),
      (e: unknown) => setError(e),
    );
    void last.queued.then((q) => {
      rated.current.delete(q.key);
      setCards((cs) => cs.filter((c) => c.again !== q.key));
    });
    setGiven((g) => g.slice(0, -1));
    setUndone(`Your ${ratings[last.rating - 1]!.name} on “${last.lemma}” is undone: rate it again.`);
    setCounts((c) => ({ ...c, [last.rating]: c[last.rating] - 1 }));
    setRevealed(false);
    setIndex((i) => i - 1);
  }, [given, sender, queryClient]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target instanceof Element ? e.target : null;
      if (t?.closest("input, textarea, select, [contenteditable]")) return;
      if (e.key === " " || e.key === "Enter") {
        // Space and Enter keep their own meaning on a link or a button (the
        // reveal button's is to reveal); anywhere else they reveal, then
        // rate Good.
        if (t?.closest("a, button, summary")) return;
        e.preventDefault();
        if (e.repeat || !card) return;
        if (revealed) rate(3);
        else setRevealed(true);
      } else if (["1", "2", "3", "4"].includes(e.key)) {
        e.preventDefault();
        rate(Number(e.key) as Rating);
      } else if (e.key === "u" || e.key === "U") {
        e.preventDefault();
        undo();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [card, revealed, rate, undo]);

  const reveal = useCallback(() => setRevealed(true), []);
  const comingBack = cards.length - Math.max(index, total);
  return { cards, total, card, index, comingBack, revealed, counts, canUndo: given.length > 0, undone, error, reveal, rate, undo };
}
