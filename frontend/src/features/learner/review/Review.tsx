import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { Link } from "react-router";
import { useApi } from "../../../api/ApiContext";
import { scheduleQueries } from "../../../api/queries";
import type { components } from "../../../api/schema";
import { ProblemAlert } from "../../../components/ProblemAlert";
import { Empty, QueryState } from "../../../components/States";
import { formatInterval } from "./interval";
import type { QueuedReview, Rating } from "./queue";
import { useReviewSender, useSenderState } from "./SenderContext";

type DueCard = components["schemas"]["DueCard"];

/** The four ratings, their keys and names (FSRS: Again, Hard, Good, Easy). */
export const ratings: { value: Rating; name: string; hint: string }[] = [
  { value: 1, name: "Again", hint: "forgot it" },
  { value: 2, name: "Hard", hint: "recalled with effort" },
  { value: 3, name: "Good", hint: "recalled" },
  { value: 4, name: "Easy", hint: "recalled at once" },
];

/** How many due cards one session loads. */
export const sessionSize = 50;

/**
 * How soon a card rated in the session must be due again to come back in
 * it: Anki's learn-ahead limit (20 minutes), so that a card rated Again (or
 * still in its learning steps) is seen again before the session ends.
 */
export const learnAheadMs = 20 * 60_000;

/** A card of the session; again: the Idempotency-Key of the rating that brought it back. */
type SessionCard = DueCard & { again?: string };

/**
 * The review session: the due cards one at a time. Space (or the button)
 * reveals the answer; 1 to 4 (or the buttons, each with the interval it
 * would give, from GetSchedule's preview) rate it; U (or the button) undoes
 * the last rating and shows that card again. A rating or an undo is queued
 * and sent in the background (ReviewSender), so the next card shows at once
 * whatever the network does; the queue's state is shown below the card.
 */
export function Review() {
  const api = useApi();
  const due = useQuery(scheduleQueries.due(api, sessionSize));
  return (
    <section aria-labelledby="review-title">
      <h1 id="review-title">Review</h1>
      <QueryState query={due} what="your due cards">
        {(s) => <Session key={s.now} now={s.now} cards={s.due} dueCount={s.due_count} onMore={() => void due.refetch()} />}
      </QueryState>
      <QueueStatus />
    </section>
  );
}

/**
 * A session over the cards loaded at the server's time now: those less the
 * ones rated but not yet acknowledged (a reload while offline), which the
 * server still has as due. A card rated here whose new due (SubmitReview's
 * answer) is within learnAheadMs of the server's time comes back after the
 * cards queued so far, without a preview (the one loaded was for its state
 * before); undoing that rating takes it out again.
 */
