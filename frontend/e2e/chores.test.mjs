// End-to-end: a teacher's chores on a class (issue 25, findings 8, 10 and
// 12), in Debian's chromium against the real local stack. The seed's Ada
// registers a webhook endpoint whose receiver (a local server) answers 503,
// renames the Demo class, gives it a new join code, sets the name a learner
// shows as, removes a learner, sets the class's new cards a day and a class
// deck's desired retention (beside its workload), then sees the endpoint
// failing on the Webhooks screen. Each change is checked in the database;
// every screen is screenshotted into e2e/artifacts/ (chores-*.png, at its
// width and a phone's) and checked with axe-core.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { artifacts, audit, checkScreen, phone, section, signIn, startStackAndBrowser } from "./browser.mjs";
import { until } from "./stack.mjs";

const mia = "00000000-0000-4000-8000-000000000001";
const yui = "00000000-0000-4000-8000-000000000003";
const demoClass = "00000000-0000-4000-8000-0000000000c1";
/** The deck the seed's Ada assigned to the Demo class as a class (pkg/seed's AssignedDeck). */
const seededDeck = "Core English 02";

let stack;
let browser;
/** A webhook receiver that is down: it answers 503 to every delivery. */
let receiver;
let received = 0;

/** Calls a function as a seeded user, with a token from the development sign-in; resolves with the status. */
async function status(user, name, body) {
  const signIn = await fetch(`${stack.baseURL}/dev/token`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ user_id: user }),
  });
  assert.ok(signIn.ok, `dev sign-in: ${signIn.status}`);
  const t = await signIn.json();
  const r = await fetch(`${stack.baseURL}/${name}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${t.token}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  await r.text();
  return r.status;
}

/**
 * Screenshots (chores-<name>.png, at its width and a phone's) and fails on serious axe-core violations, at
 * its width and at a phone's (chores-<name>-phone.axe.json), or a page wider than a phone.
 */
async function checkChoresScreen(page, name) {
  await checkScreen(page, `chores-${name}`);
  const size = page.viewportSize();
  await page.setViewportSize(phone);
  const onPhone = (await audit(page, `chores-${name}-phone`)).filter((v) => v.impact === "serious" || v.impact === "critical");
  await page.setViewportSize(size);
  assert.deepEqual(onPhone, [], `${name}: serious or critical axe-core violations on a phone`);
}

describe("a teacher's chores on a class", { timeout: 600_000 }, () => {
  before(async () => {
    receiver = createServer((req, res) => {
      received++;
      req.resume();
      res.writeHead(503).end();
    });
    await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    ({ stack, browser } = await startStackAndBrowser());
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
    await new Promise((resolve) => receiver?.close(resolve));
  });

  it("renames the class, renews its join code, names and removes learners, sets its limits, and sees a failing webhook", async () => {
    try {
      await chores();
    } catch (err) {
      stack.keep(artifacts, "chores-failed");
      const pages = browser.contexts().flatMap((c) => c.pages());
      await Promise.all(
        pages.map((p, i) => p.screenshot({ path: join(artifacts, `chores-failed-${i}.png`), fullPage: true }).catch(() => {})),
      );
      throw err;
    }
  });
});

async function chores() {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await signIn(context, stack.baseURL, "Ada Okafor");
  await page.getByRole("heading", { name: "Classes", level: 1 }).waitFor();

  // A webhook endpoint for the class's changes, whose receiver is down.
  const url = `http://127.0.0.1:${receiver.address().port}/lexora`;
  await section(page, "Webhooks").click();
  await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
  await page.getByLabel("Endpoint URL").fill(url);
  await page.getByRole("checkbox", { name: /A class was renamed/ }).check();
  await page.getByRole("checkbox", { name: /A learner was removed/ }).check();
  await page.getByRole("button", { name: "Register" }).click();
  await page.getByText("Copy it now: it is not shown again.").waitFor();
  await page.getByRole("button", { name: "Done" }).click();
  const endpoint = stack.sql(`SELECT id FROM webhook_endpoints WHERE url = '${url}'`);
  assert.ok(endpoint, "the endpoint is registered");

  await section(page, "Classes").click();
  const card = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Demo class", level: 2 }) });
  await card.waitFor();
  await checkChoresScreen(page, "classes");

  // The settings disclosure shows a marker (its summary is a flex box: no native triangle), turning as it opens.
  const settings = card.getByText("Class settings");
  const marker = () => settings.evaluate((el) => {
    const m = getComputedStyle(el, "::before");
    return { shown: m.content !== "none" && m.borderRightWidth !== "0px", transform: m.transform };
  });
  const closed = await marker();
  assert.equal(closed.shown, true, "Class settings has a visible disclosure marker");

  // Rename the class.
  await settings.click();
  // It turns with a transition: read it until it has moved (at most 2 s).
  let opened = await marker();
  for (let i = 0; i < 40 && opened.transform === closed.transform; i++) {
    await new Promise((r) => setTimeout(r, 50));
    opened = await marker();
  }
  assert.notEqual(opened.transform, closed.transform, "the marker turns when Class settings opens");
  await card.getByLabel("Name of this class").fill("Demo class, spring term");
  await card.getByRole("button", { name: "Rename", exact: true }).click();
  await page.getByRole("heading", { name: "Demo class, spring term", level: 2 }).waitFor();
  assert.equal(stack.sql(`SELECT name FROM classes WHERE id = '${demoClass}'`), "Demo class, spring term");
  const renamed = page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Demo class, spring term", level: 2 }) });

  // A new join code: the old one stops at once.
  await renamed.getByRole("button", { name: "New join code…" }).click();
  await renamed.getByRole("group", { name: "Confirm a new join code" }).waitFor();
  await checkChoresScreen(page, "new-code-confirm");
  await renamed.getByRole("button", { name: "Give a new code" }).click();
  await renamed.getByText(/New join code \S+: the old one no longer works/).waitFor();
  const code = stack.sql(`SELECT join_code FROM classes WHERE id = '${demoClass}'`);
  assert.notEqual(code, "DEMO2026", "the class has a new join code");
  assert.equal(await renamed.getByTestId("join-code").textContent(), code);

  // The name Mia shows as in this class; her account keeps its own.
  await renamed.getByRole("button", { name: "Rename Mia Laurent" }).click();
  await renamed.getByLabel(/Name in this class/).fill("Mia L. (front row)");
  await renamed.getByRole("button", { name: "Save name" }).click();
  await renamed.getByText("Mia L. (front row)", { exact: false }).first().waitFor();
  assert.equal(stack.sql(`SELECT display_name FROM class_members WHERE class_id = '${demoClass}' AND learner_id = '${mia}'`), "Mia L. (front row)");
  assert.equal(stack.sql(`SELECT display_name FROM users WHERE id = '${mia}'`), "Mia Laurent", "the account's name stays");

  // Remove Yui: the class's assignments to her go, her reviews stay.
  const reviews = stack.sql(`SELECT count(*) FROM review_log WHERE learner_id = '${yui}'`);
  await renamed.getByRole("button", { name: "Remove Yui Tanaka" }).click();
  const confirm = renamed.getByRole("group", { name: "Confirm removing Yui Tanaka" });
  await confirm.waitFor();
  await checkChoresScreen(page, "remove-confirm");
  await page.setViewportSize(phone);
  const [box, removeBox] = [await confirm.boundingBox(), await confirm.getByRole("button", { name: "Remove", exact: true }).boundingBox()];
  assert.equal(await confirm.evaluate((e) => getComputedStyle(e).display), "block", "the confirmation is a box of its own, not inline text");
  assert.ok(removeBox.x >= box.x && removeBox.x + removeBox.width <= box.x + box.width, "its Remove button lies inside it on a phone");
  await page.setViewportSize({ width: 1280, height: 800 });
  await confirm.getByRole("button", { name: "Remove", exact: true }).click();
  await renamed.getByRole("button", { name: "Remove Yui Tanaka" }).waitFor({ state: "detached" });
  assert.equal(stack.sql(`SELECT count(*) FROM class_members WHERE class_id = '${demoClass}' AND learner_id = '${yui}'`), "0");
  assert.equal(stack.sql(`SELECT count(*) FROM assignments WHERE class_id = '${demoClass}' AND learner_id = '${yui}'`), "0");
  assert.equal(stack.sql(`SELECT count(*) FROM review_log WHERE learner_id = '${yui}'`), reviews, "her reviews stay");
  // The old code joins nothing; the new one takes her back.
  assert.equal(await status(yui, "EnrollLearner", { join_code: "DEMO2026" }), 404, "the old join code no longer joins");
  assert.equal(stack.sql(`SELECT count(*) FROM class_members WHERE class_id = '${demoClass}' AND learner_id = '${yui}'`), "0");
  assert.ok((await status(yui, "EnrollLearner", { join_code: code })) < 300, "the new join code joins");
  assert.equal(stack.sql(`SELECT count(*) FROM class_members WHERE class_id = '${demoClass}' AND learner_id = '${yui}'`), "1");

  // The class's new cards a day.
  await renamed.getByLabel("New cards a day for each learner (0 for reviews only)").fill("12");
  await renamed.getByRole("button", { name: "Save limit" }).click();
  await renamed.getByText("now gets up to 12 new cards a day").waitFor();
  assert.equal(stack.sql(`SELECT new_cards_per_day FROM classes WHERE id = '${demoClass}'`), "12");
  await checkChoresScreen(page, "classes-after");

  // A class deck's desired retention, beside its workload.
  await renamed.getByRole("link", { name: "Progress of Demo class, spring term" }).click();
  await page.getByRole("heading", { name: "Demo class, spring term: progress", level: 1 }).waitFor();
  const deck = page.getByRole("region", { name: seededDeck });
  await deck.getByRole("table", { name: "Reviews per learner per day" }).waitFor();
  // The seed aims it at 85 %.
  assert.equal(await deck.getByLabel(/Desired retention in %/).inputValue(), "85");
  await deck.getByLabel(/Desired retention in %/).fill("92");
  await deck.getByRole("button", { name: "Save" }).click();
  await deck.getByText(`${seededDeck} now aims at 92 %`).waitFor();
  assert.equal(
    stack.sql(`SELECT cd.desired_retention FROM class_decks cd JOIN decks d ON d.id = cd.deck_id
      WHERE cd.class_id = '${demoClass}' AND d.title = '${seededDeck}'`),
    "0.92",
  );
  const table = deck.getByRole("table", { name: "Reviews per learner per day" });
  await table.getByRole("rowheader", { name: "80 %" }).waitFor();
  await table.getByRole("rowheader", { name: "95 %" }).waitFor();
  await checkChoresScreen(page, "progress");

  // The drain posted the class's changes to the receiver, which is down: the endpoint is failing.
  await until(() => Number(stack.sql(`SELECT transient_failures_in_row FROM webhook_endpoints WHERE id = '${endpoint}'`)) > 0);
  assert.ok(received > 0, "the receiver was posted to");
  assert.equal(stack.sql(`SELECT count(*) FROM webhook_attempts WHERE endpoint_id = '${endpoint}'`), "0", "a 503 is no answer");
  await section(page, "Webhooks").click();
  const row = page.getByRole("listitem").filter({ hasText: url });
  await row.getByText("Failing", { exact: true }).waitFor();
  const health = row.getByTestId("health");
  await health.getByText(/last error status 503 Service Unavailable \(retried\)/).waitFor();
  await health.getByText(/attempts? failed in a row/).waitFor();
  await health.getByText(/Lexora retries with backoff; check that the receiver is up/).waitFor();
  await checkChoresScreen(page, "webhooks");
  await context.close();
}
