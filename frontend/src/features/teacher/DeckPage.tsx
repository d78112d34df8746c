import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type FormEvent } from "react";
import { Link, useNavigate, useParams } from "react-router";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { classQueries, deckQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { ApiError } from "../../api/problem";
import { characters, cutTo, useCharacterLimit } from "../../components/CharacterLimit";
import { DataTable } from "../../components/DataTable";
import { DownloadButton } from "../../components/Download";
import { levelName } from "../../components/decks";
import { ProblemAlert } from "../../components/ProblemAlert";
import { QueryState } from "../../components/States";
import { DeckEditor } from "./DeckEditor";
import { ImportDialog } from "./ImportDialog";

/** The most characters (code points) a deck's title has on the server (pkg/decks; UpdateDeck, CopyDeck). */
const titleMax = 200;

type DeckDetail = components["schemas"]["DeckDetails"];
type Entry = components["schemas"]["DeckEntry"];

/**
 * One deck (GetDeck). A library deck's words are read-only: a teacher
 * sees them before assigning it, and may copy it into a deck of their own
 * to edit. A deck of their own opens in the editor, with its details'
 * form (title, description, languages), the paste/import dialog, its CSV export, and archiving or deleting it (each saying what
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
            {!d.deck.library && <EditDetails key={d.deck.id} deck={d.deck} />}
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

/** The problem type of a write based on a version that changed since it was read (409). */
const staleVersion = "https://lexora.app/problems/stale-version";

/** The details form's labels, by UpdateDeck's field names (for a refusal's field errors). */
const detailFields = { title: "Title", description: "Description", term_language: "Term language", meaning_language: "Meaning language" };

type Details = { title: string; description: string; term_language: string; meaning_language: string };

const detailsOf = (d: DeckDetail): Details => ({
  title: d.title,
  description: d.description,
  term_language: d.term_language,
  meaning_language: d.meaning_language,
});

/**
 * "Edit details": the deck's title, description and languages (UpdateDeck),
 * sent with the deck's version as the form read it, so that a change made
 * meanwhile (in another tab, by a colleague) is refused (409) and not
 * undone: the form then says so and offers to load the saved details. A
 * title the teacher has for another deck, or a language that is not a
 * BCP 47 tag, is shown as the server words it, beside the field's name.
 */
function EditDetails({ deck }: { deck: DeckDetail }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [open, setOpen] = useState(false);
  const [read, setRead] = useState({ version: deck.version, details: detailsOf(deck) });
  const [form, setForm] = useState<Details>(read.details);
  const update = useWrite({
    mutationFn: async (v: { key: string; version: number } & Details) =>
      unwrap(
        await api.POST("/UpdateDeck", {
          params: idempotent(v.key),
          body: {
            deck_id: deck.id,
            version: v.version,
            title: v.title,
            ...(v.description !== "" && { description: v.description }),
            term_language: v.term_language,
            meaning_language: v.meaning_language,
          },
        }),
      ),
    onSuccess: async () => {
      setOpen(false);
      await Promise.all([
        qc.invalidateQueries({ queryKey: deckQueries.all }),
        qc.invalidateQueries({ queryKey: classQueries.all }),
        qc.invalidateQueries({ queryKey: classQueries.progressAll }),
      ]);
    },
  });
  const stale = update.error instanceof ApiError && update.error.status === 409 && update.error.problem.type === staleVersion;
  const start = (d: DeckDetail) => {
    const now = { version: d.version, details: detailsOf(d) };
    setRead(now);
    setForm(now.details);
  };
  const reload = async () => {
    update.reset();
    start((await qc.fetchQuery({ ...deckQueries.detail(api, deck.id), staleTime: 0 })).deck);
  };
  const set = (field: keyof Details) => (value: string) => setForm((f) => ({ ...f, [field]: value }));
  const titleLimit = useCharacterLimit({ value: form.title, onChange: set("title"), limit: titleMax });
  const aboutLimit = useCharacterLimit({ value: form.description, onChange: set("description"), limit: 2000 });
  const termLimit = useCharacterLimit({ value: form.term_language, onChange: set("term_language"), limit: 35, describedBy: `${id}-tags` });
  const meaningLimit = useCharacterLimit({ value: form.meaning_language, onChange: set("meaning_language"), limit: 35, describedBy: `${id}-tags` });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    update.submit({
      version: read.version,
      title: form.title.trim(),
      description: form.description.trim(),
      term_language: form.term_language.trim(),
      meaning_language: form.meaning_language.trim(),
    });
  };
  return (
    <>
      <p className="actions">
        <button
          type="button"
          aria-expanded={open}
          aria-controls={`${id}-form`}
          onClick={() => {
            if (!open) {
              update.reset();
              start(deck);
            }
            setOpen(!open);
          }}
        >
          {open ? "Close the details" : "Edit details"}
        </button>
      </p>
      {update.isSuccess && !open && (
        <p role="status" className="ok-note">
          Saved the deck's details.
        </p>
      )}
      {open && (
        <form id={`${id}-form`} onSubmit={submit} className="assign" aria-labelledby={`${id}-title`} {...update.editing}>
          <h2 id={`${id}-title`}>Edit details</h2>
          {update.isError && (
            <ProblemAlert
              error={update.error}
              context={stale ? "Not saved: someone else changed this deck's details since you opened them" : "Not saved"}
              fields={detailFields}
            />
          )}
          {stale && (
            <p>
              Your changes are still below, unsaved.{" "}
              <button type="button" onClick={() => void reload()}>
                Reload the saved details (drops your changes)
              </button>
            </p>
          )}
          <label htmlFor={`${id}-name`}>Title</label>
          <input id={`${id}-name`} required {...titleLimit.field} />
          {titleLimit.note}
          <label htmlFor={`${id}-about`}>Description</label>
          <textarea id={`${id}-about`} rows={3} {...aboutLimit.field} />
          {aboutLimit.note}
          <p className="muted small" id={`${id}-tags`}>
            Languages are BCP 47 tags, such as en, es or fr-CA.
          </p>
          <label htmlFor={`${id}-term`}>Term language</label>
          <input id={`${id}-term`} required {...termLimit.field} />
          {termLimit.note}
          <label htmlFor={`${id}-meaning`}>Meaning language</label>
          <input id={`${id}-meaning`} required {...meaningLimit.field} />
          {meaningLimit.note}
          <p className="actions">
            <button type="submit" className="primary" disabled={update.isPending}>
              {update.isPending ? "Saving…" : "Save details"}
            </button>
          </p>
        </form>
      )}
    </>
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
        { header: "Meaning", cell: (e) => e.meaning, className: "lines" },
        { header: "Example", cell: (e) => e.example, lang: language, className: "lines" },
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

const copySuffix = " (my copy)";

/**
 * The title CopyDeck's form starts with: title and " (my copy)", the title
 * cut (whole characters, see cutTo, and without the white space the cut
 * leaves at its end) so that the whole has at most 200 characters, which
 * the server takes; a 200-character title gives 190 of it and the suffix.
 */
function copyTitle(title: string): string {
  return cutTo(title, titleMax - characters(copySuffix)).trimEnd() + copySuffix;
}

/** Copies the deck (a library deck or one's own) into a new deck of the teacher's own (CopyDeck), and opens the copy. */
function CopyDeck({ deck }: { deck: DeckDetail }) {
  const api = useApi();
  const qc = useQueryClient();
  const navigate = useNavigate();
  const id = useId();
  const [title, setTitle] = useState(() => copyTitle(deck.title));
  const titleLimit = useCharacterLimit({ value: title, onChange: setTitle, limit: titleMax });
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
        <input id={`${id}-name`} required {...titleLimit.field} />
        <button type="submit" disabled={copy.isPending}>
          {copy.isPending ? "Copying…" : "Copy"}
        </button>
      </div>
      {titleLimit.note}
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
