// Typed fake answers of the deck functions, shared by the teacher's deck tests.
import type { components } from "../../api/schema";

type Schemas = components["schemas"];

export const teacher = { id: "00000000-0000-4000-8000-00000000000a", displayName: "Ada", email: "ada@lexora.test", role: "teacher" as const };

export const ownId = "d0000000-0000-4000-8000-0000000000a1";
export const libraryId = "d0000000-0000-4000-8000-000000000001";

/** A deck's details: one of Ada's own unless told. */
export const details = (extra: Partial<Schemas["DeckDetails"]> = {}) =>
  ({
    id: ownId,
    owner_id: teacher.id,
    library: false,
    title: "Unit 3",
    description: "",
    term_language: "es",
    meaning_language: "en",
    version: 4,
    entries: 3,
    level: null,
    assigned: false,
    archived_at: null,
    copied_from: null,
    created_at: "2026-11-30T09:00:00Z",
    updated_at: "2026-11-30T09:00:00Z",
    ...extra,
  }) satisfies Schemas["DeckDetails"];

export const entry = (n: number, term: string, meaning: string, extra: Partial<Schemas["DeckEntry"]> = {}) =>
  ({
    id: `e0000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    term,
    meaning,
    example: "",
    part_of_speech: "",
    version: 1,
    position: n,
    ...extra,
  }) satisfies Schemas["DeckEntry"];

export const entries = [entry(1, "gato", "cat"), entry(2, "perro", "dog", { version: 2 }), entry(3, "correr", "to run")];

export const withEntries = (deck = details(), list: Schemas["DeckEntry"][] = entries) =>
  ({ deck: { ...deck, entries: list.length }, entries: list }) satisfies Schemas["DeckWithEntries"];

export const edited = (extra: Partial<Schemas["EntriesResult"]> = {}) =>
  ({ deck_id: ownId, added: [], changed: [], removed: [], cards_created: 0, entries: 3, ...extra }) satisfies Schemas["EntriesResult"];

export const problem = (status: number, title: string, extra: Partial<Schemas["Problem"]> = {}) =>
  ({ type: "https://lexora.app/problems/x", title, status, ...extra }) satisfies Schemas["Problem"];
