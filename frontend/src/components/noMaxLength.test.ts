// @vitest-environment node
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const src = new URL("../", import.meta.url);

describe("the client's text fields", () => {
  it("take their limits from useCharacterLimit, not maxLength, which counts UTF-16 units and cuts a paste without a word", () => {
    const screens = readdirSync(src, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".tsx") && !f.endsWith(".test.tsx"));
    expect(screens.length).toBeGreaterThan(10);
    const using = screens.filter((f) => /\bmaxLength=\{/.test(readFileSync(new URL(f, src), "utf8")));
    expect(using).toEqual([]);
  });
});
