import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { details, edited, entry, ownId, problem, teacher } from "./fixtures";
import { ImportDialog, mayMap, maxImportBytes, remap } from "./ImportDialog";

type Preview = components["schemas"]["ImportPreview"];

const row = (line: number, term: string, meaning: string, extra: Partial<components["schemas"]["ImportRow"]> = {}) =>
  ({ line, term, meaning, example: "", part_of_speech: "", same_as: 0, in_deck: false, ...extra }) satisfies components["schemas"]["ImportRow"];

const preview = (extra: Partial<Preview> = {}) =>
  ({
    format: "list",
    separator: "\t",
    ambiguous: false,
    html: false,
    title: "",
    columns: [],
    rows: [row(1, "gato", "cat"), row(3, "perro", "<script>alert(1)</script> dog")],
    refused: [{ line: 2, field: "term", reason: "is empty" }],
    ...extra,
  }) satisfies Preview;

async function openDialog() {
  const user = userEvent.setup();
  renderApp(<ImportDialog deck={details()} />, { user: teacher });
  await user.click(screen.getByRole("button", { name: "Paste or import a list" }));
  return user;
}

/** Pastes text into the list (a tab typed would move the focus). */
async function paste(user: ReturnType<typeof userEvent.setup>, text: string) {
  await user.click(screen.getByRole("textbox", { name: "Paste your list" }));
  await user.paste(text);
}

