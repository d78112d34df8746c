import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { deckQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { DataTable } from "../../components/DataTable";
import { deckGroups } from "../../components/decks";
import { ProblemAlert } from "../../components/ProblemAlert";
import { Empty, QueryState } from "../../components/States";

type Deck = components["schemas"]["Deck"];
type OwnDeck = components["schemas"]["DeckDetails"];

/** The field names of CreateDeck's refusals as the form labels them. */
export const deckFields = {
  title: "Title",
  description: "Description",
  term_language: "Language of the words",
  meaning_language: "Language of the meanings",
};

/**
 * A teacher's decks: their own (each opens in the deck editor) with a form
 * to create one, and the library's by level (each opens read-only, to see
 * its words before assigning it or to copy it into a deck of their own).
 */
export function Decks() {
  const api = useApi();
  const own = useQuery(deckQueries.own(api));
  const decks = useQuery(deckQueries.list(api));
  return (
    <section aria-labelledby="decks-title">
      <h1 id="decks-title">Decks</h1>
      <p className="muted">
        Write or paste your own word lists, or start from a copy of a library deck. A deck you assign goes to every learner of the class; a word
        you add or fix later reaches their cards at once.
      </p>
      <QueryState query={own} what="your decks">
        {(list) => <OwnDecks decks={list} />}
      </QueryState>
      <CreateDeck />
      <QueryState query={decks} what="the library">
        {(list) => <LibraryDecks decks={list.filter((d) => d.library)} />}
      </QueryState>
    </section>
  );
}

/** What the list says of a deck's state: assigned (so it cannot be deleted), archived (offered for no new assignment). */
function status(d: OwnDeck): string {
  if (d.archived_at) return "archived";
  return d.assigned ? "assigned" : "not assigned yet";
}

function OwnDecks({ decks }: { decks: OwnDeck[] }) {
  return (
    <>
      <h2>Your decks</h2>
      {decks.length === 0 ? (
        <Empty>No deck of your own yet: create one below, or open a library deck and copy it.</Empty>
      ) : (
        <DataTable
          label="Your decks"
          rows={decks}
          rowKey={(d) => d.id}
          columns={[
            { header: "Deck", rowHeader: true, cell: (d) => <Link to={`/teacher/decks/${d.id}`}>{d.title}</Link> },
            { header: "Words", cell: (d) => d.entries },
            { header: "Language", cell: (d) => `${d.term_language} → ${d.meaning_language}` },
            { header: "State", cell: status },
          ]}
        />
      )}
    </>
  );
}

function LibraryDecks({ decks }: { decks: Deck[] }) {
  return (
    <>
      <h2>The library</h2>
      <p className="muted">Lexora's decks of the most frequent English words, with WordNet's definitions. Open one to see its words.</p>
      {deckGroups(decks).map((g) => (
        <DataTable
          key={g.label}
          caption={g.label}
          label={g.label}
          rows={g.decks}
          rowKey={(d) => d.id}
          columns={[
            {
              header: "Deck",
              rowHeader: true,
              cell: (d) => (
                <Link to={`/teacher/decks/${d.id}`} aria-label={`${d.title}: see its words`}>
                  {d.title}
                </Link>
              ),
            },
            { header: "Words", cell: (d) => d.words },
          ]}
        />
      ))}
    </>
  );
}

/** Creates an empty deck of the teacher's own (CreateDeck) and opens it in the editor. */
function CreateDeck() {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const [title, setTitle] = useState("");
  const [description, setDescription] = useState("");
  const [termLanguage, setTermLanguage] = useState("en");
  const [meaningLanguage, setMeaningLanguage] = useState("en");
  const titleLimit = useCharacterLimit({ value: title, onChange: setTitle, limit: 200 });
  // 2,000 as UpdateDeck's and the server's (pkg/decks' MaxDescription).
  const descriptionLimit = useCharacterLimit({ value: description, onChange: setDescription, limit: 2000 });
  const termsLimit = useCharacterLimit({ value: termLanguage, onChange: setTermLanguage, limit: 35, describedBy: `${id}-tag` });
  const meaningsLimit = useCharacterLimit({ value: meaningLanguage, onChange: setMeaningLanguage, limit: 35, describedBy: `${id}-tag` });
  const create = useWrite({
    mutationFn: async (v: { key: string; title: string; description: string; term_language: string; meaning_language: string }) =>
      unwrap(
        await api.POST("/CreateDeck", {
          params: idempotent(v.key),
          body: {
            title: v.title,
            term_language: v.term_language,
            meaning_language: v.meaning_language,
            ...(v.description && { description: v.description }),
          },
        }),
      ),
    onSuccess: async (deck) => {
      await qc.invalidateQueries({ queryKey: deckQueries.all });
      await navigate(`/teacher/decks/${deck.deck.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.submit({
      title: title.trim(),
      description: description.trim(),
      term_language: termLanguage.trim(),
      meaning_language: meaningLanguage.trim(),
    });
  };
  return (
    <form onSubmit={submit} className="card-form" aria-labelledby={`${id}-title`} {...create.editing}>
      <h2 id={`${id}-title`}>Create a deck</h2>
      {create.isError && <ProblemAlert error={create.error} context="No deck created" fields={deckFields} />}
      <label htmlFor={`${id}-name`}>Title</label>
      <input id={`${id}-name`} required {...titleLimit.field} />
      {titleLimit.note}
      <label htmlFor={`${id}-description`}>Description (optional)</label>
      <input id={`${id}-description`} {...descriptionLimit.field} />
      {descriptionLimit.note}
      <label htmlFor={`${id}-terms`}>Language of the words</label>
      <input id={`${id}-terms`} required {...termsLimit.field} />
      {termsLimit.note}
      <label htmlFor={`${id}-meanings`}>Language of the meanings</label>
      <input id={`${id}-meanings`} required {...meaningsLimit.field} />
      {meaningsLimit.note}
      <p id={`${id}-tag`} className="muted small">
        A language tag: en, es, fr-CA… The learners' Listen button speaks the words in the first.
      </p>
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? "Creating…" : "Create and add words"}
      </button>
    </form>
  );
}
