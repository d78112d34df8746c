import { describe, expect, it } from "vitest";
import { blankRow, draftOf, editOf, isEmpty, move, orderAfter, type SavedEntry } from "./draft";

const saved: SavedEntry[] = [
  { id: "e1", version: 1, term: "gato", meaning: "cat", example: "", part_of_speech: "noun" },
  { id: "e2", version: 3, term: "perro", meaning: "dog", example: "El perro ladra.", part_of_speech: "noun" },
  { id: "e3", version: 1, term: "correr", meaning: "to run", example: "", part_of_speech: "verb" },
];

describe("the deck editor's draft", () => {
  it("starts as the saved entries and one blank row, and saving it unchanged changes nothing", () => {
    const rows = draftOf(saved);
    expect(rows.map((r) => r.term)).toEqual(["gato", "perro", "correr", ""]);
    expect(isEmpty(editOf(saved, rows))).toBe(true);
  });

  it("sends each change with the version the editor read, trimmed, and only the rows whose text differs", () => {
    const rows = draftOf(saved).map((r) => (r.id === "e2" ? { ...r, meaning: " dog, hound  " } : r));
    expect(editOf(saved, rows)).toEqual({
      add: [],
      change: [{ id: "e2", version: 3, term: "perro", meaning: "dog, hound", example: "El perro ladra.", part_of_speech: "noun" }],
      remove: [],
    });
  });

  it("keeps the version the row was read at when the deck was read again since (a stale edit is refused, not applied)", () => {
    const rows = draftOf(saved).map((r) => (r.id === "e1" ? { ...r, meaning: "a cat" } : r));
    const newer = saved.map((e) => (e.id === "e1" ? { ...e, version: 2, meaning: "cat (feline)" } : e));
    expect(editOf(newer, rows).change).toEqual([expect.objectContaining({ id: "e1", version: 1, meaning: "a cat" })]);
  });

  it("adds the new rows that hold text, in their order, and removes the saved entries no row holds", () => {
    const [gato, , correr, blank] = draftOf(saved);
    const a = { ...blankRow(), term: "pájaro", meaning: "bird" };
    const rows = [a, gato!, correr!, { ...blank!, term: " " }];
    const edit = editOf(saved, rows);
    expect(edit.add).toEqual([{ row: a.key, entry: { term: "pájaro", meaning: "bird", example: "", part_of_speech: "" } }]);
    expect(edit.remove).toEqual([{ id: "e2", version: 3 }]);
    expect(edit.change).toEqual([]);
  });

  it("asks for a new order only when it differs from the saved one with the added entries at the end", () => {
    const rows = draftOf(saved);
    const added = { ...blankRow(), term: "pájaro", meaning: "bird" };
    const atEnd = [...rows.slice(0, 3), added, rows[3]!];
    expect(orderAfter(saved, atEnd, new Map([[added.key, "e4"]]))).toBeUndefined();
    const first = [added, ...rows];
    expect(orderAfter(saved, first, new Map([[added.key, "e4"]]))).toEqual(["e4", "e1", "e2", "e3"]);
    expect(orderAfter(saved, move(rows, 2, -1), new Map())).toEqual(["e1", "e3", "e2"]);
  });

  it("moves a row up or down, and not past either end", () => {
    expect(move(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(move(["a", "b", "c"], 2, -1)).toEqual(["a", "c", "b"]);
    const list = ["a", "b"];
    expect(move(list, 0, -1)).toBe(list);
    expect(move(list, 1, 1)).toBe(list);
  });
});
