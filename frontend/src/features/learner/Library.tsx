import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId } from "react";
import { Link } from "react-router";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { deckQueries, scheduleQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { deckGroups } from "../../components/decks";
import { ProblemAlert } from "../../components/ProblemAlert";
import { Empty, QueryState } from "../../components/States";

type Deck = components["schemas"]["Deck"];

/**
 * The library for self-study: every shared deck by level, with its size;
 * a learner starts one (StartDeck) and its words join their reviews, with
 * no teacher involved. Decks already begun (started, or assigned by a
 * teacher) say so.
 */
export function Library() {
  const api = useApi();
  const decks = useQuery(deckQueries.list(api));
  return (
    <section aria-labelledby="library-title">
      <h1 id="library-title">Library</h1>
      <p className="muted">
        Start any deck to study it on your own: its words join your reviews as new cards. Level 1 holds the most
        frequent words.
      </p>
      <QueryState query={decks} what="the library">
        {(list) =>
          list.length === 0 ? (
            <Empty>The library is empty.</Empty>
          ) : (
            deckGroups(list).map((g) => (
              <section key={g.label} aria-label={g.label}>
                <h2>{g.label}</h2>
                <ul className="decks">
                  {g.decks.map((d) => (
                    <DeckRow key={d.id} deck={d} />
                  ))}
                </ul>
              </section>
            ))
          )
        }
      </QueryState>
    </section>
  );
}

function DeckRow({ deck }: { deck: Deck }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const start = useWrite({
    mutationFn: async ({ key }: { key: string }) =>
      unwrap(await api.POST("/StartDeck", { params: idempotent(key), body: { deck_id: deck.id } })),
    onSuccess: () => {
      void qc.invalidateQueries({ queryKey: deckQueries.all });
      void qc.invalidateQueries({ queryKey: scheduleQueries.all });
    },
  });
  const started = deck.started || start.isSuccess;
  return (
    <li aria-labelledby={`${id}-title`}>
      <div className="row">
        <strong id={`${id}-title`}>{deck.title}</strong>
        <span className="muted">{deck.words} words</span>
      </div>
      {deck.description && <p className="muted small">{deck.description}</p>}
      {start.isError && <ProblemAlert error={start.error} context="Not started" />}
      {start.isSuccess && (
        <p role="status" className="ok-note">
          {start.data.already_started
            ? "You had started this deck already."
            : `Started: ${start.data.cards_created} new ${start.data.cards_created === 1 ? "card" : "cards"} join your reviews.`}{" "}
          <Link to="/review">Review now</Link>
        </p>
      )}
      {started ? (
        !start.isSuccess && <span className="badge ok">Started</span>
      ) : (
        <button
          type="button"
          onClick={() => start.submit({})}
          disabled={start.isPending}
          aria-label={`${start.isPending ? "Starting" : "Start"} ${deck.title}`}
        >
          {start.isPending ? "Starting…" : "Start"}
        </button>
      )}
    </li>
  );
}
