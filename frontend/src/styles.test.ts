// @vitest-environment node
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// jsdom applies no style sheet, so the rules are read as written.
const css = readFileSync(new URL("./styles.css", import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
/** The declarations of the rule whose selector list starts with selector (undefined: none). */
const rule = (selector: string) => {
  const m = new RegExp(`(^|[}])\\s*${selector.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*\\{([^}]*)\\}`).exec(css);
  return m?.[2];
};

describe("styles.css", () => {
  it("gives the Class settings disclosure a visible marker that turns when it opens", () => {
    const summary = rule(".class-settings summary");
    expect(summary).toMatch(/display:\s*flex/);
    // A flex summary has no list-item marker: it must draw one.
    const marker = rule(".class-settings summary::before");
    expect(marker).toMatch(/content:\s*""/);
    expect(marker).toMatch(/border-(right|bottom):\s*2px solid currentColor/);
    expect(rule(".class-settings[open] > summary::before")).toMatch(/transform:\s*rotate\(45deg\)/);
  });
});
