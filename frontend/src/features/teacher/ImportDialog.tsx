import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useId, useState, type ChangeEvent } from "react";
import { useApi } from "../../api/ApiContext";
import { unwrap } from "../../api/client";
import { idempotent, newKey, useWrite } from "../../api/mutation";
import { classQueries, deckQueries } from "../../api/queries";
import type { components } from "../../api/schema";
import { DataTable } from "../../components/DataTable";
import { ProblemAlert } from "../../components/ProblemAlert";

type Deck = components["schemas"]["DeckDetails"];
type Preview = components["schemas"]["ImportPreview"];
type Row = components["schemas"]["ImportRow"];
type Column = components["schemas"]["ImportColumn"];
type Field = Column["field"];
type Input = components["requestBodies"]["ImportInput"]["content"]["application/json"];

/** The separators a teacher may choose (ImportInput's separator); "" detects it. */
export const separators: { value: string; label: string }[] = [
  { value: "", label: "Detect" },
  { value: "\t", label: "Tab" },
  { value: ",", label: "Comma (,)" },
  { value: ";", label: "Semicolon (;)" },
  { value: " - ", label: "Dash ( - )" },
  { value: "|", label: "Pipe (|)" },
];

const formats: { value: "" | NonNullable<Input["format"]>; label: string }[] = [
  { value: "", label: "Detect" },
  { value: "list", label: "A list: one word per line" },
  { value: "table", label: "A table (CSV or TSV) with a header row" },
  { value: "anki", label: "Anki's plain-text export" },
];

/** The fields a column may be read as (ImportColumn's field), as the mapping's select names them. */
export const fields: { value: Field; label: string }[] = [
  { value: "term", label: "term" },
  { value: "meaning", label: "meaning" },
  { value: "example", label: "example" },
  { value: "part_of_speech", label: "part of speech" },
  { value: "none", label: "not read" },
];

/**
 * The largest list or file an import reads (bytes): pkg/deckimport's
 * MaxInputBytes, 4 MiB. A larger file is refused here, before it is read
 * or sent.
 */
export const maxImportBytes = 4 << 20;

/** "The file is 4.2 MiB; a list or file to import may be at most 4 MiB", for what ("file" or "list") of size bytes. */
export function tooLargeText(what: string, size: number): string {
  const mib = Math.ceil((size / (1 << 20)) * 10) / 10;
  return `The ${what} is ${mib} MiB; a list or file to import may be at most ${maxImportBytes / (1 << 20)} MiB`;
}

/** ImportInput's most columns (its maxProperties). */
const maxMapped = 20;

/**
 * The mapping (ImportInput's columns) that reads the preview's columns as
 * they are read now but column `at` as `field`; a column that had `field`
 * gets column `at`'s field instead (the two swap), since the server reads
 * a field from one column only. Columns without a header name (an Anki
 * file without #columns) cannot be named and are left out; over the
 * request's 20, those not read are left out first.
 */
export function remap(columns: Column[], at: number, field: Field): Record<string, Field> {
  const old = columns[at]?.field ?? "none";
  const next = columns.map((c, i) => ({ name: c.name, field: i === at ? field : field !== "none" && c.field === field ? old : c.field }));
  const named = next.filter((c) => c.name !== "");
  const kept = named.length <= maxMapped ? named : named.filter((c, i) => c.field !== "none" || i === at).slice(0, maxMapped);
  return Object.fromEntries(kept.map((c) => [c.name, c.field]));
}

/**
 * Whether column `at` may be read as `field`: an import needs a term and a
 * meaning column, so the one read as the term (or the meaning) may become
 * another field only by swapping with the named column that has it.
 */
export function mayMap(columns: Column[], at: number, field: Field): boolean {
  const old = columns[at]?.field;
  if (old !== "term" && old !== "meaning") return true;
  return field === old || columns.some((c, i) => i !== at && c.name !== "" && field !== "none" && c.field === field);
}

