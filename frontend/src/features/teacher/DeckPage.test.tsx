import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { components } from "../../api/schema";
import { characters } from "../../components/CharacterLimit";
import { fakeServer, json, renderApp, type Seen } from "../../test/render";
import { DeckPage } from "./DeckPage";
import { details, edited, entries, entry, libraryId, ownId, problem, teacher, withEntries } from "./fixtures";

type Answer = (req: Seen) => Response | undefined;

/** A fake of the deck functions: deck is GetDeck's answer; more answers the others (undefined: 404). */
function serve(deck: components["schemas"]["DeckWithEntries"], more: Answer = () => undefined) {
  return fakeServer((req) => {
    const answer = more(req);
    if (answer) return answer;
    if (req.path === "/GetDeck") return json(deck);
    if (req.path === "/ListOwnDecks") return json({ decks: deck.deck.library ? [] : [deck.deck] } satisfies components["schemas"]["OwnDeckList"]);
    if (req.path === "/LookupLibraryTerm") return json({ entries: [] } satisfies components["schemas"]["LibraryMatches"]);
    return json(problem(404, "Not found"), 404);
  });
}

function open(deckId = ownId) {
  return renderApp(
    <Routes>
      <Route path="/teacher/decks/:deckId" element={<DeckPage />} />
      <Route path="/teacher/decks" element={<p>All decks</p>} />
    </Routes>,
    { user: teacher, path: `/teacher/decks/${deckId}` },
  );
}

const cell = (row: number, field: string) => screen.getByRole(field === "part of speech" ? "combobox" : "textbox", { name: `Row ${row}, ${field}` });

