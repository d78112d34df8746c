import type { components } from "../api/schema";

type Deck = components["schemas"]["Deck"];

/** The library's levels as people read them (decks.level: the words' frequency band). */
export const levelName: Record<number, string> = {
  1: "Level 1: the 200 most frequent words",
  2: "Level 2: words 201–400",
  3: "Level 3: words 401–600",
  4: "Level 4: words 601–800",
  5: "Level 5: words 801 and beyond",
};

/** The decks grouped for a list or a select: the teacher's own first (when they have any), then the library's by level. */
export function deckGroups(decks: Deck[]): { label: string; decks: Deck[] }[] {
  const groups = new Map<string, Deck[]>();
  const own = decks.filter((d) => !d.library);
  if (own.length > 0) groups.set("Your decks", own);
  for (const d of decks.filter((x) => x.library)) {
    const label = d.library && d.level !== null ? (levelName[d.level] ?? `Level ${d.level}`) : "Your decks";
    groups.set(label, [...(groups.get(label) ?? []), d]);
  }
  return [...groups].map(([label, list]) => ({ label, decks: list }));
}