/** A separator as the preview names it. */
export function separatorName(s: string): string {
  return separators.find((x) => x.value === s && x.value !== "")?.label ?? `“${s}”`;
}

/** A file's bytes as base64 (ImportInput's file), read by the browser. */
function base64Of(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      // A data: URL (readAsDataURL): "data:<type>;base64,<bytes>".
      const url = typeof reader.result === "string" ? reader.result : "";
      resolve(url.slice(url.indexOf(",") + 1));
    };
    reader.onerror = () => reject(reader.error ?? new Error(`could not read ${file.name}`));
    reader.readAsDataURL(file);
  });
}

/**
 * How many entries an import of rows saves (as pkg/deckimport's Plan): one
 * per term, its first row's place; a term the deck has only with "update"
 * (which changes the deck's entry). Refused lines are not rows: an import
 * leaves them out or saves nothing.
 */
export function savedCount(rows: readonly Row[], duplicates: "skip" | "update"): number {
  return rows.filter((r) => r.same_as === 0 && (!r.in_deck || duplicates === "update")).length;
}

/** What a row of the preview is beside its text: new, a duplicate of an earlier line, or a term the deck has. */
function note(r: Row): string {
  if (r.in_deck) return "already in the deck";
  if (r.same_as > 0) return `same term as line ${r.same_as}`;
  return "new";
}

/**
 * The paste/import panel of a deck of the teacher's own: a pasted list or
 * a chosen file (a list, CSV or TSV with a header row, Anki's text
 * export), its separator and format detected or chosen. "Preview" asks
 * PreviewDeckImport, which saves nothing, and shows every entry as it will
 * be saved and every refused line with its number and reason; then
 * "Import" (ImportDeckEntries) saves what was previewed. Import stays off
 * while a line is refused, unless the teacher chooses to leave refused
 * lines out, and while the input changed since its preview. Duplicates
 * (twice in the input, or in the deck already) are skipped or update the
 * deck's entry, as chosen. A table's or an Anki input's columns are shown
 * with the field each is read as, and a select per named column maps it
 * otherwise (ImportInput's columns): a change previews again, and Import
 * sends the same mapping. Everything is shown as text: markup in a
 * meaning is its characters, never HTML.
 */
export function ImportDialog({ deck }: { deck: Deck }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" aria-expanded={open} aria-controls={`${id}-panel`} onClick={() => setOpen((o) => !o)}>
        {open ? "Close the import" : "Paste or import a list"}
      </button>
      {open && <ImportPanel id={`${id}-panel`} deck={deck} onDone={() => setOpen(false)} />}
    </>
  );
}

