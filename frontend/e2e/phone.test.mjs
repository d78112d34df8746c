// End-to-end on phones: the built client in Debian's chromium, emulating a
// touch screen (hasTouch, isMobile) at 360 × 640 and 375 × 812, against the
// real local stack. A learner's every screen stays as wide as the phone, and
// the ratings of a card with a long definition stay on the screen, at the
// bottom, the card scrolling above them. Screenshots of what the phone shows
// go to e2e/artifacts/phone-<width>x<height>-<screen>.png, axe-core's
// reports beside them.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { artifacts, audit, startStackAndBrowser } from "./browser.mjs";
import { until } from "./stack.mjs";

const mia = "00000000-0000-4000-8000-000000000001";

/** A definition that fills more than a phone's screen, with a word longer than the screen is wide. */
const longDefinition = `${"a meaning that goes on and on, as the fullest notes of a learner or the longest entry of a dictionary do, ".repeat(8)}Pneumonoultramicroscopicsilicovolcanoconiosis.`;

const phones = [
  { width: 360, height: 640 },
  { width: 375, height: 812 },
];

let stack;
let browser;

/**
 * Saves what the phone shows (the viewport, and the whole page) and checks
 * the page does not scroll sideways; with axe, fails on a serious or
 * critical axe-core violation too.
 */
async function checkPhoneScreen(page, name, { axe = false } = {}) {
  await page.screenshot({ path: join(artifacts, `${name}.png`) });
  await page.screenshot({ path: join(artifacts, `${name}-full.png`), fullPage: true });
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  assert.ok(scrollWidth <= innerWidth, `${name}: the page scrolls sideways (${scrollWidth} px wide on a ${innerWidth} px screen)`);
  if (axe) {
    const serious = (await audit(page, name)).filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(serious, [], `${name}: serious or critical axe-core violations`);
  }
}

/** Where el is on the screen, and whether it is the element a tap at its centre reaches (nothing covers it). */
function placeOf(locator) {
  return locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return { top: r.top, left: r.left, bottom: r.bottom, right: r.right, reachable: hit !== null && el.contains(hit) };
  });
}

describe("a learner on a phone", { timeout: 600_000 }, () => {
  before(async () => {
    ({ stack, browser } = await startStackAndBrowser());
    // Every card of Mia's has a long definition.
    stack.sql(`UPDATE lexemes SET definition = '${longDefinition}'
      WHERE id IN (SELECT lexeme_id FROM cards WHERE learner_id = '${mia}')`);
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  for (const viewport of phones) {
    const size = `${viewport.width}x${viewport.height}`;
    it(`at ${size}, the ratings stay on the screen, in the thumb's reach, and no screen scrolls sideways`, async () => {
      const context = await browser.newContext({ viewport, hasTouch: true, isMobile: true, deviceScaleFactor: 2 });
      const page = await context.newPage();
      await page.goto(`${stack.baseURL}/`);
      await page.getByRole("heading", { name: "Sign in to Lexora" }).waitFor();
      await checkPhoneScreen(page, `phone-${size}-signin`);
      await page.getByRole("button", { name: /Mia Laurent/ }).tap();
      await page.getByRole("heading", { name: "Today", level: 1 }).waitFor();
      await page.getByText(/cards? due now/).waitFor();
      assert.equal(await page.evaluate(() => matchMedia("(hover: none) and (pointer: coarse)").matches), true, "a touch screen");

      // The navigation is a tab bar at the bottom; the header keeps one row.
      const tabs = page.getByRole("navigation", { name: "Sections" });
      const bar = await placeOf(tabs);
      assert.equal(Math.round(bar.bottom), viewport.height, "the tab bar is at the bottom of the screen");
      const header = await page.locator("header.top").evaluate((h) => h.getBoundingClientRect().height);
      assert.ok(header < 64, `the header is one row (${header} px)`);
      // Her own deck (the seed's SelfStudyDeck) is shown with its progress.
      await page.getByRole("list", { name: "Your own decks" }).getByText(/cards learned/).waitFor();
      await checkPhoneScreen(page, `phone-${size}-today`, { axe: true });

      await tabs.getByRole("link", { name: "Review" }).tap();
      const reveal = page.getByRole("button", { name: /Show answer/ });
      await reveal.waitFor();
      assert.equal(await page.locator("kbd").first().isVisible(), false, "no keyboard hints without a keyboard");
      const shown = await placeOf(reveal);
      assert.ok(shown.reachable && shown.bottom <= bar.top, "Show answer is above the tab bar, in reach");
      await checkPhoneScreen(page, `phone-${size}-review-card`);

      for (let i = 1; i <= 2; i++) {
        await page.getByText(`Card ${i} of`).waitFor();
        await page.getByRole("button", { name: /Show answer/ }).tap();
        await page.getByText("Definition").waitFor();
        for (const name of ["Again", "Hard", "Good", "Easy"]) {
          const p = await placeOf(page.getByRole("button", { name: new RegExp(`^${name}`) }));
          assert.ok(
            p.top >= 0 && p.left >= 0 && p.bottom <= viewport.height && p.right <= viewport.width,
            `${name} lies fully inside the ${size} screen: ${JSON.stringify(p)}`,
          );
          assert.ok(p.reachable, `${name} is not covered`);
          assert.ok(p.bottom <= bar.top, `${name} is above the tab bar`);
        }
        if (i === 1) {
          await checkPhoneScreen(page, `phone-${size}-review-answer`, { axe: true });
          // The card scrolls above the ratings: its last line can be brought into view above them.
          await page.evaluate(() => window.scrollTo(0, document.scrollingElement.scrollHeight));
          const end = await page.locator(".answer dd").last().evaluate((dd) => dd.getBoundingClientRect().bottom);
          const ratingsTop = await page.getByRole("group", { name: "How well did you know it?" }).evaluate((g) => g.getBoundingClientRect().top);
          assert.ok(end <= ratingsTop, `the card's end (${end}) scrolls above the ratings (${ratingsTop})`);
          await checkPhoneScreen(page, `phone-${size}-review-answer-scrolled`);
        }
        await page.getByRole("button", { name: /^Good/ }).tap();
      }
      await page.getByText("Card 3 of").waitFor();
      await page.getByTestId("queue-status").getByText("All ratings saved.").waitFor();
      // Undo is where the thumb is after a mistaken rating: beside Show answer, above the tab bar.
      const undo = page.getByRole("button", { name: /^Undo last rating/ });
      const undoAt = await placeOf(undo);
      assert.ok(undoAt.reachable && undoAt.bottom <= bar.top && undoAt.top >= viewport.height / 2, `Undo is in the thumb's reach: ${JSON.stringify(undoAt)}`);
      const undos = () => Number(stack.sql(`SELECT count(*) FROM review_undo WHERE learner_id = '${mia}'`));
      const undone = undos();
      await undo.tap();
      await page.getByText("Card 2 of").waitFor();
      await page.getByText(/is undone: rate it again/).waitFor();
      await checkPhoneScreen(page, `phone-${size}-review-undone`);
      await until(() => undos() === undone + 1);

      for (const [tab, heading] of [
        ["Schedule", "Schedule"],
        ["Progress", "Progress"],
        ["Library", "Library"],
      ]) {
        await tabs.getByRole("link", { name: tab }).tap();
        await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
        if (tab === "Schedule") await page.locator(".recharts-bar-rectangle").first().waitFor();
        if (tab === "Progress") await page.getByRole("list", { name: "Your own decks" }).waitFor();
        await checkPhoneScreen(page, `phone-${size}-${tab.toLowerCase()}`, { axe: tab === "Progress" });
      }
      await context.close();
    });
  }
});
