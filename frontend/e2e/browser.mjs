// Debian's chromium driven by playwright-core, with axe-core and screenshots.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import axe from "axe-core";
import { chromium } from "playwright-core";
import { root } from "./stack.mjs";

export const artifacts = join(root, "frontend", "e2e", "artifacts");

export async function launch() {
  mkdirSync(artifacts, { recursive: true });
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/**
 * Saves a full-page screenshot of the screen as artifacts/<name>.png, runs
 * axe-core on it (WCAG 2 A and AA rules and best practices), saves the
 * report as artifacts/<name>.axe.json, and returns the serious and
 * critical violations.
 */
export async function check(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => n.target.join(" ")),
    }));
  });
  writeFileSync(join(artifacts, `${name}.axe.json`), JSON.stringify(violations, null, 2));
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical");
}
