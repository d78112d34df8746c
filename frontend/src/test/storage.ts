import { vi } from "vitest";

/**
 * Stubs localStorage, which Node has not, with one kept in the Map it
 * returns, for tests of what api/clock.ts keeps. vi.unstubAllGlobals()
 * takes it away.
 */
export function memoryLocalStorage(): Map<string, string> {
  const kept = new Map<string, string>();
  vi.stubGlobal("localStorage", {
    getItem: (k: string) => kept.get(k) ?? null,
    setItem: (k: string, v: string) => void kept.set(k, v),
  });
  return kept;
}
