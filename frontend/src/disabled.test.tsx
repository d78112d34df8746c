/// <reference types="node" />
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { render, screen } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";

// The stylesheet itself (vitest hands a test an empty string for CSS imports, even ?raw ones).
// Tests run from the client's directory (frontend/).
const css = readFileSync(join(process.cwd(), "src", "styles.css"), "utf8");

afterEach(() => document.head.querySelectorAll("style[data-test]").forEach((s) => s.remove()));

describe("a disabled button", () => {
  it("looks disabled whatever its kind: not clickable to the pointer, dashed, grey", () => {
    const style = document.createElement("style");
    style.dataset.test = "";
    style.textContent = css;
    document.head.append(style);
    render(
      <>
        <button type="button">Plain</button>
        {["", "primary", "danger", "link"].map((kind) => (
          <button key={kind} type="button" className={kind} disabled>
            {`Disabled ${kind || "plain"}`}
          </button>
        ))}
      </>,
    );
    expect(getComputedStyle(screen.getByRole("button", { name: "Plain" })).cursor).toBe("pointer");
    for (const kind of ["plain", "primary", "danger", "link"]) {
      const b = getComputedStyle(screen.getByRole("button", { name: `Disabled ${kind}` }));
      expect(b.cursor, kind).toBe("not-allowed");
      expect(b.borderStyle, kind).toBe("dashed");
      expect(b.color, kind).toBe("var(--muted)");
    }
  });
});