describe("the paste/import dialog", () => {
  it("previews every entry and every refused line with its number and reason, and imports nothing while a line is refused", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/PreviewDeckImport") return json(preview());
      if (req.path === "/ImportDeckEntries")
        return json({ result: edited({ added: [entry(4, "gato", "cat"), entry(5, "perro", "dog")] }), left: [2] } satisfies components["schemas"]["ImportResult"]);
      return json(problem(404, "Not found"), 404);
    });
    const user = await openDialog();
    await paste(user, "gato\tcat\n\tnothing\nperro\tdog");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByText(/Read as a list: one word per line \(detected\), separated by tab \(detected\)\. 2 entries, 1 refused line/)).toBeInTheDocument();
    const refused = screen.getByRole("region", { name: "Refused lines" });
    expect(within(refused).getByRole("row", { name: "2 term is empty" })).toBeInTheDocument();
    const saved = screen.getByRole("region", { name: "Entries as they will be saved" });
    // Markup is text: its characters are shown, no element is made of them.
    expect(saved).toHaveTextContent("<script>alert(1)</script> dog");
    expect(saved.querySelector("script")).toBeNull();
    const importButton = screen.getByRole("button", { name: "Import 2 entries" });
    expect(importButton).toBeDisabled();
    expect(server.seen.find((r) => r.path === "/PreviewDeckImport")?.body).toEqual({ deck_id: ownId, text: "gato\tcat\n\tnothing\nperro\tdog" });
    await user.click(screen.getByRole("checkbox", { name: /Leave the 1 refused line out/ }));
    await user.click(importButton);
    await screen.findByText(/Imported: 2 added, 0 updated; lines not saved: 2/);
    expect(server.seen.find((r) => r.path === "/ImportDeckEntries")?.body).toEqual({
      deck_id: ownId,
      text: "gato\tcat\n\tnothing\nperro\tdog",
      duplicates: "skip",
      leave_out_refused: true,
    });
  });

  it("asks for a new preview once the list is fixed, and sends the separator the teacher chose", async () => {
    let previews = 0;
    const server = fakeServer((req) => {
      if (req.path === "/PreviewDeckImport") {
        previews++;
        return json(previews === 1 ? preview() : preview({ separator: ",", refused: [], rows: [row(1, "gato", "cat")] }));
      }
      return json(problem(404, "Not found"), 404);
    });
    const user = await openDialog();
    const text = screen.getByRole("textbox", { name: "Paste your list" });
    await paste(user, "gato\tcat\n\tnothing");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    await screen.findByRole("region", { name: "Refused lines" });
    await user.clear(text);
    await paste(user, "gato,cat");
    expect(screen.getByText(/The list changed since this preview/)).toBeInTheDocument();
    expect(screen.queryByRole("button", { name: /^Import/ })).not.toBeInTheDocument();
    await user.selectOptions(screen.getByRole("combobox", { name: "Separator" }), "Comma (,)");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByText(/separated by comma \(,\)\. 1 entry, 0 refused lines/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Import 1 entry" })).toBeEnabled();
    expect(server.seen.filter((r) => r.path === "/PreviewDeckImport").at(-1)?.body).toEqual({ deck_id: ownId, text: "gato,cat", separator: "," });
  });

  it("shows duplicates and lets the teacher update the deck's entries instead of skipping them", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/PreviewDeckImport")
        return json(preview({ refused: [], rows: [row(1, "gato", "a cat", { in_deck: true }), row(2, "Gato", "the cat", { same_as: 1 })] }));
      if (req.path === "/ImportDeckEntries")
        return json({ result: edited({ changed: [entry(1, "gato", "the cat", { version: 2 })] }), left: [1] } satisfies components["schemas"]["ImportResult"]);
      return json(problem(404, "Not found"), 404);
    });
    const user = await openDialog();
    await paste(user, "gato\ta cat\nGato\tthe cat");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    const saved = await screen.findByRole("region", { name: "Entries as they will be saved" });
    expect(saved).toHaveTextContent("already in the deck");
    expect(saved).toHaveTextContent("same term as line 1");
    // Skipped, the deck's entry stays and the second line repeats it: nothing to save.
    expect(screen.getByRole("button", { name: "Import 0 entries" })).toBeDisabled();
    expect(screen.getByRole("button", { name: "Import 0 entries" })).toHaveAccessibleDescription(/Nothing to import: every term is in the deck already/);
    await user.click(screen.getByRole("radio", { name: /Update/ }));
    // Updated, the two lines are one entry: the deck's, changed.
    await user.click(screen.getByRole("button", { name: "Import 1 entry" }));
    await screen.findByText(/Imported: 0 added, 1 updated/);
    await waitFor(() => expect(server.seen.find((r) => r.path === "/ImportDeckEntries")?.body).toMatchObject({ duplicates: "update", leave_out_refused: false }));
  });

  it("shows a meaning's and an example's line breaks in the preview", async () => {
    fakeServer(() => json(preview({ refused: [], rows: [row(1, "dificultad", "difficulty,\nsetbacks", { example: "una\ndificultad" })] })));
    const user = await openDialog();
    await paste(user, "x");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    const saved = await screen.findByRole("region", { name: "Entries as they will be saved" });
    const meaning = within(saved).getByRole("cell", { name: /difficulty/ });
    expect(meaning.textContent).toBe("difficulty,\nsetbacks");
    expect(meaning).toHaveClass("lines");
    expect(within(saved).getByRole("cell", { name: /una/ })).toHaveClass("lines");
  });

  it("counts the entries the import saves: a skipped duplicate and the refused lines left out are not", async () => {
    const rows = [
      row(1, "gato", "cat"),
      row(2, "perro", "dog"),
      row(3, "Gato", "the cat", { same_as: 1 }),
      row(4, "casa", "house", { in_deck: true }),
      row(5, "sol", "sun"),
      row(6, "luna", "moon"),
    ];
    fakeServer(() => json(preview({ rows, refused: [{ line: 7, field: "meaning", reason: "is empty" }] })));
    const user = await openDialog();
    await paste(user, "x");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    await screen.findByRole("region", { name: "Entries as they will be saved" });
    await user.click(screen.getByRole("checkbox", { name: /Leave the 1 refused line out/ }));
    // Skip: gato, perro, sol, luna (Gato repeats gato, casa is in the deck).
    expect(screen.getByRole("button", { name: "Import 4 entries" })).toBeEnabled();
    await user.click(screen.getByRole("radio", { name: /Update/ }));
    // Update: casa's entry is changed too; Gato is still gato's entry.
    expect(screen.getByRole("button", { name: "Import 5 entries" })).toBeEnabled();
  });

  it("offers no import when every line is refused, and says why", async () => {
    fakeServer(() => json(preview({ rows: [], refused: [{ line: 1, field: "meaning", reason: "is empty" }, { line: 2, field: "term", reason: "is empty" }] })));
    const user = await openDialog();
    await paste(user, "x");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    const button = await screen.findByRole("button", { name: "Import 0 entries" });
    expect(button).toBeDisabled();
    expect(button).toHaveAccessibleDescription(/Nothing to import: every line is refused/);
    expect(screen.queryByRole("checkbox", { name: /Leave the 2 refused lines out/ })).not.toBeInTheDocument();
  });

  it("refuses a file over the import's limit before reading or sending it", async () => {
    const server = fakeServer(() => json(preview()));
    const user = await openDialog();
    expect(maxImportBytes).toBe(4 * 1024 * 1024);
    const big = new File([new Uint8Array(maxImportBytes + 200 * 1024)], "huge.csv", { type: "text/csv" });
    await user.upload(screen.getByLabelText(/Or choose a file/), big);
    expect(await screen.findByRole("alert")).toHaveTextContent("The file is 4.2 MiB; a list or file to import may be at most 4 MiB.");
    expect(screen.queryByText("huge.csv")).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Preview" })).toBeDisabled();
    expect(server.seen).toHaveLength(0);
  });

  it("shows the text of a refusal of the whole list once", async () => {
    const reason = "the list is larger than 4194304 bytes (4 MiB): split it into several decks";
    fakeServer(() => json(problem(413, "List too large", { detail: reason, errors: [{ field: "text", reason }] }), 413));
    const user = await openDialog();
    await paste(user, "x");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Not read: List too large");
    expect(alert.textContent?.split(reason)).toHaveLength(2);
  });

  it("shows a refusal of the whole input (a file in UTF-16) as the server words it", async () => {
    fakeServer(() =>
      json(problem(415, "Not UTF-8 text", { detail: "the file is UTF-16: save it again as UTF-8 (CSV UTF-8 in Excel)" }), 415),
    );
    const user = await openDialog();
    await paste(user, "x");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Not read: Not UTF-8 text");
  });

  it("shows a table's columns and previews again with the teacher's mapping, which the import sends too", async () => {
    const columns = (beispiel: "none" | "example") =>
      [
        { name: "Wort", field: "term" },
        { name: "Bedeutung", field: "meaning" },
        { name: "Beispiel", field: beispiel },
      ] satisfies components["schemas"]["ImportColumn"][];
    const server = fakeServer((req) => {
      if (req.path === "/PreviewDeckImport") {
        const mapped = (req.body as { columns?: unknown }).columns !== undefined;
        return json(
          preview({
            format: "table",
            separator: ",",
            columns: columns(mapped ? "example" : "none"),
            rows: [row(2, "Hund", "dog", { example: mapped ? "Der Hund bellt." : "" })],
            refused: [],
          }),
        );
      }
      if (req.path === "/ImportDeckEntries") return json({ result: edited({ added: [entry(4, "Hund", "dog")] }), left: [] } satisfies components["schemas"]["ImportResult"]);
      return json(problem(404, "Not found"), 404);
    });
    const user = await openDialog();
    const text = "Wort,Bedeutung,Beispiel\nHund,dog,Der Hund bellt.";
    await paste(user, text);
    await user.selectOptions(screen.getByRole("combobox", { name: "Format" }), "A table (CSV or TSV) with a header row");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    const wort = await screen.findByRole("combobox", { name: "Column “Wort” is read as" });
    expect(wort).toHaveValue("term");
    expect(screen.getByRole("combobox", { name: "Column “Bedeutung” is read as" })).toHaveValue("meaning");
    const beispiel = screen.getByRole("combobox", { name: "Column “Beispiel” is read as" });
    expect(within(beispiel).getByRole("option", { selected: true })).toHaveTextContent("not read");
    expect(within(beispiel).getAllByRole("option").map((o) => o.textContent)).toEqual(["term", "meaning", "example", "part of speech", "not read"]);

    await user.selectOptions(beispiel, "example");
    const mapping = { Wort: "term", Bedeutung: "meaning", Beispiel: "example" };
    await waitFor(() =>
      expect(server.seen.filter((r) => r.path === "/PreviewDeckImport").at(-1)?.body).toEqual({ deck_id: ownId, text, format: "table", columns: mapping }),
    );
    expect(await screen.findByRole("region", { name: "Entries as they will be saved" })).toHaveTextContent("Der Hund bellt.");
    expect(screen.getByRole("combobox", { name: "Column “Beispiel” is read as" })).toHaveValue("example");
    expect(screen.queryByText(/The list changed since this preview/)).not.toBeInTheDocument();

    await user.click(screen.getByRole("button", { name: "Import 1 entry" }));
    await screen.findByText(/Imported: 1 added/);
    expect(server.seen.find((r) => r.path === "/ImportDeckEntries")?.body).toEqual({
      deck_id: ownId,
      text,
      format: "table",
      columns: mapping,
      duplicates: "skip",
      leave_out_refused: false,
    });
  });

  it("swaps two columns' fields when one is given the other's, and offers the term column no field that would leave the import without a term", async () => {
    const server = fakeServer(() =>
      json(
        preview({
          format: "table",
          separator: ",",
          columns: [
            { name: "Front", field: "term" },
            { name: "Back", field: "meaning" },
          ],
          rows: [row(2, "dog", "Hund")],
          refused: [],
        }),
      ),
    );
    const user = await openDialog();
    await paste(user, "Front,Back\ndog,Hund");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    const front = await screen.findByRole("combobox", { name: "Column “Front” is read as" });
    const enabled = within(front)
      .getAllByRole("option")
      .filter((o) => !(o as HTMLOptionElement).disabled)
      .map((o) => o.textContent);
    expect(enabled).toEqual(["term", "meaning"]);
    await user.selectOptions(screen.getByRole("combobox", { name: "Column “Back” is read as" }), "term");
    await waitFor(() => expect(server.seen).toHaveLength(2));
    expect(server.seen[1]?.body).toMatchObject({ columns: { Front: "meaning", Back: "term" } });
  });

  it("names a column without a header name and offers no mapping for it; a list shows no columns but says how to map a header", async () => {
    let n = 0;
    fakeServer(() =>
      json(
        n++ === 0
          ? preview({
              format: "anki",
              columns: [
                { name: "", field: "term" },
                { name: "", field: "meaning" },
              ],
              refused: [],
            })
          : preview(),
      ),
    );
    const user = await openDialog();
    await paste(user, "#separator:tab\ngato\tcat");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByText("Column 1 (no name) is read as term")).toBeInTheDocument();
    expect(screen.getByText("Column 2 (no name) is read as meaning")).toBeInTheDocument();
    expect(screen.queryByRole("combobox", { name: /^Column/ })).not.toBeInTheDocument();
    await paste(user, "\nperro\tdog");
    await user.click(screen.getByRole("button", { name: "Preview" }));
    expect(await screen.findByText(/If your first row names the columns/)).toBeInTheDocument();
    expect(screen.queryByRole("group", { name: /^Columns/ })).not.toBeInTheDocument();
  });
});

