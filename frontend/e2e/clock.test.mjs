// End-to-end: a learner whose device clock runs an hour fast. The functions
// refuse a reviewed_at more than 5 minutes ahead of their clock (400), so the
// client corrects the instant a rating is made by the offset it measured from
// the Date of the API's responses (src/api/clock.ts): the rating is accepted
// and counts at the server's now.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { desktop, section, signIn, startStackAndBrowser } from "./browser.mjs";
import { until } from "./stack.mjs";

const mia = "00000000-0000-4000-8000-000000000001";
const hour = 3_600_000;

let stack;
let browser;

describe("a device clock an hour fast", { timeout: 600_000 }, () => {
  before(async () => {
    ({ stack, browser } = await startStackAndBrowser());
  });
  after(async () => {
    await browser?.close();
    await stack?.stop();
  });

  it("has a learner's rating accepted, at the server's now", async () => {
    const context = await desktop(browser);
    // The page's clock (Date, timers) runs from an hour ahead, at the real pace.
    await context.clock.install({ time: Date.now() + hour });
    const page = await signIn(context, stack.baseURL, "Mia Laurent");
    const ahead = (await page.evaluate(() => Date.now())) - Date.now();
    assert.ok(Math.abs(ahead - hour) < 60_000, `the browser's clock is an hour ahead (${ahead} ms)`);

    await page.getByRole("heading", { name: "Today", level: 1 }).waitFor();
    await section(page, "Review").click();
    await page.getByText("Card 1 of").waitFor();
    const offset = await page.evaluate(() => JSON.parse(localStorage.getItem("lexora.clock") ?? "null")?.offsetMs);
    assert.ok(Math.abs(offset + hour) < 60_000, `the offset measured is an hour back (${offset} ms)`);

    await page.getByRole("button", { name: /Show answer/ }).click();
    await page.getByText("Definition").waitFor();
    await page.getByRole("button", { name: /^Good/ }).click();
    await page.getByTestId("queue-status").getByText("All ratings saved.").waitFor({ timeout: 60_000 });
    // A refused rating leaves the queue too, with an alert that says so.
    assert.equal(await page.getByText(/was not accepted/).count(), 0, "the rating was not refused");

    const row = await until(() =>
      stack.sql(`SELECT count(*) || ' ' || bool_and(abs(extract(epoch FROM now() - reviewed_at)) < 60)
        FROM review_log WHERE learner_id = '${mia}' HAVING count(*) > 0`),
    );
    assert.equal(row, "1 true", "one review, made within a minute of the database's now");
    await context.close();
  });
});
