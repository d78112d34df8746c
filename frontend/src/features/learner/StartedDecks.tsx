import { Link } from "react-router";
import type { components } from "../../api/schema";
import { Empty } from "../../components/States";
import { locale } from "../../components/when";

type DeckProgress = components["schemas"]["DeckProgress"];

const date = new Intl.DateTimeFormat(locale, { dateStyle: "medium" });

/**
 * The library decks the learner started on their own (GetProgress's
 * started_decks), beside the assignments: each with its cards learned out
 * of its words and, with detail, the cards seen and the reviews; else the
 * cards due now. Their figures are read from the cards, so they are never
 * pending.
 */
export function StartedDecks({ decks, detail = false }: { decks: DeckProgress[]; detail?: boolean }) {
  if (decks.length === 0) {
    return (
      <Empty>
        No decks of your own yet: <Link to="/library">start one in the Library</Link> to study it without a teacher.
      </Empty>
    );
  }
  return (
    <ul className="assignments" aria-label="Your own decks">
      {decks.map((d) => (
        <li key={d.deck_id}>
          <div className="row">
            <strong>{d.deck}</strong>
            <span className="muted">started {date.format(new Date(d.started_at))}</span>
          </div>
          <label>
            {d.cards_learned} of {d.cards_total} cards learned
            {detail ? ` (${d.cards_seen} seen, ${d.reviews} reviews)` : ` · ${d.cards_due} due now`}
            <progress max={Math.max(d.cards_total, 1)} value={d.cards_learned} />
          </label>
        </li>
      ))}
    </ul>
  );
}
