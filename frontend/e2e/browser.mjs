// Debian's chromium driven by playwright-core, with axe-core and screenshots.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import axe from "axe-core";
import { chromium } from "playwright-core";
import { root, startStack } from "./stack.mjs";

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

/** A phone's viewport (CSS pixels): the narrowest the client is made for. */
export const phone = { width: 375, height: 812 };

/**
 * Checks the screen as it is now, at the page's own width and at a phone's:
 * saves a full-page screenshot of each as artifacts/<name>.png and
 * artifacts/<name>-phone.png, runs axe-core (WCAG 2 A and AA rules and best
 * practices) at the page's width and saves its report as
 * artifacts/<name>.axe.json, and measures at 375 px what sticks out
 * sideways. Returns the serious and critical violations and the elements
 * wider than the phone's screen (none: the page never scrolls sideways).
 */
export async function check(page, name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
  const violations = await audit(page, name);
  const size = page.viewportSize();
  await page.setViewportSize(phone);
  // Two frames: the charts follow their container's new width (ResizeObserver).
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const overflow = await page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth <= width) return [];
    // The outermost elements that reach past the right edge name the culprit.
    const past = (e) => e.getBoundingClientRect().right > width + 1;
    const culprits = [...document.body.querySelectorAll("*")]
      .filter((e) => past(e) && !(e.parentElement && past(e.parentElement)))
      .map((e) => e.outerHTML.slice(0, 120));
    return culprits.length > 0 ? culprits.slice(0, 5) : [`the page is ${document.documentElement.scrollWidth} px wide`];
  });
  await page.screenshot({ path: join(artifacts, `${name}-phone.png`), fullPage: true });
  if (size) await page.setViewportSize(size);
  return {
    violations: violations.filter((v) => v.impact === "serious" || v.impact === "critical"),
    overflow,
  };
}

/**
 * Runs axe-core (WCAG 2 A and AA rules and best practices) on the page as it
 * is, saves its report as artifacts/<name>.axe.json and returns every
 * violation (id, impact, help, the nodes' selectors).
 */
export async function audit(page, name) {
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
  return violations;
}

/**
 * Starts the local stack (stack.mjs's startStack) and chromium (launch) at
 * once and resolves with both; if either fails to start, the other is
 * stopped and the failure thrown.
 */
export async function startStackAndBrowser() {
  const [s, b] = await Promise.allSettled([startStack(), launch()]);
  if (s.status === "fulfilled" && b.status === "fulfilled") return { stack: s.value, browser: b.value };
  if (b.status === "fulfilled") await b.value.close();
  if (s.status === "fulfilled") await s.value.stop();
  throw s.reason ?? b.reason;
}

/** A desktop browser context (1280 × 800) of browser. */
export function desktop(browser) {
  return browser.newContext({ viewport: { width: 1280, height: 800 } });
}

/**
 * Opens the client at baseURL in a new page of context and signs in with the
 * development sign-in's button for the seeded user whose label matches name.
 */
export async function signIn(context, baseURL, name) {
  const page = await context.newPage();
  await page.goto(`${baseURL}/`);
  await page.getByRole("heading", { name: "Sign in to Lexora" }).waitFor();
  await page.getByRole("button", { name: new RegExp(name) }).click();
  return page;
}

/**
 * The link named name in the app's Sections navigation: the sidebar on a
 * desktop, the tab bar on a phone. Scoped to it so a link of the same name in
 * the page's text never makes the locator ambiguous.
 */
export function section(page, name) {
  return page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name, exact: true });
}

/**
 * check()s the screen as artifacts/<name>*, and fails on a serious or
 * critical axe-core violation or on anything wider than a phone.
 */
export async function checkScreen(page, name) {
  const { violations, overflow } = await check(page, name);
  assert.deepEqual(violations, [], `${name}: serious or critical axe-core violations`);
  assert.deepEqual(overflow, [], `${name}: wider than a phone's screen`);
}
