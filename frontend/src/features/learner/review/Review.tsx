import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { Link } from "react-router";
import { useApi } from "../../../api/ApiContext";
import { scheduleQueries } from "../../../api/queries";
import type { components } from "../../../api/schema";
import { ProblemAlert } from "../../../components/ProblemAlert";
import { Empty, QueryState } from "../../../components/States";
import { formatInterval } from "./interval";
import { newCardsLeft } from "./newLeft";
import { speak, useVoice } from "./speech";
import { useSenderState } from "./SenderContext";
import type { Rating } from "./queue";
import { ratings, useReviewSession } from "./useReviewSession";

type DueCard = components["schemas"]["DueCard"];

/** How many due cards one session loads. */
export const sessionSize = 50;

/**
 * The review session: the due cards one at a time. Space or Enter (or the
 * button) reveals the answer; 1 to 4 (or the buttons, each with the
 * interval it would give, from GetSchedule's preview) rate it, and Space or
 * Enter rates Good; U (or the button) undoes the last rating and shows that
 * card again, as often as there are ratings to take back. A rating or an
 * undo is queued and sent in the background (ReviewSender), so the next
 * card shows at once whatever the network does; the queue's state is shown
 * below the card. On a touch screen the reveal button and the ratings sit
 * at the bottom of the screen, in the thumb's reach, and the card scrolls
 * above them (styles.css, .thumb-bar). Undo sits beside the reveal button,
 * where the thumb is right after a mistaken rating; below the card while
 * the ratings are shown.
 */
export function Review() {
  const api = useApi();
  const due = useQuery(scheduleQueries.due(api, sessionSize));
  return (
    <section aria-labelledby="review-title" className="review-session">
      <h1 id="review-title">Review</h1>
      <QueryState query={due} what="your due cards">
        {(s) => (
          <Session key={s.now} now={s.now} cards={s.due} dueCount={s.due_count} newCount={s.new_count} onMore={() => void due.refetch()} />
        )}
      </QueryState>
      <QueueStatus />
    </section>
  );
}

/** "3 new cards left today", for n new cards left. */
function newLeftText(n: number): string {
  return `${n} new ${n === 1 ? "card" : "cards"} left today`;
}

/**
 * The session's view (useReviewSession holds its state and keys): where the
 * session is (the card's place among those due at the start, and how many
 * cards are coming back), the card shown, revealed or not, with its rating
 * buttons; the summary once every card is rated. The keyboard focus stays
 * where the learner is: on the reveal button for the next card, on the
 * card once revealed.
 */
function Session({
  now,
  cards: loaded,
  dueCount,
  newCount,
  onMore,
}: {
  now: string;
  cards: DueCard[];
  dueCount: number;
  newCount: number;
  onMore: () => void;
}) {
  const { cards, total, card, index, comingBack, revealed, counts, canUndo, undone, error, reveal, rate, undo } = useReviewSession({ now, cards: loaded });
  const revealButton = useRef<HTMLButtonElement>(null);
  const cardHeading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (revealed) cardHeading.current?.focus();
    else revealButton.current?.focus();
  }, [revealed, index]);

  const undoButton = canUndo && (
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
    return (
      <div className="summary" role="status">
        <h2>Session complete</h2>
        <p>
          You reviewed <strong>{total}</strong> {total === 1 ? "card" : "cards"}
          {index > total && ` (${index} ratings, with the cards that came back)`}.
        </p>
        <p className="muted">{newLeftText(newCardsLeft(newCount, cards, index))}.</p>
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
      <p className="muted" aria-live="polite" data-testid="session-place">
        {card.again ? `All ${total} due ${total === 1 ? "card" : "cards"} seen` : `Card ${index + 1} of ${total}`}
        {dueCount > total && ` (${dueCount} due in all)`}
        {comingBack > 0 && ` · ${comingBack} coming back`}
      </p>
      <p className="muted">{newLeftText(newCardsLeft(newCount, cards, index))}</p>
      <article className="card" aria-labelledby="card-lemma">
        {card.again && <p className="badge coming-back">Coming back</p>}
        {card.deck_title && <p className="muted">From {card.deck_title}</p>}
        <h2 id="card-lemma" ref={cardHeading} tabIndex={-1} lang={card.term_language}>
          {card.lemma}
        </h2>
        <Listen term={card.lemma} language={card.term_language} />
        {revealed && (
          <dl className="answer">
            {card.part_of_speech && (
              <>
                <dt>Part of speech</dt>
                <dd>{card.part_of_speech}</dd>
              </>
            )}
            <dt>Definition</dt>
            <dd className="lines">{card.definition}</dd>
            {card.example && (
              <>
                <dt>Example</dt>
                <dd lang={card.term_language} className="lines">
                  <q>{card.example}</q>
                </dd>
              </>
            )}
          </dl>
        )}
      </article>
      {revealed && undoButton && <p className="actions">{undoButton}</p>}
      <div className="thumb-bar">
        {revealed ? (
          <RatingButtons card={card} rate={rate} />
        ) : (
          <>
            {undoButton}
            <button type="button" ref={revealButton} className="primary reveal" onClick={reveal} aria-keyshortcuts="Space Enter">
              Show answer <kbd>Space</kbd>
            </button>
          </>
        )}
      </div>
    </>
  );
}

/** The four ratings of the card shown, each with the interval it would give; Good says that Space and Enter give it too. */
function RatingButtons({ card, rate }: { card: DueCard; rate: (rating: Rating) => void }) {
  return (
    <div role="group" aria-label="How well did you know it?" className="ratings">
      {ratings.map((r) => {
        const next = card.preview.find((p) => p.rating === r.value);
        return (
          <button
            key={r.value}
            type="button"
            className={`rating rating-${r.value}`}
            onClick={() => rate(r.value)}
            aria-keyshortcuts={r.value === 3 ? "3 Space Enter" : String(r.value)}
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
  );
}

/**
 * The Listen button: speaks the term with the browser's speech synthesis
 * in the deck's language (term_language, a BCP 47 tag), shown only when
 * the browser has a voice for that language.
 */
function Listen({ term, language }: { term: string; language: string }) {
  const voice = useVoice(language);
  if (!voice) return null;
  return (
    <button type="button" className="listen" onClick={() => speak(term, voice, language)} aria-label={`Listen to “${term}”`}>
      Listen
    </button>
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