function ImportPanel({ id, deck, onDone }: { id: string; deck: Deck; onDone: () => void }) {
  const api = useApi();
  const qc = useQueryClient();
  const [text, setText] = useState("");
  const [file, setFile] = useState<{ name: string; bytes: string } | null>(null);
  const [fileError, setFileError] = useState<unknown>(null);
  const [separator, setSeparator] = useState("");
  const [format, setFormat] = useState<(typeof formats)[number]["value"]>("");
  const [duplicates, setDuplicates] = useState<"skip" | "update">("skip");
  const [leaveOut, setLeaveOut] = useState(false);
  const [columns, setColumns] = useState<Record<string, Field> | null>(null);

  const inputOf = (mapping: typeof columns): Input => ({
    deck_id: deck.id,
    ...(file ? { file: file.bytes } : { text }),
    ...(separator && { separator }),
    ...(format && { format }),
    ...(mapping && { columns: mapping }),
  });
  const input = inputOf(columns);
  const textBytes = file ? 0 : new TextEncoder().encode(text).length;
  const inputKey = JSON.stringify(input);
  const preview = useMutation({
    mutationFn: async (v: { input: Input; of: string }) => ({
      of: v.of,
      preview: unwrap(await api.POST("/PreviewDeckImport", { params: idempotent(newKey()), body: v.input })),
    }),
  });
  const shown = preview.data;
  const current = shown !== undefined && shown.of === inputKey;
  const save = useWrite({
    mutationFn: async (v: { key: string; input: Input; duplicates: "skip" | "update"; leave_out_refused: boolean }) =>
      unwrap(
        await api.POST("/ImportDeckEntries", {
          params: idempotent(v.key),
          body: { ...v.input, duplicates: v.duplicates, leave_out_refused: v.leave_out_refused },
        }),
      ),
    onSuccess: async () => {
      await Promise.all([
        qc.invalidateQueries({ queryKey: deckQueries.all }),
        qc.invalidateQueries({ queryKey: classQueries.all }),
      ]);
    },
  });
  const edited = () => {
    save.editing.onChange();
    if (preview.isError) preview.reset();
  };
  const chooseFile = async (e: ChangeEvent<HTMLInputElement>) => {
    edited();
    setFileError(null);
    const f = e.target.files?.[0];
    if (!f) return setFile(null);
    if (f.size > maxImportBytes) {
      setFile(null);
      setFileError(tooLargeText("file", f.size));
      return;
    }
    try {
      setFile({ name: f.name, bytes: await base64Of(f) });
    } catch (err) {
      setFileError(err);
    }
  };

  /** Reads column `at` of the preview as `field`, and previews again with that mapping (which Import then sends too). */
  const mapColumn = (from: Preview, at: number, field: Field) => {
    edited();
    const mapping = remap(from.columns, at, field);
    setColumns(mapping);
    const next = inputOf(mapping);
    preview.mutate({ input: next, of: JSON.stringify(next) });
  };

  // While a new mapping is previewed, the preview it changes stays (with its selects, and the focus in one).
  const remapping = preview.isPending && preview.variables.of === inputKey;
  const p = current || remapping ? shown?.preview : undefined;
  const refused = p?.refused.length ?? 0;
  const dupes = p?.rows.filter((r) => r.in_deck || r.same_as > 0).length ?? 0;
  const saved = p ? savedCount(p.rows, duplicates) : 0;
  const nothing = p && saved === 0 ? (p.rows.length === 0 ? "every line is refused" : "every term is in the deck already") : null;
  const blocked = !p || remapping || (refused > 0 && !leaveOut) || saved === 0;
  return (
    <section id={id} className="assign import" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Paste or import a list</h2>
      <p className="muted small" id={`${id}-help`}>
        One word per line with its meaning after a tab, a comma, a semicolon or “ - ” (as Quizlet exports it); or a CSV or TSV file whose first
        row names the columns (term, meaning, example, part_of_speech); or Anki's “Notes in Plain Text” export. Nothing is saved until you
        import.
      </p>
      <label htmlFor={`${id}-text`}>Paste your list</label>
      <textarea
        id={`${id}-text`}
        rows={8}
        aria-describedby={`${id}-help`}
        value={text}
        disabled={file !== null}
        onChange={(e) => {
          edited();
          setText(e.target.value);
        }}
      />
      <label htmlFor={`${id}-file`}>Or choose a file (CSV, TSV, Anki .txt)</label>
      <input id={`${id}-file`} type="file" accept=".csv,.tsv,.txt,text/csv,text/tab-separated-values,text/plain" onChange={(e) => void chooseFile(e)} />
      {file && (
        <p className="small">
          {file.name}{" "}
          <button
            type="button"
            onClick={() => {
              edited();
              setFile(null);
            }}
          >
            Use the pasted text instead
          </button>
        </p>
      )}
      {typeof fileError === "string" ? (
        <p role="alert" className="alert">
          {fileError}.
        </p>
      ) : (
        fileError !== null && <ProblemAlert error={fileError} context="The file could not be read" />
      )}
      <label htmlFor={`${id}-sep`}>Separator</label>
      <select
        id={`${id}-sep`}
        value={separator}
        onChange={(e) => {
          edited();
          setSeparator(e.target.value);
        }}
      >
        {separators.map((s) => (
          <option key={s.label} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
      <label htmlFor={`${id}-format`}>Format</label>
      <select
        id={`${id}-format`}
        value={format}
        onChange={(e) => {
          edited();
          setFormat(e.target.value as typeof format);
        }}
      >
        {formats.map((f) => (
          <option key={f.value} value={f.value}>
            {f.label}
          </option>
        ))}
      </select>
      <p className="actions">
        <button
          type="button"
          className="primary"
          disabled={preview.isPending || (!file && text.trim() === "") || textBytes > maxImportBytes}
          onClick={() => preview.mutate({ input, of: inputKey })}
        >
          {preview.isPending ? "Reading…" : "Preview"}
        </button>
      </p>
      {textBytes > maxImportBytes && (
        <p role="alert" className="alert">
          {tooLargeText("list", textBytes)}.
        </p>
      )}
      {preview.isError && <ProblemAlert error={preview.error} context="Not read" />}
      {shown && !current && !remapping && <p className="muted">The list changed since this preview: preview it again before importing.</p>}
      {p && (
        <PreviewTables
          preview={p}
          separator={separator}
          format={format}
          id={id}
          mapping={{ busy: preview.isPending, onChange: (at, field) => mapColumn(p, at, field) }}
        />
      )}
      {p && dupes > 0 && (
        <fieldset>
          <legend>
            {dupes} {dupes === 1 ? "line repeats a term" : "lines repeat a term"} (in the list, or already in the deck)
          </legend>
          <label>
            <input type="radio" name={`${id}-dupes`} checked={duplicates === "skip"} onChange={() => setDuplicates("skip")} /> Skip them: keep
            the first line's, and the deck's own entry, as they are
          </label>
          <label>
            <input type="radio" name={`${id}-dupes`} checked={duplicates === "update"} onChange={() => setDuplicates("update")} /> Update: the
            last line's meaning, example and part of speech replace the entry's (its learners keep their cards)
          </label>
        </fieldset>
      )}
      {p && refused > 0 && p.rows.length > 0 && (
        <label className="check">
          <input type="checkbox" checked={leaveOut} onChange={(e) => setLeaveOut(e.target.checked)} /> Leave the {refused} refused{" "}
          {refused === 1 ? "line" : "lines"} out and import the rest
        </label>
      )}
      {p && refused > 0 && !leaveOut && nothing === null && (
        <p className="muted">Nothing is imported while a line is refused: fix the lines above in your list and preview again, or leave them out.</p>
      )}
      {nothing !== null && (
        <p className="muted" id={`${id}-nothing`}>
          Nothing to import: {nothing}.{" "}
          {p?.rows.length === 0
            ? "Fix the lines above in your list and preview again."
            : "Choose “Update” above to replace their meanings, or add words the deck does not have."}
        </p>
      )}
      {save.isError && <ProblemAlert error={save.error} context="Not imported" />}
      {save.isSuccess && (
        <p role="status" className="ok-note">
          Imported: {save.data.result.added.length} added, {save.data.result.changed.length} updated
          {save.data.left.length > 0 && `; lines not saved: ${save.data.left.join(", ")}`}
          {save.data.result.cards_created > 0 && `; ${save.data.result.cards_created} new cards for the learners who have this deck`}.{" "}
          <button type="button" onClick={onDone}>
            Close
          </button>
        </p>
      )}
      {p && !save.isSuccess && (
        <p className="actions">
          <button
            type="button"
            className="primary"
            disabled={blocked || save.isPending}
            aria-describedby={nothing !== null ? `${id}-nothing` : undefined}
            onClick={() => save.submit({ input, duplicates, leave_out_refused: leaveOut })}
          >
            {save.isPending ? "Importing…" : `Import ${saved} ${saved === 1 ? "entry" : "entries"}`}
          </button>
        </p>
      )}
    </section>
  );
}

/** The preview: how the input was read, its refused lines (line, field, reason) and every entry as it will be saved. */
function PreviewTables({
  preview: p,
  separator,
  format,
  id,
  mapping,
}: {
  preview: Preview;
  separator: string;
  format: string;
  id: string;
  mapping: { busy: boolean; onChange: (at: number, field: Field) => void };
}) {
  const how = [
    `Read as ${formats.find((f) => f.value === p.format)?.label.toLowerCase() ?? p.format}${format ? "" : " (detected)"}`,
    p.separator && `separated by ${separatorName(p.separator).toLowerCase()}${separator ? "" : " (detected)"}`,
    p.html && "HTML reduced to text",
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <>
      <p role="status" id={`${id}-summary`}>
        {how}. {p.rows.length} {p.rows.length === 1 ? "entry" : "entries"}, {p.refused.length} refused{" "}
        {p.refused.length === 1 ? "line" : "lines"}.
      </p>
      {p.format === "list" && (
        <p className="muted small">
          If your first row names the columns (such as “Wort, Bedeutung”), choose the format “A table (CSV or TSV) with a header row” and preview
          again: you can then say which column is the term and which the meaning.
        </p>
      )}
      {p.columns.length > 0 && <Columns columns={p.columns} id={id} {...mapping} />}
      {p.ambiguous && (
        <p className="muted">Another separator splits as many lines: if the entries below look wrong, choose the separator and preview again.</p>
      )}
      {p.refused.length > 0 && (
        <DataTable
          label="Refused lines"
          caption="Refused lines"
          rows={p.refused}
          rowKey={(r) => `${r.line}-${r.field}`}
          columns={[
            { header: "Line", rowHeader: true, cell: (r) => r.line },
            { header: "Field", cell: (r) => (r.field === "line" ? "the whole line" : r.field.replaceAll("_", " ")) },
            { header: "Reason", cell: (r) => r.reason },
          ]}
        />
      )}
      {p.rows.length > 0 && (
        <DataTable
          label="Entries as they will be saved"
          caption="Entries as they will be saved"
          rows={p.rows}
          rowKey={(r) => r.line}
          columns={[
            { header: "Line", rowHeader: true, cell: (r) => r.line },
            { header: "Term", cell: (r) => r.term },
            { header: "Meaning", cell: (r) => r.meaning, className: "lines" },
            { header: "Example", cell: (r) => r.example, className: "lines" },
            { header: "Part of speech", cell: (r) => r.part_of_speech },
            { header: "Note", cell: note },
          ]}
        />
      )}
    </>
  );
}

/**
 * The columns of a table or an Anki input: each one's header and the field
 * it is read as, with a select to read it as another (or not at all);
 * a change previews again with the mapping. A column the header does not
 * name cannot be mapped (Anki's #columns line names them).
 */
function Columns({ columns, id, busy, onChange }: { columns: Column[]; id: string; busy: boolean; onChange: (at: number, field: Field) => void }) {
  return (
    <fieldset className="columns">
      <legend>Columns: which field each one is read as</legend>
      <p className="muted small">
        An import needs a term and a meaning column: to read the term column as something else, give “term” to another column (the two swap).
      </p>
      <ul className="plain">
        {columns.map((c, i) => (
          <li key={`${i}-${c.name}`}>
            {c.name === "" ? (
              <span>
                Column {i + 1} (no name) is read as {fields.find((f) => f.value === c.field)?.label ?? c.field}
              </span>
            ) : (
              <>
                <label htmlFor={`${id}-col-${i}`}>Column “{c.name}” is read as</label>{" "}
                <select id={`${id}-col-${i}`} value={c.field} disabled={busy} onChange={(e) => onChange(i, e.target.value as Field)}>
                  {fields.map((f) => (
                    <option key={f.value} value={f.value} disabled={!mayMap(columns, i, f.value)}>
                      {f.label}
                    </option>
                  ))}
                </select>
              </>
            )}
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