function Session({ now, cards: loaded, dueCount, onMore }: { now: string; cards: DueCard[]; dueCount: number; onMore: () => void }) {
  const sender = useReviewSender();
  const [cards, setCards] = useState<SessionCard[]>(() => loaded.filter((c) => !sender.current.queuedCards.includes(c.card_id)));
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
  const queryClient = useQueryClient();
  const [index, setIndex] = useState(0);
  const [revealed, setRevealed] = useState(false);
  const [counts, setCounts] = useState<Record<Rating, number>>({ 1: 0, 2: 0, 3: 0, 4: 0 });
  const [error, setError] = useState<unknown>(null);
  /** The session's ratings, latest last, which U takes back one by one. */
  const [given, setGiven] = useState<{ queued: Promise<QueuedReview>; rating: Rating; lemma: string }[]>([]);
  const [undone, setUndone] = useState<string | null>(null);
  const card = cards[index];
  const revealButton = useRef<HTMLButtonElement>(null);
  const cardHeading = useRef<HTMLHeadingElement>(null);

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

  // Takes back the last rating: the card comes back, unrevealed, to be rated again.
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

  // Keep the keyboard where the learner is: on the reveal button for the
  // next card, on the card once revealed.
  useEffect(() => {
    if (revealed) cardHeading.current?.focus();
    else revealButton.current?.focus();
  }, [revealed, index]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target instanceof Element ? e.target : null;
      if (t?.closest("input, textarea, select, [contenteditable]")) return;
      if (e.key === " ") {
        // Space keeps its own meaning on a link or a button (the reveal
        // button's is to reveal); anywhere else it reveals.
        if (t?.closest("a, button, summary")) return;
        e.preventDefault();
        setRevealed(true);
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
  }, [rate, undo]);

  const undoButton = given.length > 0 && (
    <button type="button" className="undo" onClick={undo} aria-keyshortcuts="U">
      Undo last rating <kbd>U</kbd>
    </button>
  );

  if (cards.length === 0) {
    return (
      <Empty>
        Nothing is due right now. <Link to="/schedule">See when your next reviews are due</Link>.
      </Empty>
    );
  }
  if (!card) {
    const total = index;
    return (
      <div className="summary" role="status">
        <h2>Session complete</h2>
        <p>
          You reviewed <strong>{total}</strong> {total === 1 ? "card" : "cards"}.
        </p>
        <ul className="summary-counts">
          {ratings.map((r) => (
            <li key={r.value}>
              {r.name}: <strong>{counts[r.value]}</strong>
            </li>
          ))}
        </ul>
        <p className="actions">
          <button type="button" className="primary" onClick={onMore}>
            Check for more due cards
          </button>
          {undoButton}
          <Link to="/schedule">See the forecast</Link>
        </p>
      </div>
    );
  }
  return (
    <>
      {error !== null && <ProblemAlert error={error} context="Your rating could not be saved on this device" />}
      {undone && (
        <p role="status" className="ok-note">
          {undone}
        </p>
      )}
      <p className="muted" aria-live="polite">
        Card {index + 1} of {cards.length}
        {dueCount > cards.length && ` (${dueCount} due in all)`}
      </p>
      <article className="card" aria-labelledby="card-lemma">
        <h2 id="card-lemma" ref={cardHeading} tabIndex={-1} lang="en">
          {card.lemma}
        </h2>
        {revealed ? (
          <dl className="answer">
            <dt>Part of speech</dt>
            <dd>{card.part_of_speech}</dd>
            <dt>Definition</dt>
            <dd>{card.definition}</dd>
            {card.example && (
              <>
                <dt>Example</dt>
                <dd lang="en">
                  <q>{card.example}</q>
                </dd>
              </>
            )}
          </dl>
        ) : (
          <button type="button" ref={revealButton} className="primary reveal" onClick={() => setRevealed(true)}>
            Show answer <kbd>Space</kbd>
          </button>
        )}
      </article>
      {revealed && (
        <div role="group" aria-label="How well did you know it?" className="ratings">
          {ratings.map((r) => {
            const next = card.preview.find((p) => p.rating === r.value);
            return (
              <button
                key={r.value}
                type="button"
                className={`rating rating-${r.value}`}
                onClick={() => rate(r.value)}
                aria-keyshortcuts={String(r.value)}
              >
                <span className="rating-name">{r.name}</span>
                {next && (
                  <span className="rating-interval">
                    <span className="visually-hidden">next review in </span>
                    {formatInterval(next.interval_seconds * 1000)}
                  </span>
                )}
                <span className="rating-hint">{r.hint}</span>
                <kbd>{r.value}</kbd>
              </button>
            );
          })}
        </div>
      )}
      {undoButton && <p className="actions">{undoButton}</p>}
    </>
  );
}

/** What the queue of ratings is doing: all sent, waiting offline, retrying, or refused. */
function QueueStatus() {
  const s = useSenderState();
  return (
    <div className="queue-status">
      <p role="status" data-testid="queue-status">
        {s.pending === 0
          ? "All ratings saved."
          : s.offline
            ? `You are offline: ${s.pending} ${s.pending === 1 ? "rating waits" : "ratings wait"} on this device and will be sent when you are back online.`
            : s.retrying
              ? `${s.pending} ${s.pending === 1 ? "rating" : "ratings"} not sent yet: ${s.retrying}. Retrying…`
              : `Sending ${s.pending} ${s.pending === 1 ? "rating" : "ratings"}…`}
      </p>
      {s.rejected.map(({ review, problem }) => (
        <div role="alert" className="alert" key={review.key}>
          <p className="alert-title">
            {review.action === "undo" ? "Your undo" : "Your rating"} of “{review.lemma}” was not accepted: {problem.title}
          </p>
          {problem.detail && <p>{problem.detail}</p>}
        </div>
      ))}
    </div>
  );
}
