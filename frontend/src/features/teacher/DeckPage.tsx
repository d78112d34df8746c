import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries, deckQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { DataTable } from "../../components/DataTable";
import { DownloadButton } from "../../components/Download";
import { levelName } from "../../components/decks";
import { ProblemAlert } from "../../components/ProblemAlert";
import { QueryState } from "../../components/States";
import { DeckEditor } from "./DeckEditor";
import { ImportDialog } from "./ImportDialog";

type DeckDetail = components["schemas"]["DeckDetails"];
type Entry = components["schemas"]["DeckEntry"];

/**
 * One deck (GetDeck). A library deck's words are read-only: a teacher
 * sees them before assigning it, and may copy it into a deck of their own
 * to edit. A deck of their own opens in the editor, with the paste/import
 * dialog, its CSV export, and archiving or deleting it (each saying what
 * happens to the learners who have it).
 */
export function DeckPage() {
  const { deckId = "" } = useParams();
  const api = useApi();
  const deck = useQuery(deckQueries.detail(api, deckId));
  return (
    <section aria-labelledby="deck-title">
      <p>
        <Link to="/teacher/decks">All decks</Link>
      </p>
      <QueryState query={deck} what="the deck">
        {(d) => (
          <>
            <h1 id="deck-title">{d.deck.title}</h1>
            <DeckFacts deck={d.deck} />
            {d.deck.library ? (
              <>
                <p className="muted">
                  A library deck: its words are Lexora's and read-only. Assign it from <Link to="/teacher/classes">Classes</Link>, or copy it to
                  make it your own.
                </p>
                <Words entries={d.entries} language={d.deck.term_language} />
              </>
            ) : (
              <>
                <p className="actions">
                  <ImportDialog deck={d.deck} />
                  <ExportDeck deck={d.deck} />
                </p>
                <DeckEditor key={d.deck.id} deck={d.deck} entries={d.entries} />
              </>
            )}
            <CopyDeck deck={d.deck} />
            {!d.deck.library && <ArchiveOrDelete deck={d.deck} />}
          </>
        )}
      </QueryState>
    </section>
  );
}

function DeckFacts({ deck }: { deck: DeckDetail }) {
  const level = deck.level === null ? null : (levelName[deck.level] ?? `Level ${deck.level}`);
  return (
    <p className="muted" data-testid="deck-facts">
      {[
        level,
        `${deck.entries} ${deck.entries === 1 ? "word" : "words"}`,
        `words in ${deck.term_language}, meanings in ${deck.meaning_language}`,
        deck.archived_at ? "archived" : null,
        deck.description || null,
      ]
        .filter((x) => x !== null)
        .join(" · ")}
    </p>
  );
}

/** A deck's words, read-only: term, part of speech, meaning and example (all shown as text). */
function Words({ entries, language }: { entries: Entry[]; language: string }) {
  return (
    <DataTable
      label="Words of the deck"
      rows={entries}
      rowKey={(e) => e.id}
      columns={[
        { header: "Term", rowHeader: true, cell: (e) => e.term, lang: language },
        { header: "Part of speech", cell: (e) => e.part_of_speech },
        { header: "Meaning", cell: (e) => e.meaning },
        { header: "Example", cell: (e) => e.example, lang: language },
      ]}
    />
  );
}

/** ExportDeck's CSV (term, meaning, example, part_of_speech; it imports back unchanged), saved as a file named after the deck. */
function ExportDeck({ deck }: { deck: DeckDetail }) {
  const api = useApi();
  return (
    <DownloadButton
      label="Export as CSV"
      name={`${deck.title}.csv`}
      read={() => api.GET("/ExportDeck", { params: { query: { deck_id: deck.id } }, parseAs: "blob" })}
    />
  );
}