describe("a library deck", () => {
  it("shows its words read-only before it is assigned, and offers a copy to edit (issue 25, finding 9)", async () => {
    const library = withEntries(details({ id: libraryId, library: true, owner_id: null, title: "Core English 01", level: 1, term_language: "en" }), [
      entry(1, "time", "an instance or single occasion for some event", { part_of_speech: "noun", example: "this time he succeeded" }),
    ]);
    const server = serve(library, (req) =>
      req.path === "/CopyDeck" ? json(withEntries(details({ id: "d-copy", title: "Core English 01 (my copy)" })), 201) : undefined,
    );
    open(libraryId);
    const words = await screen.findByRole("region", { name: "Words of the deck" });
    expect(within(words).getByRole("rowheader", { name: "time" })).toHaveAttribute("lang", "en");
    expect(words).toHaveTextContent("an instance or single occasion for some event");
    expect(words).toHaveTextContent("this time he succeeded");
    expect(screen.queryByRole("textbox", { name: /Row 1/ })).not.toBeInTheDocument();
    expect(screen.queryByRole("button", { name: "Delete this deck" })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Copy" }));
    await waitFor(() => expect(server.seen.some((r) => r.path === "/CopyDeck")).toBe(true));
    expect(server.seen.find((r) => r.path === "/CopyDeck")?.body).toEqual({ source_id: libraryId, title: "Core English 01 (my copy)" });
  });
});

describe("copying a deck", () => {
  it("starts with a title that fits: a 200-character title is cut, whole characters, so that with \" (my copy)\" it has at most 200", async () => {
    // 189 "é", then an emoji of 2 code points (👩🏽) at 190..191 that a cut at 190 would split, then more.
    const long = "é".repeat(189) + "👩🏽" + "x".repeat(9);
    expect(characters(long)).toBe(200);
    const library = withEntries(details({ id: libraryId, library: true, owner_id: null, title: long }), []);
    const server = serve(library, (req) =>
      req.path === "/CopyDeck" ? json(withEntries(details({ id: "d-copy", title: "copied" })), 201) : undefined,
    );
    open(libraryId);
    const field = await screen.findByRole("textbox", { name: "Title of the copy" });
    const want = "é".repeat(189) + " (my copy)";
    expect(field).toHaveValue(want);
    expect(characters(want)).toBe(199);
    expect(screen.getByText("199 of 200 characters")).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Copy" }));
    await waitFor(() => expect(server.seen.some((r) => r.path === "/CopyDeck")).toBe(true));
    expect(server.seen.find((r) => r.path === "/CopyDeck")?.body).toEqual({ source_id: libraryId, title: want });
  });

  it("drops the white space that a cut leaves at the end of the title", async () => {
    const long = "a".repeat(189) + " " + "b".repeat(10);
    serve(withEntries(details({ id: libraryId, library: true, owner_id: null, title: long }), []));
    open(libraryId);
    expect(await screen.findByRole("textbox", { name: "Title of the copy" })).toHaveValue("a".repeat(189) + " (my copy)");
  });

  it("keeps a short title whole", async () => {
    serve(withEntries(details({ id: libraryId, library: true, owner_id: null, title: "Core English 01" }), []));
    open(libraryId);
    expect(await screen.findByRole("textbox", { name: "Title of the copy" })).toHaveValue("Core English 01 (my copy)");
  });
});

describe("the deck editor", () => {
  it("edits in place, adds the next row with Enter in the last row, and saves every change with the version read", async () => {
    const user = userEvent.setup();
    const server = serve(withEntries(), (req) =>
      req.path === "/EditDeckEntries"
        ? json(edited({ added: [entry(4, "pájaro", "bird")], changed: [entry(2, "perro", "dog, hound", { version: 3 })], cards_created: 35 }))
        : undefined,
    );
    open();
    await user.clear(await screen.findByRole("textbox", { name: "Row 2, meaning" }));
    await user.type(cell(2, "meaning"), "dog, hound");
    await user.type(cell(4, "term"), "pájaro");
    await user.type(cell(4, "meaning"), "bird{Enter}");
    // Enter in the last row gave a fifth, blank row, with the focus on its term.
    expect(cell(5, "term")).toHaveFocus();
    await user.click(screen.getByRole("button", { name: "Save changes (2)" }));
    await screen.findByText(/Saved: 1 added, 1 changed, 0 removed; 35 new cards/);
    expect(server.seen.find((r) => r.path === "/EditDeckEntries")?.body).toEqual({
      deck_id: ownId,
      add: [{ term: "pájaro", meaning: "bird", example: "", part_of_speech: "" }],
      change: [{ id: entries[1]!.id, version: 2, term: "perro", meaning: "dog, hound", example: "", part_of_speech: "" }],
    });
    expect(server.seen.some((r) => r.path === "/ReorderDeckEntries")).toBe(false);
    // A deck of Spanish words: the English library is not asked.
    expect(server.seen.some((r) => r.path === "/LookupLibraryTerm")).toBe(false);
  });

  it("says clearly that a stale edit was refused (409) and keeps the teacher's text", async () => {
    const user = userEvent.setup();
    serve(withEntries(), (req) =>
      req.path === "/EditDeckEntries"
        ? json(
            problem(409, "Changed since you read it", {
              type: "https://lexora.app/problems/stale-version",
              detail: "entry e0000000-0000-4000-8000-000000000002 changed since the version given (now version 3): reload it and make the change again",
            }),
            409,
          )
        : undefined,
    );
    open();
    await user.clear(await screen.findByRole("textbox", { name: "Row 2, meaning" }));
    await user.type(cell(2, "meaning"), "hound");
    await user.click(screen.getByRole("button", { name: "Save changes (1)" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Not saved: this deck changed since you opened it");
    // The entry is named as the teacher knows it: by its term and row, not its id.
    expect(alert).toHaveTextContent("entry “perro” (row 2) changed since the version given (now version 3)");
    expect(alert).not.toHaveTextContent("e0000000-0000-4000-8000-000000000002");
    expect(screen.getByRole("button", { name: /Load the saved words/ })).toBeInTheDocument();
    expect(cell(2, "meaning")).toHaveValue("hound");
  });

  it("names an entry removed in the editor by its saved term when the server refuses its removal (409)", async () => {
    const user = userEvent.setup();
    serve(withEntries(), (req) =>
      req.path === "/EditDeckEntries"
        ? json(
            problem(409, "Changed since read", {
              type: "https://lexora.app/problems/stale-version",
              // As a server that names the entry by its term too words it.
              detail: `entry "correr" (${entries[2]!.id}) changed since the version given (now version 2): reload it and make the change again`,
            }),
            409,
          )
        : undefined,
    );
    open();
    await user.click(await screen.findByRole("button", { name: "Delete row 3 (correr)" }));
    await user.click(screen.getByRole("button", { name: "Save changes (1)" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("entry “correr” (which you removed) changed since the version given");
  });

  it("names a refused field by its row and column", async () => {
    const user = userEvent.setup();
    serve(withEntries(), (req) =>
      req.path === "/EditDeckEntries"
        ? json(
            problem(400, "Invalid request", { errors: [{ field: "add[0].term", reason: "the deck has an entry with this term already" }] }),
            400,
          )
        : undefined,
    );
    open();
    await user.type(await screen.findByRole("textbox", { name: "Row 4, term" }), "Gato");
    await user.type(cell(4, "meaning"), "cat");
    await user.click(screen.getByRole("button", { name: "Save changes (1)" }));
    expect(await screen.findByRole("list", { name: "Field errors" })).toHaveTextContent("Row 4 (“Gato”), term: the deck has an entry with this term already");
    expect(cell(4, "term")).toHaveAttribute("aria-invalid", "true");
  });

  it("moves a row with Alt+↓, deletes one, and saves the removal then the new order with the deck's version", async () => {
    const user = userEvent.setup();
    const server = serve(withEntries(), (req) => {
      if (req.path === "/EditDeckEntries") return json(edited({ removed: [entries[2]!.id], entries: 2 }));
      if (req.path === "/ReorderDeckEntries") return json({ deck_id: ownId, version: 5 } satisfies components["schemas"]["DeckVersion"]);
      return undefined;
    });
    open();
    await user.click(await screen.findByRole("textbox", { name: "Row 1, term" }));
    await user.keyboard("{Alt>}{ArrowDown}{/Alt}");
    expect(cell(2, "term")).toHaveValue("gato");
    expect(cell(2, "term")).toHaveFocus();
    await user.click(screen.getByRole("button", { name: "Delete row 3 (correr)" }));
    await user.click(screen.getByRole("button", { name: "Save changes (1)" }));
    await waitFor(() => expect(server.seen.some((r) => r.path === "/ReorderDeckEntries")).toBe(true));
    expect(server.seen.find((r) => r.path === "/EditDeckEntries")?.body).toEqual({
      deck_id: ownId,
      remove: [{ id: entries[2]!.id, version: 1 }],
    });
    expect(server.seen.find((r) => r.path === "/ReorderDeckEntries")?.body).toEqual({
      deck_id: ownId,
      version: 4,
      order: [entries[1]!.id, entries[0]!.id],
    });
  });

  it("offers the library's definition of a term typed in a deck of English words, filled in with one click", async () => {
    const user = userEvent.setup();
    const server = serve(withEntries(details({ term_language: "en" }), []), (req) =>
      req.path === "/LookupLibraryTerm" && req.query.get("term") === "serendipity"
        ? json({
            entries: [{ term: "serendipity", meaning: "good luck in making unexpected and fortunate discoveries", example: "", part_of_speech: "noun" }],
          } satisfies components["schemas"]["LibraryMatches"])
        : undefined,
    );
    open();
    await user.type(await screen.findByRole("textbox", { name: "Row 1, term" }), "serendipity");
    await user.click(await screen.findByRole("button", { name: /Use: \(noun\) good luck/ }));
    expect(cell(1, "meaning")).toHaveValue("good luck in making unexpected and fortunate discoveries");
    expect(cell(1, "part of speech")).toHaveValue("noun");
    // Asked once typing paused, not for every letter.
    const asked = server.seen.filter((r) => r.path === "/LookupLibraryTerm").map((r) => r.query.get("term"));
    expect(asked.at(-1)).toBe("serendipity");
    expect(asked.length).toBeLessThan("serendipity".length);
  });

  it("shows markup in a meaning as text, never as HTML", async () => {
    serve(withEntries(details(), [entry(1, "gato", "<b>cat</b><script>alert(1)</script>")]));
    open();
    expect(await screen.findByRole("textbox", { name: "Row 1, meaning" })).toHaveValue("<b>cat</b><script>alert(1)</script>");
    expect(document.querySelector("script, b")).toBeNull();
  });

  it("shows a meaning's line breaks in a textarea as tall as its lines; Shift+Enter breaks a line, Enter still goes to the row below", async () => {
    const user = userEvent.setup();
    const server = serve(withEntries(details(), [entry(1, "dificultad", "difficulty,\nsetbacks"), entry(2, "perro", "dog")]), (req) =>
      req.path === "/EditDeckEntries" ? json(edited({ changed: [entry(1, "dificultad", "difficulty,\nsetbacks\nhardship", { version: 2 })] })) : undefined,
    );
    open();
    const meaning = await screen.findByRole("textbox", { name: "Row 1, meaning" });
    expect(meaning.tagName).toBe("TEXTAREA");
    expect(meaning).toHaveValue("difficulty,\nsetbacks");
    expect(meaning).toHaveAttribute("rows", "2");
    expect(cell(1, "example").tagName).toBe("TEXTAREA");
    await user.click(meaning);
    await user.keyboard("{Control>}{End}{/Control}{Shift>}{Enter}{/Shift}hardship");
    expect(meaning).toHaveValue("difficulty,\nsetbacks\nhardship");
    expect(meaning).toHaveAttribute("rows", "3");
    await user.keyboard("{Enter}");
    expect(cell(2, "meaning")).toHaveFocus();
    expect(meaning).toHaveValue("difficulty,\nsetbacks\nhardship");
    expect(screen.getByText(/Shift\+Enter starts a new line in a meaning or an example/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Save changes (1)" }));
    await waitFor(() => expect(server.seen.some((r) => r.path === "/EditDeckEntries")).toBe(true));
    expect(server.seen.find((r) => r.path === "/EditDeckEntries")?.body).toMatchObject({ change: [{ meaning: "difficulty,\nsetbacks\nhardship" }] });
  });

  it("cuts a paste into a cell at the server's limit, says so, and shows the counter only in the focused cell", async () => {
    const user = userEvent.setup();
    serve(withEntries(details(), [entry(1, "gato", "cat")]));
    open();
    const meaning = await screen.findByRole("textbox", { name: "Row 1, meaning" });
    expect(meaning).not.toHaveAttribute("maxlength");
    await user.click(meaning);
    await user.keyboard("{Control>}a{/Control}");
    // 600 emoji and 600 letters: 1,200 characters as the server counts them (pkg/decks' MaxMeaning is 1,000).
    await user.paste("🐈".repeat(600) + "x".repeat(600));
    expect(meaning).toHaveValue("🐈".repeat(600) + "x".repeat(400));
    expect(screen.getByText("The pasted text was cut to 1,000 characters.")).toBeInTheDocument();
    expect(meaning).toHaveAccessibleDescription("1,000 of 1,000 characters");
    expect(cell(1, "term")).not.toHaveAccessibleDescription();
    await user.click(cell(1, "term"));
    expect(screen.queryByText(/of 1,000 characters/)).toBeNull();
    expect(screen.queryByText(/was cut/)).toBeNull();
  });

  it("keeps a part of speech the server stored as free text, and offers the usual names to type", async () => {
    const user = userEvent.setup();
    const server = serve(withEntries(details(), [entry(1, "give up", "to stop trying", { part_of_speech: "phrasal verb" })]), (req) =>
      req.path === "/EditDeckEntries" ? json(edited({ changed: [entry(1, "give up", "to stop trying", { part_of_speech: "phrasal verb, informal", version: 2 })] })) : undefined,
    );
    open();
    await screen.findByRole("textbox", { name: "Row 1, term" });
    const pos = cell(1, "part of speech");
    expect(pos).toHaveValue("phrasal verb");
    // The limit is the server's, in characters: no maxLength, which counts UTF-16 units.
    expect(pos).not.toHaveAttribute("maxlength");
    const list = document.getElementById(pos.getAttribute("list") ?? "");
    expect([...(list?.querySelectorAll("option") ?? [])].map((o) => o.value)).toContain("noun");
    await user.type(pos, ", informal");
    await user.click(screen.getByRole("button", { name: "Save changes (1)" }));
    await waitFor(() => expect(server.seen.some((r) => r.path === "/EditDeckEntries")).toBe(true));
    expect(server.seen.find((r) => r.path === "/EditDeckEntries")?.body).toMatchObject({ change: [{ part_of_speech: "phrasal verb, informal" }] });
  });
});

describe("archiving and deleting a deck", () => {
  it("says that an assigned deck cannot be deleted, and archives it instead", async () => {
    const assigned = details({ assigned: true });
    const server = serve(withEntries(assigned), (req) => {
      if (req.path === "/ListOwnDecks") return json({ decks: [assigned] } satisfies components["schemas"]["OwnDeckList"]);
      if (req.path === "/ArchiveDeck") return json({ deck_id: ownId, archived_at: "2026-12-02T07:00:00Z" } satisfies components["schemas"]["DeckArchive"]);
      return undefined;
    });
    open();
    expect(await screen.findByText(/is or was assigned, so it cannot be deleted/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Delete this deck" })).toBeDisabled();
    expect(screen.getByText(/Learners who have it keep their cards/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole("button", { name: "Archive this deck" }));
    await waitFor(() => expect(server.seen.find((r) => r.path === "/ArchiveDeck")?.body).toEqual({ deck_id: ownId, archived: true }));
  });
});

describe("exporting a deck", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    Reflect.deleteProperty(URL, "createObjectURL");
    Reflect.deleteProperty(URL, "revokeObjectURL");
  });

  it("saves ExportDeck's CSV as a file named after the deck", async () => {
    const csv = "\ufeffterm,meaning,example,part_of_speech\r\ngato,cat,,\r\n";
    const server = serve(withEntries(details({ title: "Unit 3: pets" })), (req) =>
      req.path === "/ExportDeck" ? new Response(csv, { headers: { "Content-Type": "text/csv" } }) : undefined,
    );
    const blobs: Blob[] = [];
    Object.assign(URL, { createObjectURL: (b: Blob) => (blobs.push(b), "blob:deck"), revokeObjectURL: () => {} });
    const saved: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(`${this.download} ${this.href}`);
    });
    open();
    await userEvent.click(await screen.findByRole("button", { name: "Export as CSV" }));
    await waitFor(() => expect(saved).toEqual(["Unit 3_ pets.csv blob:deck"]));
    expect(server.seen.find((r) => r.path === "/ExportDeck")?.query.get("deck_id")).toBe(ownId);
    // Byte for byte, its byte-order mark too (which spreadsheets read as UTF-8).
    const bytes = new Uint8Array((await blobs[0]?.arrayBuffer()) ?? new ArrayBuffer(0));
    expect(Array.from(bytes)).toEqual(Array.from(new TextEncoder().encode(csv)));
  });
});

describe("a deck's details", () => {
  it("edits the title, description and languages with the version read, and shows the deck as saved", async () => {
    const user = userEvent.setup();
    let saved = false;
    const server = fakeServer((req) => {
      if (req.path === "/UpdateDeck") {
        saved = true;
        return json({ deck_id: ownId, version: 5 } satisfies components["schemas"]["DeckVersion"]);
      }
      if (req.path === "/GetDeck")
        return json(withEntries(saved ? details({ title: "Unit 3: weather", description: "Words for rain", meaning_language: "de", version: 5 }) : details()));
      if (req.path === "/ListOwnDecks") return json({ decks: [] } satisfies components["schemas"]["OwnDeckList"]);
      if (req.path === "/LookupLibraryTerm") return json({ entries: [] } satisfies components["schemas"]["LibraryMatches"]);
      return json(problem(404, "Not found"), 404);
    });
    open();
    await user.click(await screen.findByRole("button", { name: "Edit details" }));
    const form = screen.getByRole("form", { name: "Edit details" });
    const title = within(form).getByRole("textbox", { name: "Title" });
    expect(title).toHaveValue("Unit 3");
    expect(within(form).getByRole("textbox", { name: "Term language" })).toHaveValue("es");
    await user.clear(title);
    await user.type(title, "Unit 3: weather");
    await user.type(within(form).getByRole("textbox", { name: "Description" }), "Words for rain");
    await user.clear(within(form).getByRole("textbox", { name: "Meaning language" }));
    await user.type(within(form).getByRole("textbox", { name: "Meaning language" }), "de");
    await user.click(within(form).getByRole("button", { name: "Save details" }));
    expect(await screen.findByText("Saved the deck's details.")).toBeInTheDocument();
    expect(server.seen.find((r) => r.path === "/UpdateDeck")?.body).toEqual({
      deck_id: ownId,
      version: 4,
      title: "Unit 3: weather",
      description: "Words for rain",
      term_language: "es",
      meaning_language: "de",
    });
    // The deck was read again (the query factories' keys were invalidated).
    expect(await screen.findByRole("heading", { level: 1, name: "Unit 3: weather" })).toBeInTheDocument();
    expect(screen.getByTestId("deck-facts")).toHaveTextContent("meanings in de");
    expect(screen.queryByRole("form", { name: "Edit details" })).not.toBeInTheDocument();
  });

  it("shows a taken title and a language that is not a BCP 47 tag as the server words them, beside the field's name", async () => {
    const user = userEvent.setup();
    let n = 0;
    serve(withEntries(), (req) => {
      if (req.path !== "/UpdateDeck") return undefined;
      return n++ === 0
        ? json(problem(409, "Title taken", { detail: "you have a deck with this title already", errors: [{ field: "title", reason: "you have a deck with this title already" }] }), 409)
        : json(problem(400, "Invalid request", { errors: [{ field: "term_language", reason: "must be a BCP 47 language tag such as en, es or fr-CA" }] }), 400);
    });
    open();
    await user.click(await screen.findByRole("button", { name: "Edit details" }));
    const title = screen.getByRole("textbox", { name: "Title" });
    await user.clear(title);
    await user.type(title, "Unit 4");
    await user.click(screen.getByRole("button", { name: "Save details" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Not saved: Title taken");
    expect(within(alert).getByRole("list", { name: "Field errors" })).toHaveTextContent("Title: you have a deck with this title already");
    expect(screen.queryByRole("button", { name: /Reload the saved details/ })).not.toBeInTheDocument();
    const term = screen.getByRole("textbox", { name: "Term language" });
    await user.clear(term);
    await user.type(term, "spanish!");
    await user.click(screen.getByRole("button", { name: "Save details" }));
    expect(await screen.findByRole("list", { name: "Field errors" })).toHaveTextContent("Term language: must be a BCP 47 language tag such as en, es or fr-CA");
    expect(title).toHaveValue("Unit 4");
  });

  it("says that someone else changed the deck (409, stale version), keeps the teacher's text, and reloads the saved details to try again", async () => {
    const user = userEvent.setup();
    let reloaded = false;
    let updates = 0;
    const server = fakeServer((req) => {
      if (req.path === "/UpdateDeck") {
        updates++;
        return updates === 1
          ? json(
              problem(409, "Changed since you read it", {
                type: "https://lexora.app/problems/stale-version",
                detail: `deck ${ownId} is at version 6 now`,
              }),
              409,
            )
          : json({ deck_id: ownId, version: 7 } satisfies components["schemas"]["DeckVersion"]);
      }
      if (req.path === "/GetDeck") return json(withEntries(reloaded ? details({ title: "Unit 3 (renamed)", version: 6 }) : details()));
      if (req.path === "/ListOwnDecks") return json({ decks: [] } satisfies components["schemas"]["OwnDeckList"]);
      if (req.path === "/LookupLibraryTerm") return json({ entries: [] } satisfies components["schemas"]["LibraryMatches"]);
      return json(problem(404, "Not found"), 404);
    });
    open();
    await user.click(await screen.findByRole("button", { name: "Edit details" }));
    await user.type(screen.getByRole("textbox", { name: "Description" }), "Rain and snow");
    await user.click(screen.getByRole("button", { name: "Save details" }));
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Not saved: someone else changed this deck's details since you opened them");
    expect(alert).toHaveTextContent("is at version 6 now");
    expect(screen.getByRole("textbox", { name: "Description" })).toHaveValue("Rain and snow");
    reloaded = true;
    await user.click(screen.getByRole("button", { name: "Reload the saved details (drops your changes)" }));
    await waitFor(() => expect(screen.getByRole("textbox", { name: "Title" })).toHaveValue("Unit 3 (renamed)"));
    expect(screen.getByRole("textbox", { name: "Description" })).toHaveValue("");
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
    await user.type(screen.getByRole("textbox", { name: "Description" }), "Rain and snow");
    await user.click(screen.getByRole("button", { name: "Save details" }));
    await screen.findByText("Saved the deck's details.");
    expect(server.seen.filter((r) => r.path === "/UpdateDeck").map((r) => (r.body as { version: number }).version)).toEqual([4, 6]);
  });
});