describe("remap and mayMap", () => {
  const three = [
    { name: "Wort", field: "term" as const },
    { name: "Bedeutung", field: "meaning" as const },
    { name: "Notiz", field: "none" as const },
  ];
  it("gives a column's old field to the one whose field it takes, and never leaves the import without a term or a meaning", () => {
    expect(remap(three, 2, "term")).toEqual({ Wort: "none", Bedeutung: "meaning", Notiz: "term" });
    expect(remap(three, 2, "example")).toEqual({ Wort: "term", Bedeutung: "meaning", Notiz: "example" });
    expect(mayMap(three, 0, "none")).toBe(false);
    expect(mayMap(three, 0, "example")).toBe(false);
    expect(mayMap(three, 0, "meaning")).toBe(true);
    expect(mayMap(three, 2, "part_of_speech")).toBe(true);
  });

  it("keeps the request within 20 columns, leaving out the unread ones first", () => {
    const columns = Array.from({ length: 25 }, (_, i) => ({ name: `c${i}`, field: i === 0 ? ("term" as const) : i === 1 ? ("meaning" as const) : ("none" as const) }));
    expect(remap(columns, 24, "example")).toEqual({ c0: "term", c1: "meaning", c24: "example" });
    expect(Object.keys(remap(columns.slice(0, 20), 5, "example"))).toHaveLength(20);
  });
});