/** Copies the deck (a library deck or one's own) into a new deck of the teacher's own (CopyDeck), and opens the copy. */
function CopyDeck({ deck }: { deck: DeckDetail }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const [title, setTitle] = useState(`${deck.title} (my copy)`);
  const copy = useWrite({
    mutationFn: async (v: { key: string; title: string }) =>
      unwrap(await api.POST("/CopyDeck", { params: idempotent(v.key), body: { source_id: deck.id, title: v.title } })),
    onSuccess: async (copied) => {
      await qc.invalidateQueries({ queryKey: deckQueries.all });
      await navigate(`/teacher/decks/${copied.deck.id}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    copy.submit({ title: title.trim() });
  };
  return (
    <form onSubmit={submit} className="assign" aria-labelledby={`${id}-title`} {...copy.editing}>
      <h2 id={`${id}-title`}>Copy into a deck of your own</h2>
      <p className="muted small">The copy has the same words; you can then edit it. This deck and its learners do not change.</p>
      {copy.isError && <ProblemAlert error={copy.error} context="Not copied" fields={{ title: "Title of the copy" }} />}
      <label htmlFor={`${id}-name`}>Title of the copy</label>
      <div className="row-input">
        <input id={`${id}-name`} required maxLength={200} value={title} onChange={(e) => setTitle(e.target.value)} />
        <button type="submit" disabled={copy.isPending}>
          {copy.isPending ? "Copying…" : "Copy"}
        </button>
      </div>
    </form>
  );
}

/**
 * Archives (or brings back) the deck, or deletes it. What each does is
 * said before it is done: an archived deck is offered for no new
 * assignment, and its learners keep their cards; a deck a learner has or
 * had cannot be deleted (the server answers 409, shown as it says).
 */
function ArchiveOrDelete({ deck }: { deck: DeckDetail }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const invalidate = () =>
    Promise.all([
      qc.invalidateQueries({ queryKey: deckQueries.all }),
      qc.invalidateQueries({ queryKey: classQueries.all }),
    ]);
  const archive = useWrite({
    mutationFn: async (v: { key: string; archived: boolean }) =>
      unwrap(await api.POST("/ArchiveDeck", { params: idempotent(v.key), body: { deck_id: deck.id, archived: v.archived } })),
    onSuccess: invalidate,
  });
  const remove = useWrite({
    mutationFn: async (v: { key: string }) =>
      unwrap(await api.POST("/DeleteDeck", { params: idempotent(v.key), body: { deck_id: deck.id } })),
    onSuccess: async () => {
      await navigate("/teacher/decks");
      await invalidate();
    },
  });
  // GetDeck does not say whether a learner has the deck; the teacher's list does.
  const own = useQuery(deckQueries.own(api));
  const assigned = own.data?.find((d) => d.id === deck.id)?.assigned ?? deck.assigned;
  const archived = deck.archived_at !== null;
  return (
    <section className="assign" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Archive or delete</h2>
      <p className="muted small" id={`${id}-archive`}>
        {archived
          ? "This deck is archived: it is not offered for new assignments. Bring it back to assign it again."
          : "Archiving hides the deck from the assign form. Learners who have it keep their cards and their progress, and a class that has it keeps it until its due date; you can still edit, copy and export it."}
      </p>
      {archive.isError && <ProblemAlert error={archive.error} context={archived ? "Not brought back" : "Not archived"} />}
      <button type="button" aria-describedby={`${id}-archive`} disabled={archive.isPending} onClick={() => archive.submit({ archived: !archived })}>
        {archived ? "Bring back from the archive" : "Archive this deck"}
      </button>
      <p className="muted small" id={`${id}-delete`}>
        {assigned
          ? "This deck is or was assigned, so it cannot be deleted: its learners' cards and progress refer to it. Archive it instead."
          : "Deleting removes the deck and its words for good. Nobody has it yet, so no learner loses anything."}
      </p>
      {remove.isError && <ProblemAlert error={remove.error} context="Not deleted" />}
      <button
        type="button"
        aria-describedby={`${id}-delete`}
        disabled={remove.isPending || assigned}
        onClick={() => {
          if (window.confirm(`Delete “${deck.title}” and its ${deck.entries} words for good?`)) remove.submit({});
        }}
      >
        Delete this deck
      </button>
    </section>
  );
}
