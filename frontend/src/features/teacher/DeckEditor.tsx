import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, useWrite } from "../../api/mutation";
import { ApiError } from "../../api/problem";
import { classQueries, deckQueries, libraryQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { useCharacterLimit } from "../../components/CharacterLimit";
import { ProblemAlert } from "../../components/ProblemAlert";
import { TableWrap } from "../../components/TableWrap";
import { blankRow, draftOf, editOf, fields, isBlank, isEmpty, move, orderAfter, type DraftRow, type Edit, type EntryText } from "./draft";

type DeckDetail = components["schemas"]["DeckDetails"];
type Entry = components["schemas"]["DeckEntry"];

/**
 * The usual parts of speech (pkg/deckimport's ParsePartOfSpeech), offered
 * as the part of speech cell's suggestions: the server keeps any text (at
 * most maxPartOfSpeech characters, such as "phrasal verb"), and so does the cell.
 */
export const partsOfSpeech = [
  "noun",
  "verb",
  "adjective",
  "adverb",
  "pronoun",
  "preposition",
  "conjunction",
  "interjection",
  "determiner",
  "numeral",
  "phrase",
] as const;

/** The longest part of speech the server keeps (characters). */
export const maxPartOfSpeech = 50;

/** The most characters the server keeps of each field of an entry (pkg/decks' MaxTerm, MaxMeaning, MaxExample, MaxPartOfSpeech). */
export const entryLimits: Record<keyof EntryText, number> = { term: 200, meaning: 1000, example: 500, part_of_speech: maxPartOfSpeech };

/**
 * A cell of the editor: an input (term, part of speech) or a textarea
 * (meaning, example, which keep line breaks) of at most entryLimits[field]
 * characters. Its counter and cut notice show only while it has the
 * focus, so that the table stays compact.
 */
function EntryCell({
  field,
  rowKey,
  label,
  invalid,
  lang,
  list,
  value,
  onChange,
  onKeyDown,
}: {
  field: keyof EntryText;
  rowKey: string;
  label: string;
  invalid: boolean;
  lang?: string;
  list?: string;
  value: string;
  onChange: (value: string) => void;
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void;
}) {
  const limit = useCharacterLimit({ value, onChange, limit: entryLimits[field], counter: "focused" });
  const common = {
    "aria-label": label,
    "aria-invalid": invalid || undefined,
    "data-row": rowKey,
    "data-field": field,
    lang,
    onKeyDown,
    ...limit.field,
  };
  return (
    <>
      {field === "term" || field === "part_of_speech" ? <input list={list} {...common} /> : <textarea rows={linesOf(value)} {...common} />}
      {limit.note}
    </>
  );
}

/** The rows of a cell's textarea: one per line of its text. */
function linesOf(text: string): number {
  return text.split("\n").length;
}

const headers: Record<keyof EntryText, string> = {
  term: "Term",
  meaning: "Meaning",
  example: "Example",
  part_of_speech: "Part of speech",
};

/**
 * A refusal's field ("add[2].meaning", "change[0].term") as the editor's
 * row and column ("Row 7, meaning"): add[i] is the i-th new row sent,
 * change[i] the i-th changed row, in the table's order.
 */
export function rowFields(edit: Edit, rows: readonly DraftRow[], problem: components["schemas"]["Problem"]): Record<string, string> {
  const number = new Map(rows.map((r, i) => [r.id ?? r.key, i + 1]));
  const names: Record<string, string> = {};
  for (const e of problem.errors ?? []) {
    const m = /^(add|change|remove)\[(\d+)\]\.?(\w*)$/.exec(e.field);
    if (!m) continue;
    const [, list, index, field] = m;
    const i = Number(index);
    const ref = list === "add" ? edit.add[i]?.row : list === "change" ? edit.change[i]?.id : edit.remove[i]?.id;
    const n = ref === undefined ? undefined : number.get(ref);
    const what = field ? (headers[field as keyof EntryText] ?? field).toLowerCase() : "";
    const term = n === undefined ? "" : (rows[n - 1]?.term.trim() ?? "");
    names[e.field] = n === undefined ? `An entry you removed${what && `, ${what}`}` : `Row ${n}${term && ` (“${term}”)`}${what && `, ${what}`}`;
  }
  return names;
}

const uuidText = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** An entry's id in a refusal's detail, bare or after its quoted term ('"gato" (<id>)', as a newer server words it). */
const entryRef = new RegExp(`"(?:[^"\\\\]|\\\\.)*" \\((${uuidText})\\)|(${uuidText})`, "gi");

/**
 * text (a refusal's detail, "entry 5f0c… changed since the version given",
 * or 'entry "gato" (5f0c…) changed …')
 * with each entry's id as the teacher knows the entry: its term and row
 * (“perro” (row 2)), or for an entry no row holds any more, its saved term.
 */
export function namedEntries(text: string, saved: readonly Entry[], rows: readonly DraftRow[]): string {
  return text.replace(entryRef, (_, quoted: string | undefined, bare: string | undefined) => {
    const id = quoted ?? bare ?? "";
    const at = rows.findIndex((r) => r.id?.toLowerCase() === id.toLowerCase());
    const row = rows[at];
    const was = saved.find((e) => e.id.toLowerCase() === id.toLowerCase());
    const term = row?.term.trim() || was?.term;
    if (row) return term ? `“${term}” (row ${at + 1})` : `row ${at + 1}`;
    return was ? `“${was.term}” (which you removed)` : id;
  });
}

/** error with its problem's detail naming entries by term and row (namedEntries), or error itself. */
function withNamedEntries(error: unknown, saved: readonly Entry[], rows: readonly DraftRow[]): unknown {
  if (!(error instanceof ApiError) || !error.problem.detail) return error;
  return new ApiError(error.status, { ...error.problem, detail: namedEntries(error.problem.detail, saved, rows) });
}

/**
 * The deck editor: one row per entry (term, meaning, example, part of
 * speech), edited in place, with a blank row at the end to type the next
 * one. Enter moves to the row below; in the last row it adds a new one
 * (as Quizlet's editor does). A meaning or an example may have line
 * breaks: its cell is a textarea as tall as its lines, where Shift+Enter
 * breaks the line. Alt+↑ and Alt+↓ move a row, and each row has
 * buttons to move and delete it. Nothing is sent until "Save changes":
 * one EditDeckEntries with every new, changed and removed entry, each with
 * the version the editor read, then ReorderDeckEntries when the order
 * changed. A change made elsewhere since (another tab, a colleague) is
 * refused by the server (409): the editor says so and keeps the edits.
 * While a term is typed in a deck of English words, the library's
 * definitions of it are offered (LibraryLookup), one click to fill in.
 */
export function DeckEditor({ deck, entries }: { deck: DeckDetail; entries: Entry[] }) {
  const api = useApi();
  const qc = useQueryClient();
  const id = useId();
  const [base, setBase] = useState<readonly Entry[]>(entries);
  const [rows, setRows] = useState<readonly DraftRow[]>(() => draftOf(entries));
  const [active, setActive] = useState<string | null>(null);
  const focusNext = useRef<{ key: string; field: keyof EntryText } | null>(null);
  const table = useRef<HTMLTableElement>(null);
  const edit = editOf(base, rows);
  // The deck read again (a save, an import, another tab's change) replaces
  // the rows while they hold no unsaved edit; with one, they stay, and
  // saving them meets the server's version check.
  const [seen, setSeen] = useState(entries);
  if (entries !== seen) {
    setSeen(entries);
    if (isEmpty(edit)) {
      setBase(entries);
      setRows(draftOf(entries));
    }
  }
  const changed = edit.add.length + edit.change.length + edit.remove.length;

  useEffect(() => {
    const f = focusNext.current;
    if (!f) return;
    focusNext.current = null;
    table.current?.querySelector<HTMLElement>(`[data-row="${f.key}"][data-field="${f.field}"]`)?.focus();
  });

  const reload = (fresh: readonly Entry[]) => {
    setBase(fresh);
    setRows(draftOf(fresh));
  };
  const save = useWrite({
    mutationFn: async (v: { key: string; edit: Edit }) => {
      const result = unwrap(
        await api.POST("/EditDeckEntries", {
          params: idempotent(v.key),
          // An empty list is refused: a list with nothing to send is left out.
          body: {
            deck_id: deck.id,
            ...(v.edit.add.length > 0 && { add: v.edit.add.map((a) => a.entry) }),
            ...(v.edit.change.length > 0 && { change: v.edit.change }),
            ...(v.edit.remove.length > 0 && { remove: v.edit.remove }),
          },
        }),
      );
      const added = new Map(v.edit.add.map((a, i) => [a.row, result.added[i]?.id ?? ""]));
      const order = orderAfter(base, rows, added);
      if (order) {
        const now = await qc.fetchQuery({ ...deckQueries.detail(api, deck.id), staleTime: 0 });
        unwrap(
          await api.POST("/ReorderDeckEntries", {
            params: idempotent(`${v.key}-order`),
            body: { deck_id: deck.id, version: now.deck.version, order },
          }),
        );
      }
      return result;
    },
    onSuccess: async () => {
      await Promise.all([
        qc.invalidateQueries({ queryKey: deckQueries.all }),
        qc.invalidateQueries({ queryKey: classQueries.all }),
      ]);
      reload((await qc.fetchQuery(deckQueries.detail(api, deck.id))).entries);
    },
  });
  const conflict = save.error instanceof ApiError && (save.error.status === 409 || save.error.status === 412);
  const loadSaved = async () => {
    save.reset();
    reload((await qc.fetchQuery({ ...deckQueries.detail(api, deck.id), staleTime: 0 })).entries);
  };

  const set = (key: string, field: keyof EntryText, value: string) => {
    save.editing.onChange();
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, [field]: value } : r)));
  };
  const fill = (key: string, e: EntryText) => {
    setRows((rs) => rs.map((r) => (r.key === key ? { ...r, meaning: e.meaning, example: e.example, part_of_speech: e.part_of_speech } : r)));
    focusNext.current = { key, field: "meaning" };
  };
  const remove = (index: number) => {
    save.editing.onChange();
    setRows((rs) => {
      const next = rs.filter((_, i) => i !== index);
      const last = next[next.length - 1];
      return last && isBlank(last) && last.id === undefined ? next : [...next, blankRow()];
    });
  };
  const moveRow = (index: number, delta: number, field: keyof EntryText | null) => {
    const row = rows[index];
    if (!row) return;
    setRows((rs) => move(rs, index, delta));
    if (field) focusNext.current = { key: row.key, field };
  };
  const onKey = (e: KeyboardEvent<HTMLElement>, index: number, field: keyof EntryText) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (changed > 0) save.submit({ edit });
      return;
    }
    if (e.altKey && (e.key === "ArrowUp" || e.key === "ArrowDown")) {
      e.preventDefault();
      moveRow(index, e.key === "ArrowUp" ? -1 : 1, field);
      return;
    }
    if (e.key !== "Enter" || e.shiftKey) return;
    e.preventDefault();
    const below = rows[index + 1];
    if (below) {
      focusNext.current = { key: below.key, field };
      setActive(below.key);
      table.current?.querySelector<HTMLElement>(`[data-row="${below.key}"][data-field="${field}"]`)?.focus();
      return;
    }
    const current = rows[index];
    if (!current || isBlank(current)) return;
    const next = blankRow();
    setRows((rs) => [...rs, next]);
    focusNext.current = { key: next.key, field: "term" };
  };

  const invalid = new Set(
    save.error instanceof ApiError ? Object.keys(rowFields(edit, rows, save.error.problem)) : [],
  );
  const cellInvalid = (r: DraftRow, field: keyof EntryText) => {
    const i = r.id === undefined ? edit.add.findIndex((a) => a.row === r.key) : edit.change.findIndex((c) => c.id === r.id);
    return i >= 0 && invalid.has(`${r.id === undefined ? "add" : "change"}[${i}].${field}`);
  };

  return (
    <section aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Words</h2>
      <p className="muted small" id={`${id}-keys`}>
        Type in place. Enter goes to the row below, and adds a row after the last; Shift+Enter starts a new line in a meaning or an example; Alt+↑ and Alt+↓ move a row; Ctrl+Enter saves. Learners who
        have this deck get a new word as a new card at once; a fixed meaning shows on their existing card.
      </p>
      {save.isError && (
        <ProblemAlert
          error={withNamedEntries(save.error, base, rows)}
          context={conflict ? "Not saved: this deck changed since you opened it" : "Not saved"}
          fields={save.error instanceof ApiError ? rowFields(edit, rows, save.error.problem) : undefined}
        />
      )}
      {conflict && (
        <p>
          Someone (you in another tab, or a colleague) saved a change to a word you edited. Your edits are still below, unsaved.{" "}
          <button type="button" onClick={() => void loadSaved()}>
            Load the saved words (drops your unsaved edits)
          </button>
        </p>
      )}
      {save.isSuccess && !changed && (
        <p role="status" className="ok-note">
          Saved: {save.data.added.length} added, {save.data.changed.length} changed, {save.data.removed.length} removed
          {save.data.cards_created > 0 && `; ${save.data.cards_created} new cards for the learners who have this deck`}.
        </p>
      )}
      <TableWrap label="Entries of the deck">
        <table className="editor" ref={table} aria-describedby={`${id}-keys`}>
          <thead>
            <tr>
              <th scope="col">#</th>
              {fields.map((f) => (
                <th key={f} scope="col">
                  {headers[f]}
                </th>
              ))}
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r, i) => {
              const n = i + 1;
              const dirty = r.id === undefined ? !isBlank(r) : edit.change.some((c) => c.id === r.id);
              return (
                <tr key={r.key} className={dirty ? "dirty" : undefined} onFocus={() => setActive(r.key)}>
                  <th scope="row">{n}</th>
                  {fields.map((f) => (
                    <td key={f}>
                      <EntryCell
                        field={f}
                        rowKey={r.key}
                        label={`Row ${n}, ${headers[f].toLowerCase()}`}
                        invalid={cellInvalid(r, f)}
                        lang={f === "part_of_speech" ? undefined : f === "meaning" ? deck.meaning_language : deck.term_language}
                        list={f === "part_of_speech" ? `${id}-pos` : undefined}
                        value={r[f]}
                        onChange={(value) => set(r.key, f, value)}
                        onKeyDown={(e) => onKey(e, i, f)}
                      />
                      {f === "term" && active === r.key && r.meaning.trim() === "" && deck.term_language.split("-")[0] === "en" && (
                        <Suggestions term={r.term} onPick={(e) => fill(r.key, e)} />
                      )}
                    </td>
                  ))}
                  <td className="row-actions">
                    <button type="button" aria-label={`Move row ${n} up`} disabled={i === 0} onClick={() => moveRow(i, -1, null)}>
                      ↑
                    </button>
                    <button type="button" aria-label={`Move row ${n} down`} disabled={i === rows.length - 1} onClick={() => moveRow(i, 1, null)}>
                      ↓
                    </button>
                    <button type="button" aria-label={`Delete row ${n}${r.term && ` (${r.term})`}`} onClick={() => remove(i)}>
                      Delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </TableWrap>
      <datalist id={`${id}-pos`}>
        {partsOfSpeech.map((p) => (
          <option key={p} value={p} />
        ))}
      </datalist>
      <p className="actions">
        <button
          type="button"
          onClick={() => {
            const next = blankRow();
            setRows((rs) => [...rs, next]);
            focusNext.current = { key: next.key, field: "term" };
          }}
        >
          Add a row
        </button>
        <button type="button" className="primary" disabled={changed === 0 || save.isPending} onClick={() => save.submit({ edit })}>
          {save.isPending ? "Saving…" : changed === 0 ? "No unsaved changes" : `Save changes (${changed})`}
        </button>
      </p>
    </section>
  );
}

/** How long typing must pause before the library is asked (ms). */
const lookupPause = 300;

/** The library's entries for term (LibraryLookup), asked once typing pauses: each a button that fills in its meaning, example and part of speech. */
function Suggestions({ term, onPick }: { term: string; onPick: (e: EntryText) => void }) {
  const api = useApi();
  const [asked, setAsked] = useState("");
  useEffect(() => {
    const t = setTimeout(() => setAsked(term.trim()), lookupPause);
    return () => clearTimeout(t);
  }, [term]);
  const found = useQuery(libraryQueries.lookup(api, asked));
  const list = found.data ?? [];
  if (asked === "" || asked !== term.trim() || list.length === 0) return null;
  return (
    <ul className="suggestions" aria-label={`The library's meanings of ${asked}`}>
      {list.map((e, i) => (
        <li key={i}>
          <button type="button" onClick={() => onPick(e)}>
            Use: {e.part_of_speech && `(${e.part_of_speech}) `}
            {e.meaning}
          </button>
        </li>
      ))}
    </ul>
  );
}
