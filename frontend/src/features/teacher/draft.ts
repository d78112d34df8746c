/** The four texts of a deck's entry, as the editor's cells hold them. */
export interface EntryText {
  term: string;
  meaning: string;
  example: string;
  part_of_speech: string;
}

/** A saved entry as the editor needs it: its id and version (GetDeck's entries). */
export interface SavedEntry extends EntryText {
  id: string;
  version: number;
}

/**
 * One row of the deck editor: a saved entry (id and version as read) with
 * the teacher's unsaved text, or a new row (no id). key is the row's React
 * key, stable while it moves.
 */
export interface DraftRow extends EntryText {
  key: string;
  id?: string;
  version?: number;
}

/** The fields of an entry, in the editor's column order. */
export const fields = ["term", "meaning", "example", "part_of_speech"] as const satisfies readonly (keyof EntryText)[];

let rows = 0;

/** A new, empty row. */
export function blankRow(): DraftRow {
  return { key: `new-${++rows}`, term: "", meaning: "", example: "", part_of_speech: "" };
}

/** Whether a row holds no text at all (a new row left blank is not saved). */
export function isBlank(r: EntryText): boolean {
  return fields.every((f) => r[f].trim() === "");
}

/** The editor's rows for a deck's saved entries (in their order), and one blank row to type into. */
export function draftOf(entries: readonly SavedEntry[]): DraftRow[] {
  return [...entries.map((e) => ({ key: e.id, ...pick(e), id: e.id, version: e.version })), blankRow()];
}

function pick(e: EntryText): EntryText {
  return { term: e.term, meaning: e.meaning, example: e.example, part_of_speech: e.part_of_speech };
}

/** A row's texts as they are sent: trimmed (the server trims too, and compares what it keeps). */
export function textOf(r: EntryText): EntryText {
  return { term: r.term.trim(), meaning: r.meaning.trim(), example: r.example.trim(), part_of_speech: r.part_of_speech.trim() };
}

/** What saving the rows changes in the saved entries: one request's worth, each change with the version it was made on. */
export interface Edit {
  add: { row: string; entry: EntryText }[];
  change: (EntryText & { id: string; version: number })[];
  remove: { id: string; version: number }[];
}

/**
 * The edit that turns saved into rows: the new rows that are not blank (in
 * their order), the saved entries whose text differs, and the saved entries
 * no row holds any more. Each change and removal carries the version the
 * editor read, so the server refuses it (409) when the entry changed since.
 */
export function editOf(saved: readonly SavedEntry[], rows: readonly DraftRow[]): Edit {
  const byId = new Map(saved.map((e) => [e.id, e]));
  const kept = new Set<string>();
  const edit: Edit = { add: [], change: [], remove: [] };
  for (const r of rows) {
    if (r.id === undefined) {
      if (!isBlank(r)) edit.add.push({ row: r.key, entry: textOf(r) });
      continue;
    }
    kept.add(r.id);
    const e = byId.get(r.id);
    const text = textOf(r);
    if (e && fields.some((f) => text[f] !== e[f])) edit.change.push({ id: r.id, version: r.version ?? e.version, ...text });
  }
  for (const e of saved) if (!kept.has(e.id)) edit.remove.push({ id: e.id, version: e.version });
  return edit;
}

/** Whether an edit changes nothing. */
export function isEmpty(edit: Edit): boolean {
  return edit.add.length === 0 && edit.change.length === 0 && edit.remove.length === 0;
}

/**
 * The entries' order after a save, as ids: each row's saved id, or for a
 * new row the id the save gave it (added: row key to id); blank rows are
 * left out. Undefined when it is the order the deck already has (saved's,
 * with the added entries at the end, where the server puts them).
 */
export function orderAfter(saved: readonly SavedEntry[], rows: readonly DraftRow[], added: ReadonlyMap<string, string>): string[] | undefined {
  const order = rows.flatMap((r) => {
    const id = r.id ?? added.get(r.key);
    return id === undefined || (r.id === undefined && isBlank(r)) ? [] : [id];
  });
  const kept = new Set(order);
  const natural = [...saved.map((e) => e.id).filter((id) => kept.has(id)), ...added.values()];
  return order.length === natural.length && order.every((id, i) => id === natural[i]) ? undefined : order;
}

/** rows with the row at index moved by delta places (-1 up, 1 down), or rows itself when it cannot move. */
export function move<T>(list: readonly T[], index: number, delta: number): readonly T[] {
  const to = index + delta;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return list;
  const next = [...list];
  const [row] = next.splice(index, 1);
  next.splice(to, 0, row as T);
  return next;
}
