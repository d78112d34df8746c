import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Route, Routes } from "react-router";
import { describe, expect, it } from "vitest";
import type { components } from "../../api/schema";
import { fakeServer, json, renderApp } from "../../test/render";
import { Decks } from "./Decks";
import { details, libraryId, ownId, problem, teacher, withEntries } from "./fixtures";

const library = [
  { id: libraryId, title: "Core English 01", description: "", words: 25, level: 1, library: true, started: false },
  { id: ownId, title: "Unit 3", description: "", words: 3, level: null, library: false, started: false },
] satisfies components["schemas"]["Deck"][];

function open() {
  return renderApp(
    <Routes>
      <Route path="/teacher/decks" element={<Decks />} />
      <Route path="/teacher/decks/:deckId" element={<p>The deck page</p>} />
    </Routes>,
    { user: teacher, path: "/teacher/decks" },
  );
}

describe("Decks", () => {
  it("lists the teacher's own decks with their state, and the library's by level, each opening its words", async () => {
    fakeServer((req) => {
      if (req.path === "/ListOwnDecks")
        return json({
          decks: [details(), details({ id: "d-old", title: "Unit 1", assigned: true, archived_at: "2026-11-01T09:00:00Z" })],
        } satisfies components["schemas"]["OwnDeckList"]);
      if (req.path === "/ListDecks") return json({ decks: library } satisfies components["schemas"]["DeckList"]);
      return json(problem(404, "Not found"), 404);
    });
    open();
    const own = await screen.findByRole("region", { name: "Your decks" });
    expect(within(own).getByRole("row", { name: /Unit 3 3 es → en not assigned yet/ })).toBeInTheDocument();
    expect(within(own).getByRole("row", { name: /Unit 1 .* archived/ })).toBeInTheDocument();
    const level = await screen.findByRole("region", { name: "Level 1: the 200 most frequent words" });
    // The library lists only the library's decks (ListDecks gives the teacher's own too).
    expect(within(level).getAllByRole("link").map((a) => a.textContent)).toEqual(["Core English 01"]);
    await userEvent.click(within(level).getByRole("link", { name: "Core English 01: see its words" }));
    expect(await screen.findByText("The deck page")).toBeInTheDocument();
  });

  it("creates a deck with its languages and opens it; a refusal names the form's field", async () => {
    let tries = 0;
    const server = fakeServer((req) => {
      if (req.path === "/ListOwnDecks") return json({ decks: [] } satisfies components["schemas"]["OwnDeckList"]);
      if (req.path === "/ListDecks") return json({ decks: library } satisfies components["schemas"]["DeckList"]);
      if (req.path === "/CreateDeck")
        return ++tries === 1
          ? json(problem(400, "Invalid request", { errors: [{ field: "term_language", reason: "is not a BCP 47 language tag" }] }), 400)
          : json(withEntries(details({ id: "d-new" }), []), 201);
      return json(problem(404, "Not found"), 404);
    });
    const user = userEvent.setup();
    open();
    expect(await screen.findByText(/No deck of your own yet/)).toBeInTheDocument();
    await user.type(screen.getByRole("textbox", { name: "Title" }), "Unit 3");
    const terms = screen.getByRole("textbox", { name: "Language of the words" });
    await user.clear(terms);
    await user.type(terms, "spanish");
    await user.click(screen.getByRole("button", { name: "Create and add words" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Language of the words: is not a BCP 47 language tag");
    await user.clear(terms);
    await user.type(terms, "es");
    await user.click(screen.getByRole("button", { name: "Create and add words" }));
    expect(await screen.findByText("The deck page")).toBeInTheDocument();
    await waitFor(() =>
      expect(server.seen.filter((r) => r.path === "/CreateDeck").at(-1)?.body).toEqual({ title: "Unit 3", term_language: "es", meaning_language: "en" }),
    );
  });

  it("keeps a title of 200 emoji and a description of 2,000 characters, the server's limits, and says what a paste lost", async () => {
    const server = fakeServer((req) => {
      if (req.path === "/ListOwnDecks") return json({ decks: [] } satisfies components["schemas"]["OwnDeckList"]);
      if (req.path === "/ListDecks") return json({ decks: library } satisfies components["schemas"]["DeckList"]);
      if (req.path === "/CreateDeck") return json(withEntries(details({ id: "d-new" }), []), 201);
      return json(problem(404, "Not found"), 404);
    });
    const user = userEvent.setup();
    open();
    expect(await screen.findByText(/No deck of your own yet/)).toBeInTheDocument();
    const title = screen.getByRole("textbox", { name: "Title" });
    await user.click(title);
    // 200 characters as the server counts them (400 UTF-16 units: maxLength={200} kept 100).
    await user.paste("📚".repeat(200));
    expect(title).toHaveValue("📚".repeat(200));
    expect(title).toHaveAccessibleDescription("200 of 200 characters");
    const description = screen.getByRole("textbox", { name: "Description (optional)" });
    await user.click(description);
    await user.paste("d".repeat(2500));
    // CreateDeck keeps 2,000, as UpdateDeck (the field once cut at 1,000).
    expect(description).toHaveValue("d".repeat(2000));
    expect(screen.getByText("The pasted text was cut to 2,000 characters.")).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Create and add words" }));
    expect(await screen.findByText("The deck page")).toBeInTheDocument();
    expect(server.seen.find((r) => r.path === "/CreateDeck")?.body).toMatchObject({ title: "📚".repeat(200), description: "d".repeat(2000) });
  });
});
